#!/usr/bin/python3
"""Reference renderer (a) for the chat-template tests: Debian's python3-jinja2 set up as transformers'
chat_template_utils.py sets it up (ImmutableSandboxedEnvironment with trim_blocks, lstrip_blocks, the loopcontrols
extension and a {% generation %} tag that renders its body; globals raise_exception and strftime_now; a tojson
filter that is json.dumps(x, ensure_ascii=False, indent, separators, sort_keys)).

Usage: render_jinja2.py TEMPLATES_JSON CONVERSATIONS_JSON NPM_DATA_DIR OUT_JSON
Renders every template of the manifest with every conversation, add_generation_prompt false and true, and writes
{"TEMPLATE|CONVERSATION|AGP": {"text": ...} or {"error": ...}}. strftime_now formats HEPTAPOD_CHAT_TIME (seconds
since 1970) as local time (run.sh sets TZ=UTC).
"""
import json
import os
import sys
from datetime import datetime

from jinja2 import nodes
from jinja2.exceptions import TemplateError
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment


class GenerationTag(Extension):
    """transformers' AssistantTracker without the mask bookkeeping: {% generation %} renders its body."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return nodes.CallBlock(self.call_method("_render_body"), [], [], body).set_lineno(lineno)

    def _render_body(self, caller):
        return caller()


def make_environment(now):
    def raise_exception(message):
        raise TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(format):
        return datetime.fromtimestamp(now).strftime(format)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[GenerationTag, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def load_templates(manifest_path, npm_dir):
    """(name, source, special tokens) for each template of the manifest (see templates.json)."""
    here = os.path.dirname(os.path.abspath(manifest_path))
    out = []
    for entry in json.load(open(manifest_path, encoding="utf-8")):
        if "file" in entry:
            source = open(os.path.join(here, entry["file"]), encoding="utf-8", newline="").read()
        else:
            config_path = os.path.join(npm_dir, "node_modules", entry["npm_package"], "models", "tokenizer_config.json")
            if not os.path.exists(config_path):
                continue  # npm was unreachable: run.sh says so
            source = json.load(open(config_path, encoding="utf-8"))["chat_template"]
        out.append((entry["name"], source, entry["special_tokens"]))
    return out


def variables(conversation, special_tokens, add_generation_prompt):
    v = dict(special_tokens)
    v["messages"] = conversation["messages"]
    v["add_generation_prompt"] = add_generation_prompt
    if "tools" in conversation:
        v["tools"] = conversation["tools"]
    v.update(conversation.get("extra", {}))
    return v


def main():
    manifest, conversations_path, npm_dir, out_path = sys.argv[1:5]
    env = make_environment(int(os.environ["HEPTAPOD_CHAT_TIME"]))
    conversations = json.load(open(conversations_path, encoding="utf-8"))
    results = {}
    for name, source, special_tokens in load_templates(manifest, npm_dir):
        template = env.from_string(source)
        for conversation in conversations:
            for agp in (False, True):
                key = "%s|%s|%s" % (name, conversation["id"], "true" if agp else "false")
                try:
                    results[key] = {"text": template.render(**variables(conversation, special_tokens, agp))}
                except Exception as e:  # the template raised, or a type error: the engine must fail too
                    results[key] = {"error": "%s: %s" % (type(e).__name__, e)}
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(results, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
