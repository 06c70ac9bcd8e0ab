#!/usr/bin/perl
# extract_commentary.pl: Matthew Henry's Concise Commentary from mod2imp's export (stdin) as paragraphs, one
# per line: "BOOK<TAB>TEXT", in the commentary's order. The export repeats paragraphs across entries (each
# paragraph is kept once, by its id) and names each book by the id of its opening element; a paragraph belongs
# to the last book opened before it. Markup is stripped, references keep their text; "Verses 3-5" headings go.
use strict;
use warnings;
binmode STDOUT, ':utf8';
binmode STDIN, ':utf8';
my (%paragraph, %book_start);
while (my $line = <STDIN>) {
  next if $line =~ /^\$\$\$/;
  while ($line =~ /eID="gen(\d+)" osisID="([^"]+)" type="book"/g) { $book_start{$1} = $2 }
  while ($line =~ /<div sID="gen(\d+)" type="x-p"\/>(.*?)<div eID="gen\1" type="x-p"\/>/g) {
    my ($id, $text) = ($1, $2);
    next if exists $paragraph{$id};
    $text =~ s/<[^>]*>//g;
    $text =~ s/&amp;/&/g; $text =~ s/&lt;/</g; $text =~ s/&gt;/>/g; $text =~ s/&quot;/"/g; $text =~ s/&apos;/'/g;
    $text =~ s/\s+/ /g; $text =~ s/^ //; $text =~ s/ $//;
    next if $text eq '' || $text =~ /^(Verses?|Chapter|Ver\.)\s*[\d\s,\-:&]*$/;
    $paragraph{$id} = $text;
  }
}
my @starts = sort { $a <=> $b } keys %book_start;
die "no books in the export\n" unless @starts;
my $book = 0;
for my $id (sort { $a <=> $b } keys %paragraph) {
  $book++ while $book + 1 < @starts && $starts[$book + 1] <= $id;
  next if $id < $starts[0];
  print "$book_start{$starts[$book]}\t$paragraph{$id}\n";
}
