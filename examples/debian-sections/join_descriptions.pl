#!/usr/bin/perl
# join_descriptions.pl PACKAGES TRANSLATION_EN OUT_DIR: Debian's binary packages of one suite as a labelled
# text corpus. PACKAGES and TRANSLATION_EN are the suite's uncompressed lists (apt-helper cat-file). Each
# package's text is its short and long description on one line (Translation-en, joined on the package and its
# Description-md5); its label is its Section. The split goes by source package, so that sibling binaries,
# which share descriptions, fall on one side: md5(source) decides, test 10%, dev 10%, train 80%.
# Writes OUT_DIR/{train,dev,test}.{txt,labels,packages}.
use strict;
use warnings;
use Digest::MD5 qw(md5);

my ($packages, $translations, $out) = @ARGV;
die "usage: join_descriptions.pl PACKAGES TRANSLATION_EN OUT_DIR\n" unless defined $out;

# Stanzas separated by blank lines; a field's continuation lines start with a space.
sub each_stanza {
  my ($path, $visit) = @_;
  open(my $in, '<', $path) or die "$path: $!\n";
  local $/ = "";
  while (my $stanza = <$in>) {
    my %field;
    my $name;
    for my $line (split /\n/, $stanza) {
      if ($line =~ /^([A-Za-z0-9-]+):\s?(.*)$/) { $name = $1; $field{$name} = $2; }
      elsif (defined $name && $line =~ /^ (.*)$/) { $field{$name} .= "\n" . $1; }
    }
    $visit->(\%field);
  }
  close($in);
}

my %text;    # "package md5" -> one-line description
each_stanza($translations, sub {
  my ($f) = @_;
  return unless defined $f->{'Package'} && defined $f->{'Description-md5'} && defined $f->{'Description-en'};
  my @lines = grep { $_ ne '.' } split /\n/, $f->{'Description-en'};
  my $line = join(' ', @lines);
  $line =~ s/\s+/ /g;
  $line =~ s/^ | $//g;
  $text{"$f->{'Package'} $f->{'Description-md5'}"} = $line;
});

my %file;
for my $split (qw(train dev test)) {
  for my $kind (qw(txt labels packages)) {
    open($file{"$split.$kind"}, '>', "$out/$split.$kind") or die "$out/$split.$kind: $!\n";
  }
}
my ($kept, $missing) = (0, 0);
each_stanza($packages, sub {
  my ($f) = @_;
  my ($package, $section, $md5) = ($f->{'Package'}, $f->{'Section'}, $f->{'Description-md5'});
  return unless defined $package && defined $section && defined $md5;
  my $line = $text{"$package $md5"};
  if (!defined $line) { ++$missing; return; }
  my $source = $f->{'Source'} // $package;
  $source =~ s/ .*//;    # "Source: name (version)"
  my $bucket = unpack('N', md5($source)) % 10;
  my $split = $bucket == 0 ? 'test' : $bucket == 1 ? 'dev' : 'train';
  print { $file{"$split.txt"} } "$line\n";
  print { $file{"$split.labels"} } "$section\n";
  print { $file{"$split.packages"} } "$package\t$source\n";
  ++$kept;
});
close($_) for values %file;
print STDERR "$kept packages with descriptions, $missing without\n";
