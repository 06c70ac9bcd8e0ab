// Reference renderer (b) for the chat-template tests: @huggingface/jinja (a JavaScript re-implementation of the
// Jinja subset chat templates use; it always lexes with trim_blocks and lstrip_blocks), fetched and hash-checked
// by fetch_hf_jinja.sh.
// Usage: node render_hf_jinja.js JINJA_PACKAGE_DIR TEMPLATES_JSON CONVERSATIONS_JSON NPM_DATA_DIR OUT_JSON
// Writes the same {"TEMPLATE|CONVERSATION|AGP": {"text"} or {"error"}} map as render_jinja2.py. strftime_now
// reads the clock, so the clock is pinned to HEPTAPOD_CHAT_TIME (run.sh sets TZ=UTC).
"use strict";
const fs = require("fs");
const path = require("path");

const [packageDir, manifestPath, conversationsPath, npmDir, outPath] = process.argv.slice(2);
const fixedMs = Number(process.env.HEPTAPOD_CHAT_TIME) * 1000;
const RealDate = Date;
global.Date = class extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(fixedMs);
    else super(...args);
  }
  static now() {
    return fixedMs;
  }
};
const { Template } = require(path.join(packageDir, "dist", "index.cjs"));

const here = path.dirname(path.resolve(manifestPath));
const conversations = JSON.parse(fs.readFileSync(conversationsPath, "utf8"));
const results = {};
for (const entry of JSON.parse(fs.readFileSync(manifestPath, "utf8"))) {
  let source;
  if (entry.file) {
    source = fs.readFileSync(path.join(here, entry.file), "utf8");
  } else {
    const config = path.join(npmDir, "node_modules", entry.npm_package, "models", "tokenizer_config.json");
    if (!fs.existsSync(config)) continue;
    source = JSON.parse(fs.readFileSync(config, "utf8")).chat_template;
  }
  let template = null;
  let parseError = null;
  try {
    template = new Template(source);
  } catch (e) {
    parseError = String(e && e.message ? e.message : e);
  }
  for (const conversation of conversations) {
    for (const agp of [false, true]) {
      const key = `${entry.name}|${conversation.id}|${agp}`;
      if (!template) {
        results[key] = { error: `parse: ${parseError}` };
        continue;
      }
      const variables = { ...entry.special_tokens, messages: conversation.messages, add_generation_prompt: agp };
      if (conversation.tools) variables.tools = conversation.tools;
      Object.assign(variables, conversation.extra || {});
      try {
        results[key] = { text: template.render(variables) };
      } catch (e) {
        results[key] = { error: String(e && e.message ? e.message : e) };
      }
    }
  }
}
fs.writeFileSync(outPath, JSON.stringify(results, null, 1));
