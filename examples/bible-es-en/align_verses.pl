#!/usr/bin/perl
# Pairs Spanish and English verses chapter by chapter with a length-based alignment (Gale & Church 1993,
# on character lengths) instead of trusting verse numbers: the Spanish module claims KJV numbering but
# follows another in some chapters (Numbers 13 is a verse off), and WEB folds or swaps a few verses. Only
# one-to-one beads whose lengths agree are kept; merged, split, missing and implausible pairs are dropped.
#   usage: align_verses.pl spanish.tsv english.tsv > pairs.tsv   (Book, chapter, es verse, en verse, es, en)
# Statistics go to stderr.
use strict;
use warnings;
use utf8;
binmode STDOUT, ':encoding(UTF-8)';
binmode STDERR, ':encoding(UTF-8)';

sub read_tsv {
  my ($path) = @_;
  open(my $f, '<:encoding(UTF-8)', $path) or die "cannot open $path: $!\n";
  my (%chapters, @order);
  while (my $line = <$f>) {
    chomp $line;
    my ($book, $chapter, $verse, $text) = split /\t/, $line, 4;
    my $key = "$book\t$chapter";
    push @order, $key unless exists $chapters{$key};
    push @{$chapters{$key}}, [$verse, $text // ''];
  }
  return (\%chapters, \@order);
}

# Two-sided tail probability of a standard normal, 2 * (1 - Phi(|z|)) (Abramowitz & Stegun 26.2.17).
sub two_tail {
  my $z = abs($_[0]);
  my $t = 1 / (1 + 0.2316419 * $z);
  my $poly = $t * (0.319381530 + $t * (-0.356563782 + $t * (1.781477937 + $t * (-1.821255978 + $t * 1.330274429))));
  my $p = 2 * (0.3989422804014327 * exp(-$z * $z / 2)) * $poly;
  return $p < 1e-300 ? 1e-300 : $p;
}

my ($es, $es_order) = read_tsv($ARGV[0]);
my ($en) = read_tsv($ARGV[1]);

# Expected Spanish/English character ratio, and Gale & Church's variance per character.
my ($es_chars, $en_chars) = (0, 0);
for my $key (@$es_order) {
  next unless $en->{$key};
  $es_chars += length($_->[1]) for @{$es->{$key}};
  $en_chars += length($_->[1]) for @{$en->{$key}};
}
my $c = $es_chars / $en_chars;
my $s2 = 6.8;
# Bead types: [spanish verses, english verses, prior].
my @beads = ([1, 1, 0.89], [1, 0, 0.0099 / 2], [0, 1, 0.0099 / 2], [2, 1, 0.089 / 2], [1, 2, 0.089 / 2], [2, 2, 0.011]);

sub cost {
  my ($les, $len, $prior) = @_;
  return -log($prior) if $les == 0 || $len == 0;
  my $delta = ($les - $len * $c) / sqrt($len * $s2);
  return -log($prior) - log(two_tail($delta));
}

my ($kept, $dropped, $shifted_chapters, $chapters) = (0, 0, 0, 0);
for my $key (@$es_order) {
  my $a = $es->{$key};
  my $b = $en->{$key} or do { $dropped += @$a; next };
  $chapters++;
  my ($n, $m) = (scalar @$a, scalar @$b);
  my (@dp, @back);
  $dp[0][0] = 0;
  for my $i (0 .. $n) {
    for my $j (0 .. $m) {
      next if $i == 0 && $j == 0;
      my $best;
      for my $bead (@beads) {
        my ($di, $dj, $prior) = @$bead;
        next if $i < $di || $j < $dj || !defined $dp[$i - $di][$j - $dj];
        my ($la, $lb) = (0, 0);
        $la += length($a->[$i - $_][1]) for 1 .. $di;
        $lb += length($b->[$j - $_][1]) for 1 .. $dj;
        my $total = $dp[$i - $di][$j - $dj] + cost($la, $lb, $prior);
        if (!defined $best || $total < $best) {
          $best = $total;
          $back[$i][$j] = [$di, $dj];
        }
      }
      $dp[$i][$j] = $best;
    }
  }
  my @pairs;
  my ($i, $j) = ($n, $m);
  while ($i > 0 || $j > 0) {
    my ($di, $dj) = @{$back[$i][$j]};
    if ($di == 1 && $dj == 1) {
      my ($la, $lb) = (length($a->[$i - 1][1]), length($b->[$j - 1][1]));
      my $delta = $lb > 0 ? ($la - $lb * $c) / sqrt($lb * $s2) : 99;
      if ($la > 0 && $lb > 0 && abs($delta) < 3) { unshift @pairs, [$a->[$i - 1], $b->[$j - 1]] }
      else { $dropped++ }
    } else {
      $dropped += $di;
    }
    ($i, $j) = ($i - $di, $j - $dj);
  }
  my $shifted = grep { $_->[0][0] != $_->[1][0] } @pairs;
  $shifted_chapters++ if $shifted > 0;
  my ($book, $chapter) = split /\t/, $key;
  for my $p (@pairs) {
    print join("\t", $book, $chapter, $p->[0][0], $p->[1][0], $p->[0][1], $p->[1][1]), "\n";
    $kept++;
  }
}
printf STDERR "aligned %d chapters: kept %d verse pairs, dropped %d Spanish verses; %d chapters pair verses " .
              "with different numbers (ratio es/en %.3f)\n", $chapters, $kept, $dropped, $shifted_chapters, $c;
