#!/usr/bin/perl
# Reads a SWORD module exported by mod2imp (OSIS markup) on stdin and prints one verse per line as
#   Book<TAB>chapter<TAB>verse<TAB>plain text
# for the 66 books of the Protestant canon. Markup is removed: footnotes (<note>...</note>, with their
# readings) and non-canonical headings (<title> without canonical="true") go entirely and leave a space, so no
# two words are glued together; Strong's tags (<w lemma=...>), translator additions (<transChange>), quotes,
# poetry lines and milestones keep their text; canonical psalm superscriptions keep their text.
# With --initial-caps, the typeset small capitals that open a chapter ("EN el principio", "Y DESPUÉS movió")
# are brought back to sentence case ("En el principio", "Y después movió").
use strict;
use warnings;
use utf8;
binmode STDIN, ':encoding(UTF-8)';
binmode STDOUT, ':encoding(UTF-8)';

my %canon = map { $_ => 1 } (
  'Genesis', 'Exodus', 'Leviticus', 'Numbers', 'Deuteronomy', 'Joshua', 'Judges', 'Ruth', 'I Samuel', 'II Samuel',
  'I Kings', 'II Kings', 'I Chronicles', 'II Chronicles', 'Ezra', 'Nehemiah', 'Esther', 'Job', 'Psalms', 'Proverbs',
  'Ecclesiastes', 'Song of Solomon', 'Isaiah', 'Jeremiah', 'Lamentations', 'Ezekiel', 'Daniel', 'Hosea', 'Joel',
  'Amos', 'Obadiah', 'Jonah', 'Micah', 'Nahum', 'Habakkuk', 'Zephaniah', 'Haggai', 'Zechariah', 'Malachi',
  'Matthew', 'Mark', 'Luke', 'John', 'Acts', 'Romans', 'I Corinthians', 'II Corinthians', 'Galatians', 'Ephesians',
  'Philippians', 'Colossians', 'I Thessalonians', 'II Thessalonians', 'I Timothy', 'II Timothy', 'Titus',
  'Philemon', 'Hebrews', 'James', 'I Peter', 'II Peter', 'I John', 'II John', 'III John', 'Jude',
  'Revelation of John');

sub clean {
  my ($t) = @_;
  $t =~ s{<note\b[^>]*/>}{ }g;
  $t =~ s{<note\b.*?</note>}{ }gs;
  $t =~ s{<title\b(?![^>]*canonical="true")[^>]*/>}{ }g;
  $t =~ s{<title\b(?![^>]*canonical="true")[^>]*>.*?</title>}{ }gs;
  $t =~ s{<(?:l|lb|lg|div|p|chapter|milestone)\b[^>]*>}{ }g;  # structural elements separate words
  $t =~ s{<[^>]*>}{}g;                                       # inline elements keep their text
  $t =~ s/&quot;/"/g;
  $t =~ s/&lt;/</g;
  $t =~ s/&gt;/>/g;
  $t =~ s/&amp;/&/g;
  $t =~ s/[¶\x{2003}\x{00A0}]/ /g;
  $t =~ s/\s+/ /g;
  $t =~ s/ ([,.;:!?])/$1/g;
  $t =~ s/^ //;
  $t =~ s/ $//;
  return $t;
}

my $initial_caps = grep { $_ eq '--initial-caps' } @ARGV;

# Lowercases the leading run of all-capital words (at most two), keeping the very first letter; the divine
# names that the translation always sets in capitals stay as they are.
sub sentence_case {
  my ($t) = @_;
  my @w = split / /, $t, -1;
  for my $k (0 .. 1) {
    last if $k > $#w || $w[$k] !~ /^\p{Lu}+[,.;:]?$/ || $w[$k] =~ /^(?:JEHOVÁ|DIOS|SEÑOR)/;
    $w[$k] = lc $w[$k];
  }
  $w[0] = ucfirst $w[0] if @w;
  return join ' ', @w;
}

my ($book, $chapter, $verse, $text) = ('', 0, 0, '');
sub flush {
  if ($canon{$book} && $chapter > 0 && $verse > 0) {
    my $t = clean($text);
    $t = sentence_case($t) if $initial_caps && $verse == 1;
    print "$book\t$chapter\t$verse\t$t\n";
  }
  $text = '';
}
while (my $line = <STDIN>) {
  chomp $line;
  if ($line =~ /^\$\$\$(.+) (\d+):(\d+)$/) {
    flush();
    ($book, $chapter, $verse) = ($1, $2, $3);
  } elsif ($line =~ /^\$\$\$/) {
    flush();
    ($book, $chapter, $verse) = ('', 0, 0);
  } else {
    $text .= ' ' . $line;
  }
}
flush();
