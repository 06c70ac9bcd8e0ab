// Drives a running `heptapod serve` with OpenAI's official JavaScript client library (the npm package
// "openai", fetched by fetch_openai.sh) and checks its OpenAI-compatible API (GET /v1/models,
// POST /v1/completions, POST /v1/chat/completions, POST /v1/embeddings) as that library sees it: the replies
// parse into the library's types, streams iterate, embeddings decode from base64, and errors surface as the
// library's exception classes. Texts and vectors are compared with what the `heptapod generate` /
// `heptapod chat --messages` / `heptapod embed` command lines print for the same model, prompt and seed (the
// references run.sh computes).
//
// Usage: node openai_client.js CONFIG.json      (CommonJS; Node 20 or later)
// CONFIG.json, written by run.sh:
//   openai      absolute path of the unpacked package (OUTDIR/node_modules/openai)
//   url         the server, "http://127.0.0.1:PORT" (the client gets baseURL url + "/v1")
//   apiKey      the key to send (the server under test runs without --api-keys, so any string)
//   models      [{id, kind, labels?, context_length?, chat?}] in the server's -m order
//   generation  the language model's name;  max_tokens: the max_tokens every completion asks for
//   completions [{prompt, seed, reference}]: reference = the CLI's output line (prompt + new text) for
//               --temperature 1 --top-k 0 --top-p 1 --seed SEED --max-tokens max_tokens; the first is the main
//               case, and all of them (8) run concurrently
//   pairPrompts two prompts for the n = 2 checks
//   embeddings  [{model, input: [two strings], vectors: [[...], [...]]}]: vectors = `heptapod embed`'s lines
//   chat        {model, seed, messages, reference, rendered}: a chat model (one with a chat template), a
//               conversation, the reply `heptapod chat --messages` prints for it at the completions' sampling
//               settings with that seed (without its newline), and the prompt `heptapod chat --render` prints
//   keyed       null, or {url, key, model, embedding}: a second server started with --api-keys holding `key`
// Every check runs (a failure does not stop the later ones); each prints "ok - NAME" or "not ok - NAME" with the
// reason. Exit status 0 when all pass, 1 otherwise.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');

if (process.argv.length !== 3) {
  console.error('usage: node openai_client.js CONFIG.json');
  process.exit(2);
}
const cfg = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const { OpenAI } = require(cfg.openai);

const TIMEOUT_MS = 30000;
const makeClient = (url, apiKey) => new OpenAI({ apiKey, baseURL: url + '/v1', maxRetries: 0, timeout: TIMEOUT_MS });
const client = makeClient(cfg.url, cfg.apiKey);
const LM = cfg.generation;
const MAX = cfg.max_tokens;
const main = cfg.completions[0];

// ---- a small harness: named checks, run in order, each one's failure reported and counted ----
let failures = 0;
let passes = 0;
async function check(name, body) {
  try {
    await body();
    passes += 1;
    console.log('ok - ' + name);
  } catch (e) {
    failures += 1;
    console.log('not ok - ' + name);
    const text = (e && e.stack) || String(e);
    for (const line of text.split('\n')) console.log('    ' + line);
  }
}

// The request body shared by the sampling checks: the CLI's --temperature 1 --top-k 0 --top-p 1.
const sampling = (c, extra = {}) => ({
  model: LM, prompt: c.prompt, seed: c.seed, temperature: 1, top_p: 1, max_tokens: MAX, ...extra,
});

// The new text of a CLI reference line (it prints prompt + new text).
function newText(c) {
  assert.ok(c.reference.startsWith(c.prompt),
    'the CLI line ' + JSON.stringify(c.reference) + ' does not begin with its prompt ' + JSON.stringify(c.prompt));
  return c.reference.slice(c.prompt.length);
}

const isCount = (v) => Number.isInteger(v) && v >= 0;

function checkUsage(usage, what) {
  assert.ok(usage && typeof usage === 'object', what + ': no usage object');
  assert.ok(isCount(usage.prompt_tokens) && usage.prompt_tokens >= 1, what + ': prompt_tokens ' + usage.prompt_tokens);
  assert.ok(isCount(usage.completion_tokens) && usage.completion_tokens >= 1,
    what + ': completion_tokens ' + usage.completion_tokens);
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens,
    what + ': total_tokens is not prompt_tokens + completion_tokens');
}

// Checks a non-streamed completion's envelope (logprobs null unless `logprobs` was asked for); returns its choices
// ordered by index.
function checkCompletion(r, choices, logprobs = false) {
  assert.equal(r.object, 'text_completion');
  assert.match(r.id, /^cmpl-[0-9a-f]+$/, 'id');
  assert.ok(Number.isInteger(r.created) && Math.abs(r.created - Date.now() / 1000) < 3600, 'created ' + r.created);
  assert.equal(r.model, LM);
  assert.ok(Array.isArray(r.choices), 'choices is not an array');
  assert.deepEqual(r.choices.map((c) => c.index).sort((a, b) => a - b), [...Array(choices).keys()],
    'choice indices');
  for (const c of r.choices) {
    assert.equal(typeof c.text, 'string', 'choice ' + c.index + ': text');
    if (!logprobs) assert.equal(c.logprobs, null, 'choice ' + c.index + ': logprobs');
    assert.ok(c.finish_reason === 'stop' || c.finish_reason === 'length',
      'choice ' + c.index + ': finish_reason ' + c.finish_reason);
  }
  checkUsage(r.usage, 'usage');
  assert.ok(r.usage.completion_tokens <= choices * MAX, 'completion_tokens above n * max_tokens');
  return [...r.choices].sort((a, b) => a.index - b.index);
}

