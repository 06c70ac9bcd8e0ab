// The chat-template engine (data/chat_template.h, data/jinja_*.h) construct by construct. Every expected string is
// written by hand from jinja2's documented behaviour (and Python's, for the values templates compute with) under
// transformers' settings: trim_blocks, lstrip_blocks, loop controls, the generation tag, a json.dumps tojson.
#include <gtest/gtest.h>

#include <string>

#include "heptapod/core/error.h"
#include "heptapod/data/chat_template.h"

namespace heptapod {
namespace {

using json = nlohmann::ordered_json;

std::string render(const std::string& source, const json& variables = json::object()) {
  return ChatTemplate(source, "test").render(variables, 0);
}

// The Error message of parsing (and rendering) `source`, or "" when it renders.
std::string error_of(const std::string& source, const json& variables = json::object()) {
  try {
    render(source, variables);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(JinjaLiterals, PrintAsPythonDoes) {
  EXPECT_EQ(render("{{ 'a' }}{{ \"b\" }}{{ 1 }}{{ 1.0 }}{{ 2.5 }}{{ 1e16 }}{{ 1e-5 }}"), "ab11.02.51e+161e-05");
  EXPECT_EQ(render("{{ true }} {{ True }} {{ false }} {{ none }} {{ None }}"), "True True False None None");
  EXPECT_EQ(render("{{ [1, 'a', \"b'c\", none, true, 2.5] }}"), "[1, 'a', \"b'c\", None, True, 2.5]");
  EXPECT_EQ(render("{{ {'a': (1, 2), 'b': []} }}|{{ (1,) }}|{{ () }}"), "{'a': (1, 2), 'b': []}|(1,)|()");
  EXPECT_EQ(render("{{ 'a\\nb\\t\\'\\u00e9\\x41' }}"), "a\nb\t'\xC3\xA9" "A");
  EXPECT_EQ(render("{{ ['a\\nb'] }}"), "['a\\nb']");
  EXPECT_EQ(render("{{ 'a' 'b' }}{{ 1_000 }}"), "ab1000");
}

TEST(JinjaOperators, Arithmetic) {
  EXPECT_EQ(render("{{ 1 + 2 }} {{ 7 - 10 }} {{ 3 * 4 }} {{ 10 / 4 }} {{ 10 / 5 }}"), "3 -3 12 2.5 2.0");
  EXPECT_EQ(render("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 // -2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 % -3 }}"), "3 -4 -4 1 2 -2");
  EXPECT_EQ(render("{{ 2 ** 10 }} {{ 2 ** -1 }} {{ 2 ** 3 ** 2 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }}"), "1024 0.5 64 3.0 0.5");
  EXPECT_EQ(render("{{ 'ab' * 2 }} {{ 2 * 'ab' }} {{ [1] * 3 }} {{ [1] + [2] }} {{ 'a' + 'b' }}"),
            "abab abab [1, 1, 1] [1, 2] ab");
  EXPECT_EQ(render("{{ -3 }} {{ +3 }} {{ - 2.5 }} {{ 1 + 2 * 3 }} {{ (1 + 2) * 3 }} {{ true + 1 }}"),
            "-3 3 -2.5 7 9 2");
  EXPECT_EQ(render("{{ 'a' ~ 1 ~ none ~ true ~ x }}"), "a1NoneTrue");
}

TEST(JinjaOperators, ComparisonsAndLogic) {
  EXPECT_EQ(render("{{ 1 == 1.0 }} {{ 1 != 2 }} {{ 'a' < 'b' }} {{ 2 >= 2 }} {{ 1 < 2 < 3 }} {{ 1 < 3 < 2 }}"),
            "True True True True True False");
  EXPECT_EQ(render("{{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in {'k': 1} }} {{ 3 not in [1] }} {{ not 'x' in 'y' }}"),
            "True True True True True");
  EXPECT_EQ(render("{{ 0 or 'x' }} {{ 1 and 'y' }} {{ '' and 1 }} {{ not [] }} {{ (1, 2) == [1, 2] }}"),
            "x y  True False");
  EXPECT_EQ(render("{{ 'y' if 1 > 2 else 'n' }}|{{ 'y' if false }}|{{ 'a' if true else 'b' if true else 'c' }}"),
            "n||a");
}

TEST(JinjaAccess, AttributesItemsSlices) {
  const json vars = {{"m", {{"role", "user"}, {"content", "héllo"}}}, {"xs", {1, 2, 3, 4}}};
  EXPECT_EQ(render("{{ m.role }} {{ m['content'] }} {{ m.missing }}|{{ xs[0] }} {{ xs[-1] }} {{ xs[9] }}|", vars),
            "user héllo |1 4 |");
  EXPECT_EQ(render("{{ xs[1:] }} {{ xs[:-1] }} {{ xs[::-1] }} {{ xs[::2] }} {{ xs[-2:] }} {{ xs[5:] }}", vars),
            "[2, 3, 4] [1, 2, 3] [4, 3, 2, 1] [1, 3] [3, 4] []");
  EXPECT_EQ(render("{{ m.content[1] }} {{ m.content[1:3] }} {{ m.content[::-1] }} {{ m.content|length }}", vars),
            "é él olléh 5");
  EXPECT_EQ(render("{{ m.get('role') }} {{ m.get('x', 'd') }} {{ m.get('x') }} {{ m.keys()|list }} {{ m.values()|list }}", vars),
            "user d None ['role', 'content'] ['user', 'héllo']");
}

TEST(JinjaStatements, IfElifElse) {
  const std::string t = "{% if x == 1 %}one{% elif x == 2 %}two{% else %}many{% endif %}";
  EXPECT_EQ(render(t, {{"x", 1}}), "one");
  EXPECT_EQ(render(t, {{"x", 2}}), "two");
  EXPECT_EQ(render(t, {{"x", 3}}), "many");
  EXPECT_EQ(render("{% if true %}{% set y = 3 %}{% endif %}{{ y }}"), "3");  // if opens no scope
}

TEST(JinjaStatements, ForLoops) {
  EXPECT_EQ(render("{% for x in [3, 4, 5] %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}"
                   "{{ loop.first }}{{ loop.last }}{{ loop.length }};{% endfor %}"),
            "1032TrueFalse3;2121FalseFalse3;3210FalseTrue3;");
  EXPECT_EQ(render("{% for x in [1, 2] %}{{ loop.previtem }}>{{ x }}>{{ loop.nextitem }},{% endfor %}"), ">1>2,1>2>,");
  EXPECT_EQ(render("{% for x in [] %}a{% else %}empty{% endfor %}"), "empty");
  EXPECT_EQ(render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", {{"d", {{"b", 1}, {"a", 2}}}}), "b=1;a=2;");
  EXPECT_EQ(render("{% for k in d %}{{ k }}{% endfor %}{% for c in 'hé' %}[{{ c }}]{% endfor %}", {{"d", {{"z", 1}, {"y", 2}}}}),
            "zy[h][é]");
  EXPECT_EQ(render("{% for x in range(10) if x is odd %}{{ x }}{{ loop.index }}{{ loop.length }},{% endfor %}"),
            "115,325,535,745,955,");
  EXPECT_EQ(render("{% for x in range(5) %}{% if x == 1 %}{% continue %}{% endif %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %}"),
            "02");
  // Each iteration has its own scope: a set inside does not leak out, nor into the next iteration.
  EXPECT_EQ(render("{% set x = 0 %}{% for i in [1, 2] %}[{{ x }}]{% set x = i %}({{ x }}){% endfor %}{{ x }}"),
            "[0](1)[0](2)0");
  EXPECT_EQ(render("{% for a, b in [(1, 2), [3, 4]] %}{{ a + b }}{% endfor %}"), "37");
  EXPECT_EQ(render("{% for i in [1, 2] %}{% for j in 'ab' %}{{ loop.index }}{{ j }}{% endfor %}{{ loop.index }}{% endfor %}"),
            "1a2b11a2b2");
}

TEST(JinjaStatements, SetNamespaceBlockSet) {
  EXPECT_EQ(render("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t = 1, 2 %}{{ t }}"), "12(1, 2)");
  EXPECT_EQ(render("{% set ns = namespace(found=false, n=0) %}{% for x in [1, 2, 3] %}{% set ns.n = ns.n + x %}"
                   "{% if x == 2 %}{% set ns.found = true %}{% endif %}{% endfor %}{{ ns.found }} {{ ns.n }}"),
            "True 6");
  EXPECT_EQ(render("{% set ns = namespace(last=messages|length - 1) %}{{ ns.last }}", {{"messages", {1, 2, 3}}}), "2");
  EXPECT_EQ(render("{% set block %}a {{ 1 + 1 }}{% endset %}[{{ block }}]"), "[a 2]");
  EXPECT_EQ(render("{% set messages = messages[1:] %}{{ messages }}", {{"messages", {1, 2}}}), "[2]");
}

TEST(JinjaStatements, MacrosAndGeneration) {
  EXPECT_EQ(render("{% macro greet(name, punct='!') %}hi {{ name }}{{ punct }}{% endmacro %}"
                   "{{ greet('a') }} {{ greet('b', punct='?') }} {{ greet(name='c') }}"),
            "hi a! hi b? hi c!");
  EXPECT_EQ(render("{% generation %}body {{ 1 }}{% endgeneration %}"), "body 1");
  EXPECT_EQ(render("{%- generation %}\n  x\n{%- endgeneration %}"), "  x");
}

TEST(JinjaWhitespace, TrimAndLstripBlocks) {
  // lstrip_blocks takes the indent before a block tag, trim_blocks the newline after it; print tags keep both.
  EXPECT_EQ(render("  {% if true %}\n  x\n  {% endif %}\n  {{ 'y' }}  \n{# c #}\nz"), "  x\n  y  \nz");
  EXPECT_EQ(render("a {%- if true -%} b {%- endif -%} c"), "abc");
  EXPECT_EQ(render("a  {{- 'b' -}}  \n c"), "abc");
  EXPECT_EQ(render("a\n  {#- comment -#}\n  b"), "ab");
  EXPECT_EQ(render("a {% if true %} b{% endif %}"), "a  b");  // not at a line start: kept
  EXPECT_EQ(render("  {%+ if true %}x{% endif +%}\ny"), "  x\ny");
  EXPECT_EQ(render("line\n"), "line");  // one final newline is dropped
  EXPECT_EQ(render("line\n\n"), "line\n");
  EXPECT_EQ(render("a\r\nb\rc"), "a\nb\nc");
  EXPECT_EQ(render("{% for x in [1, 2] %}\n{{ x }}\n{% endfor %}\n"), "1\n2\n");
}

TEST(JinjaFilters, Strings) {
  EXPECT_EQ(render("[{{ '  a b \\n'|trim }}][{{ 'xxaxx'|trim('x') }}]"), "[a b][a]");
  EXPECT_EQ(render("{{ 'aBc'|upper }} {{ 'aBc'|lower }} {{ 'hello wORLD'|capitalize }} {{ 'hello-wORLD x'|title }}"),
            "ABC abc Hello world Hello-World X");
  EXPECT_EQ(render("{{ 'éa'|upper }} {{ 'ÉA'|lower }}"), "ÉA éa");
  EXPECT_EQ(render("{{ 'aaa'|replace('a', 'b') }} {{ 'aaa'|replace('a', 'b', 2) }} {{ 'abc'|reverse }}"), "bbb bba cba");
  EXPECT_EQ(render("{{ 1|string }} {{ [1]|string }} {{ x|string }}|{{ 'a'|safe }}"), "1 [1] |a");
  EXPECT_EQ(render("{{ 'a\\nb\\n\\nc'|indent(2) }}|{{ 'a\\nb'|indent(2, true) }}|{{ 'a\\n\\nb'|indent(1, blank=true) }}"),
            "a\n  b\n\n  c|  a\n  b|a\n \n b");
}

TEST(JinjaFilters, Sequences) {
  const json vars = {{"users", json::array({{{"name", "b"}, {"age", 3}, {"on", true}},
                                            {{"name", "A"}, {"age", 1}, {"on", false}},
                                            {{"name", "c"}, {"age", 2}, {"on", true}}})}};
  EXPECT_EQ(render("{{ [1, 2]|length }} {{ 'héé'|count }} {{ {'a': 1}|length }} {{ x|length }}"), "2 3 1 0");
  EXPECT_EQ(render("{{ [1, 2, 3]|first }} {{ [1, 2, 3]|last }} {{ []|first }}|{{ 'abc'|list }}"), "1 3 |['a', 'b', 'c']");
  EXPECT_EQ(render("{{ [1, 2]|join }} {{ ['a', 'b']|join(', ') }} {{ users|join('/', attribute='name') }}", vars),
            "12 a, b b/A/c");
  EXPECT_EQ(render("{{ users|map(attribute='name')|list }} {{ ['a', 'b']|map('upper')|list }}", vars),
            "['b', 'A', 'c'] ['A', 'B']");
  EXPECT_EQ(render("{{ users|selectattr('on')|map(attribute='name')|join }} {{ users|rejectattr('on')|map(attribute='name')|join }}",
                   vars),
            "bc A");
  EXPECT_EQ(render("{{ users|selectattr('name', 'equalto', 'c')|list|length }} "
                   "{{ [1, 2, 3, 4]|select('even')|list }} {{ [1, 2, 3]|reject('equalto', 2)|list }} "
                   "{{ [1, 2, 3]|select('>', 1)|list }} {{ [0, 1, none]|select|list }}",
                   vars),
            "1 [2, 4] [1, 3] [2, 3] [1]");
  EXPECT_EQ(render("{{ ['b', 'A', 'c']|sort }} {{ ['b', 'A', 'c']|sort(case_sensitive=true) }} {{ [3, 1, 2]|sort(reverse=true) }} "
                   "{{ users|sort(attribute='age')|map(attribute='name')|join }}",
                   vars),
            "['A', 'b', 'c'] ['A', 'b', 'c'] [3, 2, 1] Acb");
  EXPECT_EQ(render("{{ ['a', 'A', 'b', 'a']|unique|list }} {{ [3, 1, 2]|min }} {{ [3, 1, 2]|max }} {{ [1, 2, 3]|sum }} "
                   "{{ [1, 2]|reverse|list }}"),
            "['a', 'b'] 1 3 6 [2, 1]");
  EXPECT_EQ(render("{{ {'a': 1, 'b': [2]}|items|list }}"), "[('a', 1), ('b', [2])]");
}

TEST(JinjaFilters, NumbersAndDefaults) {
  EXPECT_EQ(render("{{ '42'|int }} {{ '42.7'|int }} {{ 'x'|int }} {{ 'x'|int(7) }} {{ 3.9|int }} {{ '2.5'|float }} {{ 'a'|float }}"),
            "42 42 0 7 3 2.5 0.0");
  EXPECT_EQ(render("{{ -3|abs }} {{ 2.5|round }} {{ 3.5|round }} {{ 2.675|round(2) }} {{ 2.1|round(method='ceil') }} {{ 3|round }}"),
            "3 2.0 4.0 2.67 3.0 3");
  EXPECT_EQ(render("{{ x|default('d') }} {{ ''|default('d') }} {{ ''|default('d', true) }} {{ none|d('n', boolean=true) }}"),
            "d  d n");
}

TEST(JinjaFilters, ToJsonAsPythonJsonDumps) {
  const json vars = {{"t", {{"name", "f"}, {"n", 1.5}, {"i", 2}, {"ok", true}, {"z", nullptr}, {"s", "é\"\n\u0001"},
                            {"l", json::array({1, json::object()})}, {"e", json::array()}}}};
  EXPECT_EQ(render("{{ t|tojson }}", vars),
            "{\"name\": \"f\", \"n\": 1.5, \"i\": 2, \"ok\": true, \"z\": null, \"s\": \"é\\\"\\n\\u0001\", "
            "\"l\": [1, {}], \"e\": []}");
  EXPECT_EQ(render("{{ {'b': [1, 2], 'a': {'c': 'x'}}|tojson(indent=2) }}"),
            "{\n  \"b\": [\n    1,\n    2\n  ],\n  \"a\": {\n    \"c\": \"x\"\n  }\n}");
  EXPECT_EQ(render("{{ {'b': 1, 'a': 2}|tojson(sort_keys=true) }} {{ {'a': [1]}|tojson(separators=(',', ':')) }} "
                   "{{ 'é'|tojson(ensure_ascii=true) }} {{ 1.0|tojson }}"),
            "{\"a\": 2, \"b\": 1} {\"a\":[1]} \"\\u00e9\" 1.0");
}

TEST(JinjaTests, TypeAndValueTests) {
  const json vars = {{"s", "x"}, {"n", nullptr}, {"d", json::object()}, {"l", json::array()}, {"f", false}};
  EXPECT_EQ(render("{{ s is defined }}{{ y is defined }}{{ y is undefined }}{{ n is none }}{{ s is not none }}", vars),
            "TrueFalseTrueTrueTrue");
  EXPECT_EQ(render("{{ s is string }}{{ 1 is number }}{{ true is number }}{{ 1 is integer }}{{ true is integer }}"
                   "{{ 1.5 is float }}{{ f is boolean }}{{ f is false }}{{ f is true }}",
                   vars),
            "TrueTrueTrueTrueFalseTrueTrueTrueFalse");
  EXPECT_EQ(render("{{ d is mapping }}{{ l is mapping }}{{ l is iterable }}{{ s is iterable }}{{ 1 is iterable }}"
                   "{{ y is iterable }}{{ s is sequence }}{{ d is sequence }}",
                   vars),
            "TrueFalseTrueTrueFalseTrueTrueTrue");
  EXPECT_EQ(render("{{ 4 is even }}{{ 3 is odd }}{{ 9 is divisibleby 3 }}{{ 9 is divisibleby(2) }}{{ 1 is eq 1 }}"
                   "{{ 1 is equalto(2) }}{{ 1 is ne 2 }}{{ 1 is lt 2 }}{{ 2 is ge 3 }}{{ 1 is in [1] }}{{ 'ab' is lower }}"),
            "TrueTrueTrueFalseTrueFalseTrueTrueFalseTrueTrue");
}

TEST(JinjaMethods, StringMethods) {
  EXPECT_EQ(render("{{ 'abc'.startswith('ab') }} {{ 'abc'.endswith(('x', 'c')) }} {{ 'a,b,,c'.split(',') }} "
                   "{{ ' a  b '.split() }} {{ 'a b c'.split(' ', 1) }} {{ 'a b c'.rsplit(' ', 1) }}"),
            "True True ['a', 'b', '', 'c'] ['a', 'b'] ['a', 'b c'] ['a b', 'c']");
  EXPECT_EQ(render("[{{ '\\n x \\n'.strip() }}][{{ '\\nx\\n'.lstrip('\\n') }}][{{ 'xyx'.rstrip('x') }}][{{ ' é '.strip() }}]"),
            "[x][x\n][xy][é]");
  EXPECT_EQ(render("{{ 'ab'.upper() }} {{ 'AB'.lower() }} {{ \"they're bill\".title() }} {{ 'aBC'.capitalize() }}"),
            "AB ab They'Re Bill Abc");
  EXPECT_EQ(render("{{ 'aXbX'.replace('X', '-') }} {{ 'héllo'.find('l') }} {{ 'abc'.find('z') }} {{ 'aaa'.count('a') }} "
                   "{{ '-'.join(['a', 'b']) }} {{ 'a\\nb'.splitlines() }}"),
            "a-b- 2 -1 3 a-b ['a', 'b']");
  EXPECT_EQ(render("{{ '<think>x</think>\\n\\nyes'.split('</think>')[-1].lstrip('\\n') }}"), "yes");
}

TEST(JinjaGlobals, Functions) {
  EXPECT_EQ(render("{{ range(3)|list }} {{ range(1, 7, 2)|list }} {{ range(3, 0, -1)|list }}"), "[0, 1, 2] [1, 3, 5] [3, 2, 1]");
  EXPECT_EQ(render("{{ dict(a=1, b='x')|tojson }} {{ namespace(a=1) }}"), "{\"a\": 1, \"b\": \"x\"} <Namespace {'a': 1}>");
  // strftime_now formats the given time as local time (the tests run with TZ unset or UTC-like zones; the date of
  // 2 January 2000 12:00 UTC is the same in every zone from UTC-11 to UTC+11).
  ChatTemplate dated("{{ strftime_now('%d %b %Y') }}", "test");
  EXPECT_EQ(dated.render(json::object(), 946814400), "02 Jan 2000");
}

TEST(JinjaUndefined, BehavesAsJinja2sDefaultUndefined) {
  const json vars = {{"d", json::object()}};
  EXPECT_EQ(render("[{{ y }}][{{ y|trim }}][{{ y|length }}][{{ y|list }}][{{ not y }}][{{ y == y }}][{{ 'a' in y }}]"),
            "[][][0][[]][True][True][False]");
  EXPECT_EQ(render("{% for x in y %}{{ x }}{% endfor %}{{ d.missing }}{{ d['missing'] }}", vars), "");
  EXPECT_NE(error_of("{{ d.missing.deeper }}", vars).find("line 1: 'dict object' has no attribute 'missing'"),
            std::string::npos);
  EXPECT_NE(error_of("{{ y + 1 }}").find("line 1: 'y' is undefined"), std::string::npos);
  EXPECT_NE(error_of("{{ y.strip() }}").find("'y' is undefined"), std::string::npos);
}

TEST(JinjaRefusals, UnsupportedConstructsNameLineAndConstruct) {
  EXPECT_EQ(error_of("a\n\n{{ x|wordwrap }}"), "test: line 3: filter 'wordwrap' is not supported");
  EXPECT_EQ(error_of("{% if x is sameas y %}{% endif %}"), "test: line 1: test 'sameas' is not supported");
  EXPECT_EQ(error_of("\n{% include 'x' %}"), "test: line 2: statement 'include' is not supported");
  EXPECT_EQ(error_of("{{ 'a'.zfill(3) }}"), "test: line 1: method 'zfill' is not supported");
  EXPECT_EQ(error_of("{{ lipsum() }}"), "test: line 1: function 'lipsum' is not supported");
  EXPECT_EQ(error_of("{{ messages.append(1) }}"), "test: line 1: method 'append' is not supported");
  EXPECT_EQ(error_of("{% for x in y recursive %}{% endfor %}"), "test: line 1: recursive for loops are not supported");
}

TEST(JinjaRefusals, SyntaxErrorsNameTheLine) {
  EXPECT_EQ(error_of("x\n{% if true %}\nabc"), "test: line 2: 'if' opened on line 2 is never closed (expected 'endif')");
  EXPECT_EQ(error_of("{% for x in y %}{% endif %}"), "test: line 1: unexpected 'endif' inside 'for' (expected 'endfor')");
  EXPECT_EQ(error_of("{% endfor %}"), "test: line 1: unexpected 'endfor'");
  EXPECT_EQ(error_of("\n{{ 1 + }}"), "test: line 2: expected an expression, got '}}'");
  EXPECT_EQ(error_of("{{ 'abc }}"), "test: line 1: string literal is never closed");
  EXPECT_EQ(error_of("{{ x"), "test: line 1: tag '{{' is never closed (expected '}}')");
  EXPECT_EQ(error_of("{# x"), "test: line 1: comment '{#' is never closed (expected '#}')");
  EXPECT_EQ(error_of("{{ (1 }}"), "test: line 1: unexpected '}'");
  EXPECT_EQ(error_of("{% break %}"), "test: line 1: 'break' outside of a for loop");
  EXPECT_EQ(error_of("{{ a $ b }}"), "test: line 1: unexpected character '$'");
  EXPECT_EQ(error_of("ok\n{{ 'a' }}\xff"), "test: line 2: the template is not valid UTF-8");
  EXPECT_EQ(error_of(std::string("ok\n\nx\0y", 7)), "test: line 3: the template holds a NUL byte");
}

TEST(JinjaRenderErrors, NameTheLine) {
  EXPECT_EQ(error_of("a\n{{ raise_exception('Roles must alternate') }}"), "test: line 2: Roles must alternate");
  EXPECT_EQ(error_of("{% set s = 'a' %}\n{{ s() }}"), "test: line 2: function 's' is not supported");  // refused early
  EXPECT_EQ(error_of("{% set s = 'a' %}\n{{ 'a'() }}"), "test: line 2: 'str' object is not callable");
  EXPECT_EQ(error_of("{{ 'a' + 1 }}"), "test: line 1: can only concatenate str (not \"int\") to str");
  EXPECT_EQ(error_of("{{ 1 / 0 }}"), "test: line 1: division by zero");
  EXPECT_EQ(error_of("{% set x = 1 %}{% set x.a = 2 %}"), "test: line 1: cannot assign attribute 'a' on non-namespace object");
  EXPECT_EQ(error_of("{% for a, b in [1] %}{% endfor %}"), "test: line 1: cannot unpack non-iterable int object");
  EXPECT_EQ(error_of("{{ x|tojson }}"), "test: line 1: Object of type undefined is not JSON serializable");
  EXPECT_EQ(error_of("{{ 'ß'|upper }}"), "test: line 1: upper() of 'ß' needs Unicode's special casing, which is not supported");
  EXPECT_EQ(error_of("{{ 2 ** 64 }}"), "test: line 1: integer result does not fit in 64 bits");
  EXPECT_EQ(error_of("{{ [1, 2] < 'a' }}"), "test: line 1: '<' not supported between instances of 'list' and 'str'");
}

TEST(JinjaChatTemplate, KeepsKeyOrderAndSource) {
  const std::string source = "{{ messages[0]|tojson }}";
  const ChatTemplate t(source, "tokenizer_config.json: chat_template");
  EXPECT_EQ(t.source(), source);
  json message = json::object();
  message["role"] = "user";
  message["content"] = "hi";
  message["a"] = 1;
  EXPECT_EQ(t.render({{"messages", json::array({message})}}), "{\"role\": \"user\", \"content\": \"hi\", \"a\": 1}");
  EXPECT_THROW(t.render(json::array()), Error);
  EXPECT_THROW(ChatTemplate("\xff", "x"), Error);
}

}  // namespace
}  // namespace heptapod
