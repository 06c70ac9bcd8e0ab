// Drives a running `heptapod serve` holding a multilingual model with the LibreTranslate npm client
// (libretranslate@1.0.1: GET /languages, then POST /translate) and compares each translation with what
// `heptapod translate --source-lang/--target-lang` printed for it (run.sh's references).
//
// Usage: node libretranslate_client.js PACKAGE_DIR URL CASES.tsv
//   CASES.tsv: lines "source<TAB>target<TAB>text<TAB>reference", two-letter codes ("auto": no source).
// Every check runs; each prints "ok - NAME" or "not ok - NAME" with the reason. Exit status 0 when all pass.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');

const [pkg, url, casesPath] = process.argv.slice(2);
const { translate } = require(pkg);
const cases = fs.readFileSync(casesPath, 'utf8').replace(/\n$/, '').split('\n').map((l) => l.split('\t'));

let failed = 0;
async function check(name, body) {
  try {
    await body();
    console.log('ok - ' + name);
  } catch (e) {
    failed += 1;
    console.log('not ok - ' + name + ': ' + (e && e.message ? e.message : e));
  }
}

(async () => {
  await check('GET /languages lists the model\'s languages, each a target of the others', async () => {
    const languages = await (await fetch(url + '/languages')).json();
    const codes = languages.map((l) => l.code).sort();
    assert.deepEqual(codes, ['de', 'en', 'es', 'fr']);
    for (const l of languages) assert.deepEqual([...l.targets].sort(), codes.filter((c) => c !== l.code));
  });
  for (const [source, target, text, reference] of cases) {
    await check(`translate ${source} -> ${target}: "${text}"`, async () => {
      const got = await translate({ query: text, source, target, apiurl: url });
      assert.equal(got, reference);
    });
  }
  await check('an unknown language is refused by the client (it is not in /languages)', async () => {
    await assert.rejects(translate({ query: 'three', source: 'en', target: 'xx', apiurl: url }), TypeError);
  });
  await check('an unknown language sent anyway is a 400 naming the model\'s languages', async () => {
    const r = await fetch(url + '/translate', {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ q: 'three', source: 'en', target: 'xx' }),
    });
    assert.equal(r.status, 400);
    assert.match(JSON.stringify(await r.json()), /__en__, __fr__, __es__, __de__/);
  });
  process.exit(failed === 0 ? 0 : 1);
})();
