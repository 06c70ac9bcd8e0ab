#!/usr/bin/env node
// Reference GPT-2 token ids from an independent implementation: the npm package gpt-3-encoder@1.1.4
// (a JS port of OpenAI's encoder.py), as fetched by fetch_vocabularies.sh.
// Usage: node gpt2_reference.js OUTDIR/gpt2/js TEXTFILE
// Prints, on one line, a JSON array of the ids that the package's encode() gives for the whole content
// of TEXTFILE taken as one string (decoded as UTF-8; invalid UTF-8 is an error, a leading U+FEFF is
// kept as text). No special tokens are recognised ("<|endoftext|>" is ordinary text to encode()).
// Exits nonzero if an id is missing or if the package's decode() does not give the text back.
'use strict';
const fs = require('fs');
const path = require('path');

function fail(msg) {
  process.stderr.write('gpt2_reference.js: ' + msg + '\n');
  process.exit(1);
}

if (process.argv.length !== 4) {
  process.stderr.write('usage: node gpt2_reference.js OUTDIR/gpt2/js TEXTFILE\n');
  process.exit(2);
}
const encoderDir = path.resolve(process.argv[2]);
const textFile = process.argv[3];

// Encoder.js reads encoder.json and vocab.bpe from its own folder (path.join(__dirname, ...)).
const { encode, decode } = require(path.join(encoderDir, 'Encoder.js'));

let text;
try {
  text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(fs.readFileSync(textFile));
} catch (e) {
  fail(textFile + ': ' + e.message);
}

const ids = encode(text);
ids.forEach((id, i) => {
  if (!Number.isInteger(id)) fail('token ' + i + ' has no id (the BPE produced a piece not in encoder.json)');
});
if (decode(ids) !== text) fail('decode(encode(text)) differs from the text');
process.stdout.write(JSON.stringify(ids) + '\n');