// Iterates a completion stream; returns {texts: index -> joined pieces, finish: index -> reason, usage, events}.
async function drain(stream, choices) {
  assert.ok(stream && typeof stream[Symbol.asyncIterator] === 'function', 'stream: true gave no stream to iterate');
  const texts = new Map();
  const finish = new Map();
  let usage = null;
  let id = null;
  let events = 0;
  for await (const ev of stream) {
    events += 1;
    assert.equal(usage, null, 'an event after the usage event');
    assert.equal(ev.object, 'text_completion', 'event object');
    assert.equal(ev.model, LM, 'event model');
    if (id === null) id = ev.id;
    assert.equal(ev.id, id, 'every event of a stream has the same id');
    assert.ok(Array.isArray(ev.choices), 'event choices is not an array');
    for (const c of ev.choices) {
      assert.ok(Number.isInteger(c.index) && c.index >= 0 && c.index < choices, 'event choice index ' + c.index);
      assert.ok(!finish.has(c.index), 'choice ' + c.index + ' has an event after its finish_reason');
      assert.equal(typeof c.text, 'string', 'event text');
      texts.set(c.index, (texts.get(c.index) || '') + c.text);
      if (c.finish_reason !== null && c.finish_reason !== undefined) finish.set(c.index, c.finish_reason);
    }
    if (ev.usage) {
      assert.equal(ev.choices.length, 0, 'the usage event has choices');
      usage = ev.usage;
    }
  }
  assert.match(id || '', /^cmpl-[0-9a-f]+$/, 'stream id');
  for (let i = 0; i < choices; ++i)
    assert.ok(finish.has(i), 'choice ' + i + ': no event carried its finish_reason');
  return { texts, finish, usage, events };
}

// The request body of the chat checks: the chat reference's conversation and sampling settings.
const chatRequest = (extra = {}) => ({
  model: cfg.chat.model, messages: cfg.chat.messages, seed: cfg.chat.seed, temperature: 1, top_p: 1, max_tokens: MAX,
  ...extra,
});

// Checks a non-streamed chat completion's envelope; returns its choices ordered by index.
function checkChatCompletion(r, choices) {
  assert.equal(r.object, 'chat.completion');
  assert.match(r.id, /^chatcmpl-[0-9a-f]+$/, 'id');
  assert.ok(Number.isInteger(r.created) && Math.abs(r.created - Date.now() / 1000) < 3600, 'created ' + r.created);
  assert.equal(r.model, cfg.chat.model);
  assert.ok(Array.isArray(r.choices), 'choices is not an array');
  assert.deepEqual(r.choices.map((c) => c.index).sort((a, b) => a - b), [...Array(choices).keys()],
    'choice indices');
  for (const c of r.choices) {
    assert.equal(c.message.role, 'assistant', 'choice ' + c.index + ': role');
    assert.equal(typeof c.message.content, 'string', 'choice ' + c.index + ': content');
    assert.ok(c.finish_reason === 'stop' || c.finish_reason === 'length',
      'choice ' + c.index + ': finish_reason ' + c.finish_reason);
  }
  checkUsage(r.usage, 'usage');
  assert.ok(r.usage.completion_tokens <= choices * MAX, 'completion_tokens above n * max_tokens');
  return [...r.choices].sort((a, b) => a.index - b.index);
}

// Iterates a chat completion stream: each choice's first delta says role "assistant", its content deltas follow,
// a finish_reason ends it, and with include_usage one last chunk has no choices and the usage. Returns
// {texts: index -> joined content, finish: index -> reason, logprobs: index -> joined logprobs.content, usage}.
async function drainChat(stream, choices) {
  assert.ok(stream && typeof stream[Symbol.asyncIterator] === 'function', 'stream: true gave no stream to iterate');
  const texts = new Map();
  const finish = new Map();
  const logprobs = new Map();
  let usage = null;
  let id = null;
  for await (const ev of stream) {
    assert.equal(usage, null, 'a chunk after the usage chunk');
    assert.equal(ev.object, 'chat.completion.chunk', 'chunk object');
    assert.equal(ev.model, cfg.chat.model, 'chunk model');
    if (id === null) id = ev.id;
    assert.equal(ev.id, id, 'every chunk of a stream has the same id');
    assert.ok(Array.isArray(ev.choices), 'chunk choices is not an array');
    for (const c of ev.choices) {
      assert.ok(Number.isInteger(c.index) && c.index >= 0 && c.index < choices, 'chunk choice index ' + c.index);
      assert.ok(!finish.has(c.index), 'choice ' + c.index + ' has a chunk after its finish_reason');
      assert.ok(c.delta && typeof c.delta === 'object', 'chunk without a delta');
      if (!texts.has(c.index)) assert.equal(c.delta.role, 'assistant', 'choice ' + c.index + ': the first delta\'s role');
      else assert.equal(c.delta.role, undefined, 'choice ' + c.index + ': a role after the first delta');
      if (c.delta.content !== undefined) assert.equal(typeof c.delta.content, 'string', 'delta content');
      texts.set(c.index, (texts.get(c.index) || '') + (c.delta.content || ''));
      if (c.logprobs && c.logprobs.content)
        logprobs.set(c.index, (logprobs.get(c.index) || []).concat(c.logprobs.content));
      if (c.finish_reason !== null && c.finish_reason !== undefined) finish.set(c.index, c.finish_reason);
    }
    if (ev.usage) {
      assert.equal(ev.choices.length, 0, 'the usage chunk has choices');
      usage = ev.usage;
    }
  }
  assert.match(id || '', /^chatcmpl-[0-9a-f]+$/, 'stream id');
  for (let i = 0; i < choices; ++i)
    assert.ok(finish.has(i), 'choice ' + i + ': no chunk carried its finish_reason');
  return { texts, finish, logprobs, usage };
}

// A token's text in the reply: its own, except the unknown piece, which a token names as "<unk>" (a special
// token as its piece is written) and the test vocabulary's text shows as SentencePiece's " \u2047 ". A random
// model may sample it.
const surface = (token) => (token === '<unk>' ? ' \u2047 ' : token);

// Checks a chat reply's logprobs.content against its text and `top` (the request's top_logprobs): the tokens
// spell the text, each logprob is finite and <= 0, each token's bytes are its UTF-8, its top_logprobs are `top`
// entries, most likely first, and the token taken has its own logprob among them, or none above theirs.
function checkChatLogprobs(logprobs, text, top, completionTokens, what) {
  assert.ok(logprobs && Array.isArray(logprobs.content), what + ': no logprobs.content');
  const content = logprobs.content;
  assert.equal(content.map((e) => surface(e.token)).join(''), text, what + ': the tokens do not spell the reply');
  assert.ok(content.length >= 1 && content.length <= completionTokens,
    what + ': ' + content.length + ' entries for ' + completionTokens + ' completion tokens');
  const lp = (e, where) => {
    assert.ok(Number.isFinite(e.logprob) && e.logprob <= 0, where + ': logprob ' + e.logprob);
    assert.deepEqual(e.bytes, [...Buffer.from(e.token, 'utf8')], where + ': bytes of ' + JSON.stringify(e.token));
    return e.logprob;
  };
  for (const [i, e] of content.entries()) {
    const where = what + ': token ' + i;
    const chosen = lp(e, where);
    assert.equal(e.top_logprobs.length, top, where + ': top_logprobs entries');
    const tops = e.top_logprobs.map((t, k) => lp(t, where + ', top ' + k));
    for (let k = 1; k < tops.length; ++k) assert.ok(tops[k - 1] >= tops[k], where + ': top_logprobs not sorted');
    const same = e.top_logprobs.find((t) => t.token === e.token);
    if (same) assert.equal(same.logprob, chosen, where + ': the token taken has another logprob among the top');
    else if (top > 0) assert.ok(chosen <= tops[top - 1], where + ': a token above the top ones is not among them');
  }
}

// Checks a completion choice's logprobs (`logprobs: top`): tokens spelling the text, finite logprobs <= 0, each
// position's top_logprobs (up to top + 1 entries) holding the token taken with its own logprob, and text_offset
// the characters before each token.
function checkCompletionLogprobs(logprobs, text, top, what) {
  assert.ok(logprobs && Array.isArray(logprobs.tokens), what + ': no logprobs.tokens');
  const { tokens, token_logprobs: values, top_logprobs: tops, text_offset: offsets } = logprobs;
  assert.equal(tokens.map(surface).join(''), text, what + ': the tokens do not spell the text');
  assert.equal(values.length, tokens.length, what + ': token_logprobs');
  assert.equal(tops.length, tokens.length, what + ': top_logprobs');
  assert.equal(offsets.length, tokens.length, what + ': text_offset');
  let at = 0;
  for (const [i, token] of tokens.entries()) {
    const where = what + ': token ' + i;
    assert.ok(Number.isFinite(values[i]) && values[i] <= 0, where + ': logprob ' + values[i]);
    assert.equal(offsets[i], at, where + ': text_offset');
    at += [...surface(token)].length;
    const entries = Object.entries(tops[i]);
    assert.ok(entries.length >= Math.min(1, top) && entries.length <= top + 1, where + ': ' + entries.length + ' top entries');
    for (const [, v] of entries) assert.ok(Number.isFinite(v) && v <= 0, where + ': top logprob ' + v);
    assert.equal(tops[i][token], values[i], where + ': the token taken is not among its top_logprobs');
  }
}

// Expects `promise` to reject with the library's class `Class` and HTTP status `status`; returns the error.
async function expectError(promise, Class, status, { mentions, param } = {}) {
  let err = null;
  try {
    await promise;
  } catch (e) {
    err = e;
  }
  assert.ok(err, 'the request succeeded; expected ' + Class.name + ' (' + status + ')');
  assert.ok(err instanceof Class,
    'expected ' + Class.name + ', got ' + (err && err.constructor && err.constructor.name) + ': ' + err.message);
  assert.equal(err.status, status, 'status');
  assert.ok(err.error && typeof err.error.message === 'string' && err.error.message.length > 0,
    'the error body has no {"error":{"message"}}: ' + JSON.stringify(err.error));
  assert.equal(err.type, 'invalid_request_error', 'error type');
  for (const word of [].concat(mentions || []))
    assert.ok(err.message.includes(word), 'the message does not name ' + JSON.stringify(word) + ': ' + err.message);
  if (param !== undefined) assert.equal(err.param, param, 'error param');
  return err;
}

async function run() {
  // ---------------- models ----------------
  let listed = [];
  await check('models.list(): every served model, in -m order, with its kind', async () => {
    const page = await client.models.list();
    assert.equal(page.object, 'list');
    for await (const m of page) listed.push(m);
    assert.deepEqual(listed.map((m) => m.id), cfg.models.map((m) => m.id), 'model ids');
    for (const [i, want] of cfg.models.entries()) {
      const m = listed[i];
      assert.equal(m.object, 'model', m.id + ': object');
      assert.equal(m.kind, want.kind, m.id + ': kind');
      assert.equal(m.owned_by, 'heptapod', m.id + ': owned_by');
      assert.ok(Number.isInteger(m.created) && m.created > 0, m.id + ': created ' + m.created);
      assert.ok(m.context_length === null || (Number.isInteger(m.context_length) && m.context_length > 0),
        m.id + ': context_length ' + m.context_length);
      if (want.labels) assert.deepEqual(m.labels, want.labels, m.id + ': labels');
      if (want.context_length !== undefined) assert.equal(m.context_length, want.context_length, m.id + ': context_length');
      if (want.chat !== undefined) assert.equal(m.chat, want.chat, m.id + ': chat');
    }
  });
  await check('models.retrieve(id): the same object as in the list', async () => {
    for (const want of cfg.models) {
      const m = await client.models.retrieve(want.id);
      const inList = listed.find((x) => x.id === want.id);
      assert.ok(inList, want.id + ' was not listed');
      assert.deepEqual({ ...m }, { ...inList }, want.id);
    }
  });
  await check('models.retrieve(unknown) -> NotFoundError (404)', async () => {
    await expectError(client.models.retrieve('no-such-model'), OpenAI.NotFoundError, 404);
  });

  // ---------------- completions ----------------
  let mainReply = null;
  await check('completions.create: the text the CLI prints for the same prompt and seed', async () => {
    const r = await client.completions.create(sampling(main));
    const [c] = checkCompletion(r, 1);
    assert.equal(main.prompt + c.text, main.reference, 'prompt + choice text vs `heptapod generate`');
    if (c.finish_reason === 'length') assert.equal(r.usage.completion_tokens, MAX, 'length: completion_tokens');
    else assert.ok(r.usage.completion_tokens <= MAX, 'completion_tokens above max_tokens');
    mainReply = r;
  });
  await check('completions.create: the same seed twice gives the same reply', async () => {
    const again = await client.completions.create(sampling(main));
    assert.ok(mainReply, 'no first reply');
    assert.equal(again.choices[0].text, mainReply.choices[0].text);
    assert.equal(again.choices[0].finish_reason, mainReply.choices[0].finish_reason);
    assert.deepEqual({ ...again.usage }, { ...mainReply.usage });
    assert.notEqual(again.id, mainReply.id, 'two replies with the same id');
  });
  await check('completions.create echo: true: the text begins with the prompt', async () => {
    const r = await client.completions.create(sampling(main, { echo: true }));
    const [c] = checkCompletion(r, 1);
    assert.equal(c.text, main.reference);
  });
  await check('completions.create stop: the text ends before the stop string', async () => {
    const text = newText(main);
    // A stop string that first occurs after the start of the new text: two characters from its middle.
    let at = -1;
    let stop = '';
    for (let k = Math.floor(text.length / 2); k >= 1 && at < 1; --k) {
      stop = text.slice(k, k + 2);
      at = stop.length === 2 && stop.trim() === stop ? text.indexOf(stop) : -1;
    }
    assert.ok(at >= 1, 'no usable stop string in ' + JSON.stringify(text));
    const r = await client.completions.create(sampling(main, { stop: [stop] }));
    const [c] = checkCompletion(r, 1);
    assert.equal(c.text, text.slice(0, at), 'stop ' + JSON.stringify(stop));
    assert.equal(c.finish_reason, 'stop');
  });

  await check('completions.create stream: true: the pieces add up to the non-streamed text', async () => {
    assert.ok(mainReply, 'no non-streamed reply');
    const s = await drain(await client.completions.create(sampling(main, { stream: true })), 1);
    assert.equal(s.texts.get(0) || '', mainReply.choices[0].text);
    assert.equal(s.finish.get(0), mainReply.choices[0].finish_reason);
    assert.equal(s.usage, null, 'a usage event without stream_options.include_usage');
  });
  await check('completions.create stream with include_usage: a last event with the usage', async () => {
    assert.ok(mainReply, 'no non-streamed reply');
    const s = await drain(await client.completions.create(
      sampling(main, { stream: true, stream_options: { include_usage: true } })), 1);
    assert.equal(s.texts.get(0) || '', mainReply.choices[0].text);
    assert.ok(s.usage, 'no usage event');
    assert.deepEqual({ ...s.usage }, { ...mainReply.usage }, 'streamed usage vs non-streamed usage');
  });
  await check('completions stream on the wire: text/event-stream ending with data: [DONE]', async () => {
    // The library stops at [DONE] and hides it; read the raw reply once to see that it is there.
    const response = await client.completions.create(sampling(main, { stream: true })).asResponse();
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') || '', /^text\/event-stream/, 'content-type');
    const body = await response.text();
    assert.ok(body.startsWith('data: '), 'the body does not begin with "data: "');
    assert.ok(body.endsWith('data: [DONE]\n\n'), 'the body does not end with "data: [DONE]\\n\\n": ' +
      JSON.stringify(body.slice(-80)));
  });

  let pairReply = null;
  const pairRequest = (extra = {}) => ({
    model: LM, prompt: cfg.pairPrompts, n: 2, seed: main.seed, temperature: 1, top_p: 1, max_tokens: MAX, ...extra,
  });
  await check('completions.create n: 2 with 2 prompts: 4 choices, indices 0..3', async () => {
    pairReply = await client.completions.create(pairRequest());
    checkCompletion(pairReply, 4);
  });
  await check('completions.create n: 2 with 2 prompts, again: the same 4 texts', async () => {
    assert.ok(pairReply, 'no first reply');
    const again = checkCompletion(await client.completions.create(pairRequest()), 4);
    const first = [...pairReply.choices].sort((a, b) => a.index - b.index);
    assert.deepEqual(again.map((c) => c.text), first.map((c) => c.text));
  });
  await check('completions.create n: 2 with 2 prompts, streamed: each choice adds up to its text', async () => {
    assert.ok(pairReply, 'no non-streamed reply');
    const s = await drain(await client.completions.create(pairRequest({ stream: true })), 4);
    for (const c of pairReply.choices) {
      assert.equal(s.texts.get(c.index) || '', c.text, 'choice ' + c.index);
      assert.equal(s.finish.get(c.index), c.finish_reason, 'choice ' + c.index + ': finish_reason');
    }
  });

  await check('completions.create: ' + cfg.completions.length + ' seeds alone, then all at once: the same texts', async () => {
    const alone = [];
    for (const c of cfg.completions) alone.push(await client.completions.create(sampling(c)));
    const together = await Promise.all(cfg.completions.map((c) => client.completions.create(sampling(c))));
    for (const [i, c] of cfg.completions.entries()) {
      const what = 'prompt ' + JSON.stringify(c.prompt) + ' seed ' + c.seed;
      assert.equal(c.prompt + alone[i].choices[0].text, c.reference, what + ' alone vs `heptapod generate`');
      assert.equal(together[i].choices[0].text, alone[i].choices[0].text, what + ': concurrent vs alone');
      assert.equal(together[i].choices[0].finish_reason, alone[i].choices[0].finish_reason, what + ': finish_reason');
    }
  });

  // ---------------- chat completions ----------------
  const chat = cfg.chat;
  let chatReply = null;
  await check('chat.completions.create: the reply `heptapod chat --messages` prints for the same seed', async () => {
    const r = await client.chat.completions.create(chatRequest());
    const [c] = checkChatCompletion(r, 1);
    assert.equal(c.message.content, chat.reference, 'the reply vs `heptapod chat --messages`');
    assert.equal(c.logprobs, null, 'logprobs without asking');
    if (c.finish_reason === 'length') assert.equal(r.usage.completion_tokens, MAX, 'length: completion_tokens');
    chatReply = r;
  });
  await check('chat.completions.create: usage.prompt_tokens counts the tokens of `heptapod chat --render`', async () => {
    assert.ok(chatReply, 'no chat reply');
    // The rendered prompt as a completion's prompt, tokenized as the server tokenizes any prompt. The template
    // writes no start token, so the chat's prompt tokens are exactly these (chat_prompt.h: a start token the
    // rendering begins with would be the one generation feeds first, not counted twice).
    const r = await client.completions.create({ model: chat.model, prompt: chat.rendered, max_tokens: 1 });
    assert.equal(chatReply.usage.prompt_tokens, r.usage.prompt_tokens,
      'chat prompt_tokens vs the completion of ' + JSON.stringify(chat.rendered));
  });
  await check('chat.completions.create: the same seed twice gives the same reply', async () => {
    assert.ok(chatReply, 'no first reply');
    const again = await client.chat.completions.create(chatRequest());
    assert.equal(again.choices[0].message.content, chatReply.choices[0].message.content);
    assert.equal(again.choices[0].finish_reason, chatReply.choices[0].finish_reason);
    assert.deepEqual({ ...again.usage }, { ...chatReply.usage });
    assert.notEqual(again.id, chatReply.id, 'two replies with the same id');
  });
  await check('chat.completions.create stream: role first, the deltas add up to the reply, no usage', async () => {
    assert.ok(chatReply, 'no non-streamed reply');
    const s = await drainChat(await client.chat.completions.create(chatRequest({ stream: true })), 1);
    assert.equal(s.texts.get(0), chatReply.choices[0].message.content);
    assert.equal(s.finish.get(0), chatReply.choices[0].finish_reason);
    assert.equal(s.usage, null, 'a usage chunk without stream_options.include_usage');
  });
  await check('chat.completions.create stream with include_usage: a last chunk with the usage', async () => {
    assert.ok(chatReply, 'no non-streamed reply');
    const s = await drainChat(await client.chat.completions.create(
      chatRequest({ stream: true, stream_options: { include_usage: true } })), 1);
    assert.equal(s.texts.get(0), chatReply.choices[0].message.content);
    assert.ok(s.usage, 'no usage chunk');
    assert.deepEqual({ ...s.usage }, { ...chatReply.usage }, 'streamed usage vs non-streamed usage');
  });
  await check('chat stream on the wire: text/event-stream ending with data: [DONE]', async () => {
    const response = await client.chat.completions.create(chatRequest({ stream: true })).asResponse();
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') || '', /^text\/event-stream/, 'content-type');
    const body = await response.text();
    assert.ok(body.startsWith('data: '), 'the body does not begin with "data: "');
    assert.ok(body.endsWith('data: [DONE]\n\n'), 'the body does not end with "data: [DONE]\\n\\n"');
  });
  let chatPair = null;
  await check('chat.completions.create n: 2: two choices, the same twice', async () => {
    chatPair = checkChatCompletion(await client.chat.completions.create(chatRequest({ n: 2 })), 2);
    const again = checkChatCompletion(await client.chat.completions.create(chatRequest({ n: 2 })), 2);
    assert.deepEqual(again.map((c) => c.message.content), chatPair.map((c) => c.message.content));
  });
  await check('chat.completions.create n: 2, streamed with include_usage: each choice adds up to its reply', async () => {
    assert.ok(chatPair, 'no non-streamed reply');
    const s = await drainChat(await client.chat.completions.create(
      chatRequest({ n: 2, stream: true, stream_options: { include_usage: true } })), 2);
    for (const c of chatPair) {
      assert.equal(s.texts.get(c.index), c.message.content, 'choice ' + c.index);
      assert.equal(s.finish.get(c.index), c.finish_reason, 'choice ' + c.index + ': finish_reason');
    }
    checkUsage(s.usage, 'streamed usage');
  });
  await check('chat.completions.create stop: the reply ends before the stop string, streamed or not', async () => {
    const text = chat.reference;
    let at = -1;
    let stop = '';
    for (let k = Math.floor(text.length / 2); k >= 1 && at < 1; --k) {
      stop = text.slice(k, k + 2);
      at = stop.length === 2 && stop.trim() === stop ? text.indexOf(stop) : -1;
    }
    assert.ok(at >= 1, 'no usable stop string in ' + JSON.stringify(text));
    const [c] = checkChatCompletion(await client.chat.completions.create(chatRequest({ stop: [stop] })), 1);
    assert.equal(c.message.content, text.slice(0, at), 'stop ' + JSON.stringify(stop));
    assert.equal(c.finish_reason, 'stop');
    const s = await drainChat(await client.chat.completions.create(chatRequest({ stop, stream: true })), 1);
    assert.equal(s.texts.get(0), text.slice(0, at), 'streamed, stop ' + JSON.stringify(stop));
    assert.equal(s.finish.get(0), 'stop');
  });
  const user = { role: 'user', content: 'fifty-eight' };
  for (const [what, messages, mentions] of [
    ['a message without role', [{ content: 'fifty-eight' }], 'messages[0].role'],
    ['a message without content', [{ role: 'user' }], 'messages[0].content'],
    ['an unknown role', [user, { role: 'robot', content: 'one' }], ['messages[1].role', 'robot']],
    ['a conversation longer than the context', Array(40).fill(user), 'context'],
  ]) {
    await check('chat: ' + what + ' -> BadRequestError (400) naming messages', async () => {
      await expectError(client.chat.completions.create(chatRequest({ messages })), OpenAI.BadRequestError, 400,
        { mentions, param: 'messages' });
    });
  }
  let chatLogprobs = null;
  await check('chat.completions.create logprobs: true, top_logprobs: 3: the same reply, each token scored', async () => {
    assert.ok(chatReply, 'no chat reply');
    const r = await client.chat.completions.create(chatRequest({ logprobs: true, top_logprobs: 3 }));
    const [c] = checkChatCompletion(r, 1);
    assert.equal(c.message.content, chatReply.choices[0].message.content, 'logprobs changed the reply');
    checkChatLogprobs(c.logprobs, c.message.content, 3, r.usage.completion_tokens, 'logprobs');
    chatLogprobs = c.logprobs;
  });
  await check('chat.completions.create logprobs streamed: the chunks\' logprobs add up to the whole reply\'s', async () => {
    assert.ok(chatLogprobs, 'no non-streamed logprobs');
    const s = await drainChat(await client.chat.completions.create(
      chatRequest({ logprobs: true, top_logprobs: 3, stream: true })), 1);
    assert.equal(s.texts.get(0), chatReply.choices[0].message.content);
    assert.deepEqual(s.logprobs.get(0), chatLogprobs.content);
  });
  await check('chat.completions.create logprobs with n: 2 and a stop string: each choice scored', async () => {
    const r = await client.chat.completions.create(chatRequest({ n: 2, logprobs: true, stop: ['ou'] }));
    for (const c of checkChatCompletion(r, 2))
      checkChatLogprobs(c.logprobs, c.message.content, 0, MAX, 'choice ' + c.index);
  });
  await check('completions.create logprobs: 3: the same text, each token scored, streamed alike', async () => {
    assert.ok(mainReply, 'no completion reply');
    const r = await client.completions.create(sampling(main, { logprobs: 3 }));
    const [c] = checkCompletion(r, 1, true);
    assert.equal(c.text, mainReply.choices[0].text, 'logprobs changed the text');
    checkCompletionLogprobs(c.logprobs, c.text, 3, 'logprobs');
    const s = await client.completions.create(sampling(main, { logprobs: 3, stream: true }));
    const joined = { tokens: [], token_logprobs: [], top_logprobs: [], text_offset: [] };
    for await (const ev of s)
      for (const choice of ev.choices)
        if (choice.logprobs) for (const k of Object.keys(joined)) joined[k].push(...choice.logprobs[k]);
    assert.deepEqual(joined, { ...c.logprobs }, 'the streamed logprobs vs the whole');
  });
  await check('completions.create logprobs: 6 -> BadRequestError (400) naming logprobs', async () => {
    await expectError(client.completions.create(sampling(main, { logprobs: 6 })), OpenAI.BadRequestError, 400,
      { mentions: 'logprobs', param: 'logprobs' });
  });
  await check('chat: top_logprobs without logprobs: true -> BadRequestError (400) naming top_logprobs', async () => {
    await expectError(client.chat.completions.create(chatRequest({ top_logprobs: 2 })), OpenAI.BadRequestError, 400,
      { mentions: 'top_logprobs', param: 'top_logprobs' });
  });
  await check('chat: top_logprobs 21 -> BadRequestError (400) naming top_logprobs', async () => {
    await expectError(client.chat.completions.create(chatRequest({ logprobs: true, top_logprobs: 21 })),
      OpenAI.BadRequestError, 400, { mentions: 'top_logprobs', param: 'top_logprobs' });
  });
  await check('chat with a model without a chat template -> BadRequestError (400)', async () => {
    await expectError(client.chat.completions.create(chatRequest({ model: LM })), OpenAI.BadRequestError, 400,
      { mentions: ['chat template', LM] });
  });

  // ---------------- embeddings ----------------
  for (const e of cfg.embeddings) {
    await check('embeddings.create (' + e.model + '): base64 (the default) and float agree with `heptapod embed`', async () => {
      const b64 = await client.embeddings.create({ model: e.model, input: e.input });
      const flt = await client.embeddings.create({ model: e.model, input: e.input, encoding_format: 'float' });
      for (const [what, r] of [['base64', b64], ['float', flt]]) {
        assert.equal(r.object, 'list', what + ': object');
        assert.equal(r.model, e.model, what + ': model');
        assert.equal(r.data.length, e.input.length, what + ': vectors');
        assert.ok(isCount(r.usage.prompt_tokens) && r.usage.prompt_tokens >= e.input.length, what + ': prompt_tokens');
        assert.equal(r.usage.total_tokens, r.usage.prompt_tokens, what + ': total_tokens');
      }
      assert.deepEqual({ ...b64.usage }, { ...flt.usage }, 'usage differs between the two formats');
      for (let i = 0; i < e.input.length; ++i) {
        const a = b64.data[i];
        const b = flt.data[i];
        const ref = e.vectors[i];
        assert.equal(a.object, 'embedding');
        assert.equal(a.index, i, 'base64: index');
        assert.equal(b.index, i, 'float: index');
        assert.ok(Array.isArray(a.embedding), 'base64: the library did not decode it into an array');
        assert.ok(Array.isArray(b.embedding), 'float: not an array');
        assert.equal(a.embedding.length, ref.length, 'base64: width');
        assert.equal(b.embedding.length, ref.length, 'float: width');
        for (let j = 0; j < ref.length; ++j) {
          const want = Math.fround(ref[j]);
          if (a.embedding[j] !== want || Math.fround(b.embedding[j]) !== want)
            assert.fail('input ' + i + ', component ' + j + ': base64 ' + a.embedding[j] + ', float ' +
              b.embedding[j] + ', `heptapod embed` ' + ref[j]);
        }
      }
    });
  }
  await check('embeddings on the wire: the default request asks base64 and gets strings', async () => {
    // The library asks encoding_format "base64" unless told otherwise and decodes the reply itself; read one raw
    // reply to see that the server sent base64 strings (the checks above would pass with floats as well).
    const e = cfg.embeddings[0];
    const response = await client.embeddings.create({ model: e.model, input: e.input }).asResponse();
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') || '', /^application\/json/, 'content-type');
    const body = JSON.parse(await response.text());
    for (const [i, d] of body.data.entries()) {
      assert.equal(typeof d.embedding, 'string', 'vector ' + i + ' is not a base64 string');
      const bytes = Buffer.from(d.embedding, 'base64');
      assert.equal(d.embedding, bytes.toString('base64'), 'vector ' + i + ' is not canonical base64');
      assert.equal(bytes.length, 4 * e.vectors[i].length, 'vector ' + i + ': bytes');
      for (let j = 0; j < e.vectors[i].length; ++j)
        assert.equal(bytes.readFloatLE(4 * j), Math.fround(e.vectors[i][j]), 'vector ' + i + ', component ' + j);
    }
  });
  await check('embeddings.create: one string, and dimensions = width', async () => {
    const e = cfg.embeddings[0];
    const width = e.vectors[0].length;
    const r = await client.embeddings.create({
      model: e.model, input: e.input[0], encoding_format: 'float', dimensions: width,
    });
    assert.equal(r.data.length, 1);
    assert.deepEqual(r.data[0].embedding.map(Math.fround), e.vectors[0].map(Math.fround));
  });

  // ---------------- errors, as the library's exception classes ----------------
  await check('temperature 5 -> BadRequestError (400) naming temperature', async () => {
    await expectError(client.completions.create(sampling(main, { temperature: 5 })), OpenAI.BadRequestError, 400,
      { mentions: 'temperature', param: 'temperature' });
  });
  await check('temperature 5 with stream: true -> BadRequestError before any event', async () => {
    await expectError(client.completions.create(sampling(main, { temperature: 5, stream: true })),
      OpenAI.BadRequestError, 400, { mentions: 'temperature', param: 'temperature' });
  });
  await check('unknown model -> NotFoundError (404), code model_not_found', async () => {
    const err = await expectError(client.completions.create(sampling(main, { model: 'no-such-model' })),
      OpenAI.NotFoundError, 404, { mentions: 'no-such-model' });
    assert.equal(err.code, 'model_not_found');
    await expectError(client.embeddings.create({ model: 'no-such-model', input: 'one' }), OpenAI.NotFoundError, 404);
  });
  for (const [field, value] of [['presence_penalty', 1], ['frequency_penalty', 0.5], ['best_of', 3]]) {
    await check(field + ' ' + value + ' (unsupported) -> BadRequestError (400) naming ' + field, async () => {
      await expectError(client.completions.create(sampling(main, { [field]: value })), OpenAI.BadRequestError, 400,
        { mentions: field, param: field });
    });
  }
  await check('an unknown field -> BadRequestError (400) naming it', async () => {
    await expectError(client.completions.create(sampling(main, { frobnicate: true })), OpenAI.BadRequestError, 400,
      { mentions: 'frobnicate' });
  });
  await check('prompt + max_tokens beyond the context -> BadRequestError (400)', async () => {
    const err = await expectError(client.completions.create(sampling(main, { max_tokens: 200 })),
      OpenAI.BadRequestError, 400);
    assert.ok(/max_tokens|prompt/.test(err.message), 'the message names neither max_tokens nor prompt: ' + err.message);
  });
  await check('neutral values of the unsupported fields are accepted', async () => {
    const r = await client.completions.create(sampling(main, {
      logprobs: null, best_of: 1, frequency_penalty: 0, presence_penalty: 0, logit_bias: {}, suffix: null,
      user: 'openai-client-test',
    }));
    assert.equal(r.choices[0].text, newText(main));
  });

  // ---------------- API keys ----------------
  if (cfg.keyed) {
    const k = cfg.keyed;
    await check('with --api-keys: a wrong key -> PermissionDeniedError (403)', async () => {
      const wrong = makeClient(k.url, k.key + '-wrong');
      await expectError(wrong.completions.create(sampling(main, { model: k.model })), OpenAI.PermissionDeniedError, 403);
      await expectError(wrong.embeddings.create({ model: k.embedding, input: 'one' }), OpenAI.PermissionDeniedError, 403);
    });
    await check('with --api-keys: the right key is served', async () => {
      const right = makeClient(k.url, k.key);
      const r = await right.completions.create(sampling(main, { model: k.model }));
      assert.equal(main.prompt + r.choices[0].text, main.reference);
      const v = await right.embeddings.create({ model: k.embedding, input: cfg.embeddings[0].input });
      assert.equal(v.data.length, cfg.embeddings[0].input.length);
    });
  } else {
    console.log('# skipped: the --api-keys checks (no keyed server in the configuration)');
  }
}

run().then(
  () => {
    console.log('# ' + passes + ' passed, ' + failures + ' failed');
    process.exit(failures ? 1 : 0);
  },
  (e) => {
    console.log('not ok - the test itself failed: ' + ((e && e.stack) || e));
    process.exit(1);
  },
);
