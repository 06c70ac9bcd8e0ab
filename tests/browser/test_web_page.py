#!/usr/bin/python3
"""The web page of `heptapod serve` (GET /) in a real browser: headless Chromium driven by Selenium.

    test_web_page.py --heptapod BIN --make-model BIN --data tests/data --output DIR

Writes the tests' four random-weights models (`make_test_model PATH KIND`: translation, generation,
classification, embedding) and a chat model (the language model with tests/chat/chatml_like.jinja as its chat
template, by `heptapod convert --chat-template`), starts `heptapod serve -m es-en=MT -m writer=LM -m topics=CLF
-m vec=ENC -m talker=CHAT --port 0 --compute-type int8 --max-characters N` on 127.0.0.1 and checks, on the page:
- that it shows the four panels, each kind's select listing its models (the generation select both);
- translation: that the pair select lists "Spanish → English"; that a sentence of numbers.dev.es translates to
  the bytes `heptapod translate` prints for it; that ticking "alternatives" lists the CLI's `--nbest`
  hypotheses 2..K; that two lines (sent with Ctrl+Enter) translate line by line; that a request over the
  server's character limit shows the server's own error message and clears the result;
- generation (streamed /v1/completions): that a line of numbers.dev.en with temperature 1, seed 7 and 12 tokens
  ends as the new text `heptapod generate --temperature 1 --top-k 0 --top-p 1 --seed 7 --max-tokens 12` prints,
  added to the output piece by piece (a MutationObserver counts the additions); that Stop ends a request; that
  a request beyond the model's context shows the server's error message;
- chat (streamed /v1/chat/completions), the chat model selected: that the panel becomes a conversation; that
  with a system message, temperature 1, seed 7 and 8 tokens each of two turns (the second sent with
  Ctrl+Enter) gets, piece by piece, the reply `heptapod chat --messages FILE --temperature 1 --top-k 0 --top-p 1
  --seed 7 --max-tokens 8` prints for the conversation so far, the log showing the user's and the model's
  messages apart, as text; that a conversation beyond the context shows the server's error message and drops
  the turn; that Stop ends a reply; that New conversation clears the log, after which the first turn gets its
  first reply again; and that selecting the language model brings the completion panel back;
- classification: that the bars are labelled number and word, in the order and with the percentages (one
  decimal) of `heptapod classify --top-k 2 --json`, each bar as wide as its probability;
- embedding: that the dimension and the cosine similarity (4 decimals) of two lines are those of the vectors
  `heptapod embed` prints;
- that the browser asked nothing of any address but the server's, and that its console stays clean.
Then a second, short server holding the translation model alone: its page shows the translation panel only.
Saves screenshots (the page, the error, each panel, the translation-only page) to DIR. The browser contacts only
127.0.0.1 (no proxy, other host names unresolvable, no background networking) and Selenium Manager is never
asked for a driver. Every wait is bounded. The CLI runs with --compute-type int8, as the server does.

Exit status: 0 passed, 1 failed, 77 skipped (no chromium, chromedriver or selenium: CTest's SKIP_RETURN_CODE).
Runs under Debian's /usr/bin/python3 (python3-selenium), standard library otherwise.
"""
import argparse
import decimal
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
MAX_CHARACTERS = 200  # the server's --max-characters: the sentences are far shorter, the error text longer
ALTERNATIVES = 3      # the page's default count of alternatives
SEED = 7              # generation: the seed, temperature and token count typed into the page
TEMPERATURE = 1
MAX_TOKENS = 12
TOO_MANY_TOKENS = 100  # over the test language model's 64 positions, under the server's --max-new-tokens
CHAT_TOKENS = 8       # chat: the reply length typed into the page (two turns and replies within 64 positions)
CHAT_SYSTEM = "count"  # chat: the system message typed into the page, and the two user turns (short: the
CHAT_TURNS = ["ninety-one thousand", "three hundred and six"]  # conversation must fit the 64 positions)
CHAT_TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "chat", "chatml_like.jinja")
WAIT_S = 30           # the longest any single wait on the page may take
SKIP = 77


class TestFailure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def log(message):
    print(message, flush=True)


# Every request of this script goes straight to 127.0.0.1, whatever proxy the environment names.
for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
    os.environ.pop(name, None)
os.environ["no_proxy"] = os.environ["NO_PROXY"] = "*"
URL_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def http(url, body=None, timeout=10):
    """(status, parsed JSON or raw text) of GET url, or of POST body (a dict, sent as JSON)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    try:
        with URL_OPENER.open(request, timeout=timeout) as reply:
            status, raw = reply.status, reply.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, raw.decode(errors="replace")


def run(command, stdin_text="", timeout=120):
    """stdout of command (bytes); raises TestFailure naming the command on a nonzero exit."""
    try:
        done = subprocess.run(command, input=stdin_text.encode(), capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"{command} ran over {timeout} s")
    check(done.returncode == 0,
          f"{command} exited {done.returncode}:\n{done.stderr.decode(errors='replace')}")
    return done.stdout


class Server:
    """`heptapod serve` of models ((name, file) pairs) on 127.0.0.1, any free port; stop() sends SIGTERM and checks
    the exit status 0."""

    def __init__(self, heptapod, models, workdir, extra, log_name="serve.log"):
        self.log_path = os.path.join(workdir, log_name)
        self.log_file = open(self.log_path, "wb")
        self.command = [heptapod, "serve"]
        for name, path in models:
            self.command += ["-m", name + "=" + path]
        self.command += ["--host", "127.0.0.1", "--port", "0", "--compute-type", "int8"] + extra
        log("server: " + " ".join(self.command))
        self.process = subprocess.Popen(self.command, stdout=self.log_file, stderr=subprocess.STDOUT)
        self.url = None

    def log_text(self):
        with open(self.log_path, "rb") as f:
            return f.read().decode(errors="replace")

    def wait_ready(self, timeout=60):
        deadline = time.monotonic() + timeout
        while self.url is None:
            check(self.process.poll() is None, f"the server exited {self.process.returncode}:\n{self.log_text()}")
            check(time.monotonic() < deadline, f"the server did not say where it listens in {timeout} s")
            found = re.search(r"listening on (http://127\.0\.0\.1:\d+)", self.log_text())
            if found:
                self.url = found.group(1)
            else:
                time.sleep(0.05)
        while True:
            check(self.process.poll() is None, f"the server exited {self.process.returncode}:\n{self.log_text()}")
            try:
                status, body = http(self.url + "/health", timeout=5)
                if status == 200:
                    check(body.get("status") == "ok", f"/health: 200 with {body!r}")
                    return
            except (OSError, urllib.error.URLError):
                pass
            check(time.monotonic() < deadline, f"/health did not answer 200 within {timeout} s")
            time.sleep(0.1)

    def stop(self, timeout=30):
        """The exit status; raises TestFailure unless it is 0."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
            raise TestFailure(f"the server did not stop within {timeout} s of SIGTERM")
        finally:
            self.log_file.close()
        check(code == 0, f"the server exited {code} on SIGTERM:\n{self.log_text()}")
        return code


def block_selenium_manager():
    """Selenium Manager would download a driver; make any call to it an error instead."""
    try:
        from selenium.webdriver.common import selenium_manager
    except ImportError:
        return

    def refuse(*args, **kwargs):
        raise RuntimeError("Selenium Manager is disabled in this test (the driver is " + CHROMEDRIVER + ")")

    for name in ("driver_location", "binary_paths", "run"):
        if hasattr(selenium_manager.SeleniumManager, name):
            setattr(selenium_manager.SeleniumManager, name, refuse)


def start_browser(workdir):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    block_selenium_manager()
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--no-proxy-server",
                 "--proxy-bypass-list=*", "--no-first-run", "--no-default-browser-check", "--disable-sync",
                 "--disable-extensions", "--disable-default-apps", "--disable-domain-reliability",
                 "--disable-client-side-phishing-detection", "--metrics-recording-only",
                 # no host name resolves: only the IP literal 127.0.0.1 can be reached
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                 "--user-data-dir=" + os.path.join(workdir, "chromium-profile"),
                 "--window-size=1200,900", "--lang=en-US"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(executable_path=CHROMEDRIVER, log_path=os.path.join(workdir, "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(WAIT_S)
    driver.set_script_timeout(WAIT_S)
    return driver


def cli_translation(heptapod, model, text):
    """What `heptapod translate` prints for text's lines, less the trailing newline."""
    out = run([heptapod, "translate", "-m", model, "--compute-type", "int8"], text + "\n")
    check(out.endswith(b"\n"), f"heptapod translate printed {out!r}: no final newline")
    return out[:-1].decode("utf-8")


def cli_nbest(heptapod, model, sentence, k):
    """The texts of `heptapod translate --nbest k` for one sentence, best first."""
    out = run([heptapod, "translate", "-m", model, "--compute-type", "int8", "--nbest", str(k)], sentence + "\n")
    texts = []
    for line in out.decode("utf-8").splitlines():
        fields = line.split(" ||| ")
        check(len(fields) >= 3 and fields[0] == "0", f"--nbest printed {line!r}, not 0 ||| text ||| score")
        texts.append(" ||| ".join(fields[1:-1]))
    return texts


def cli_generation(heptapod, model, prompt):
    """The new text of `heptapod generate` for prompt at the page's settings (it prints prompt + new text)."""
    out = run([heptapod, "generate", "-m", model, "--compute-type", "int8", "--prompt", prompt,
               "--temperature", str(TEMPERATURE), "--top-k", "0", "--top-p", "1", "--seed", str(SEED),
               "--max-tokens", str(MAX_TOKENS)])
    check(out.endswith(b"\n"), f"heptapod generate printed {out!r}: no final newline")
    line = out[:-1].decode("utf-8")
    check(line.startswith(prompt), f"heptapod generate printed {line!r}, which does not begin with the prompt")
    return line[len(prompt):]


def cli_chat(heptapod, model, messages, workdir):
    """The reply `heptapod chat --messages` prints for messages at the page's chat settings."""
    path = os.path.join(workdir, "messages.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(messages, f)
    out = run([heptapod, "chat", "-m", model, "--compute-type", "int8", "--messages", path,
               "--temperature", str(TEMPERATURE), "--top-k", "0", "--top-p", "1", "--seed", str(SEED),
               "--max-tokens", str(CHAT_TOKENS)])
    check(out.endswith(b"\n") and out.count(b"\n") == 1, f"heptapod chat --messages printed {out!r}, not one line")
    return out[:-1].decode("utf-8")


def cli_classes(heptapod, model, text):
    """`heptapod classify --top-k 2 --json`'s classes of text: [(label, probability)], most probable first."""
    out = run([heptapod, "classify", "-m", model, "--compute-type", "int8", "--top-k", "2", "--json"], text + "\n")
    return [(c["label"], c["probability"]) for c in json.loads(out)["top"]]


def cli_vectors(heptapod, model, texts):
    """`heptapod embed`'s vector of each text."""
    out = run([heptapod, "embed", "-m", model, "--compute-type", "int8"], "\n".join(texts) + "\n")
    vectors = [json.loads(line) for line in out.decode().splitlines()]
    check(len(vectors) == len(texts), f"heptapod embed printed {len(vectors)} vectors for {len(texts)} lines")
    return vectors


def percent_shown(probability):
    """probability as the page shows it: JavaScript's (p * 100).toFixed(1), which rounds the exact binary value
    half up."""
    exact = decimal.Decimal(probability * 100)
    return str(exact.quantize(decimal.Decimal("0.1"), rounding=decimal.ROUND_HALF_UP)) + "%"


class Page:
    """The page's elements by their ids, and bounded waits on them."""

    def __init__(self, driver):
        self.driver = driver

    def el(self, element_id):
        return self.driver.find_element("id", element_id)

    def content(self, element_id):
        """The element's textContent: the exact characters, where WebDriver's .text would trim."""
        return self.driver.execute_script("return arguments[0].textContent;", self.el(element_id))

    def state(self):
        return self.el("status").get_attribute("data-state")

    def alternatives(self):
        return [self.driver.execute_script("return arguments[0].textContent;", item)
                for item in self.el("alternatives").find_elements("tag name", "li")]

    def displayed(self, element_id):
        return self.el(element_id).is_displayed()

    def options(self, element_id):
        from selenium.webdriver.support.ui import Select

        return [o.get_attribute("value") for o in Select(self.el(element_id)).options]

    def set_field(self, element_id, value):
        """Types value into an input (a number field) in place of what it held."""
        field = self.el(element_id)
        field.clear()
        field.send_keys(value)
        check(field.get_attribute("value") == value,
              f"#{element_id} holds {field.get_attribute('value')!r} after typing {value!r}")

    def wait_state(self, element_id, states, what):
        """Waits (bounded) until the status element's data-state is one of states; returns it."""
        from selenium.webdriver.support.ui import WebDriverWait

        state = lambda: self.el(element_id).get_attribute("data-state")  # noqa: E731
        try:
            WebDriverWait(self.driver, WAIT_S, poll_frequency=0.05).until(lambda d: state() in states)
        except Exception:
            raise TestFailure(f"no {what} within {WAIT_S} s: #{element_id} says {self.content(element_id)!r}, "
                              f"state {state()!r}")
        return state()

    def run_action(self, button_id, status_id, what):
        """Clicks the button and waits (bounded) until its status says done or error: the state."""
        self.driver.execute_script("delete arguments[0].dataset.state;", self.el(status_id))
        self.el(button_id).click()
        state = self.wait_state(status_id, ("done", "error"), what)
        check(self.el(button_id).is_enabled(), f"#{button_id} stays disabled after the reply")
        return state

    def set_source(self, text, box_id="source"):
        from selenium.webdriver.common.keys import Keys

        box = self.el(box_id)
        box.click()
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(Keys.DELETE)
        for i, line in enumerate(text.split("\n")):
            if i:
                box.send_keys(Keys.SHIFT, Keys.ENTER)  # a newline; Ctrl+Enter would translate
            box.send_keys(line)
        value = box.get_attribute("value")
        check(value == text, f"the text area holds {value!r} after typing {text!r}")

    def translate(self, how="click"):
        """Starts a translation and waits (bounded) until the page says it is done or failed: the state."""
        from selenium.webdriver.common.keys import Keys
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver.execute_script("delete arguments[0].dataset.state;", self.el("status"))
        if how == "click":
            self.el("translate").click()
        else:
            self.el("source").send_keys(Keys.CONTROL, Keys.ENTER)
        try:
            WebDriverWait(self.driver, WAIT_S, poll_frequency=0.05).until(
                lambda d: self.state() in ("done", "error"))
        except Exception:
            raise TestFailure(f"no translation within {WAIT_S} s: status {self.content('status')!r}, "
                              f"state {self.state()!r}")
        check(self.el("translate").is_enabled(), "the Translate button stays disabled after the reply")
        return self.state()


def screenshot_panel(page, panel_id, path):
    """A screenshot of the panel alone, scrolled into view."""
    panel = page.el(panel_id)
    page.driver.execute_script("arguments[0].scrollIntoView();", panel)
    check(panel.screenshot(path), f"the screenshot of #{panel_id} was not saved")
    log(f"screenshot: {path}")


def check_panels(page, models_by_kind):
    """Waits (bounded) for the page to list the server's models; checks the panels shown and their selects."""
    state = page.wait_state("models-status", ("listed", "unlisted", "error"), "model list")
    check(state == "listed", f"the page did not list the models: {page.content('models-status')!r}, state {state!r}")
    for kind in ("translation", "generation", "classification", "embedding"):
        shown = page.displayed(kind + "-panel")
        check(shown == (kind in models_by_kind),
              f"the {kind} panel is {'shown' if shown else 'hidden'}; the server holds {sorted(models_by_kind)}")
        if kind != "translation" and kind in models_by_kind:
            check(page.options(kind + "-model") == models_by_kind[kind],
                  f"#{kind}-model lists {page.options(kind + '-model')!r}, not {models_by_kind[kind]!r}")


def check_generation(page, server, heptapod, model_name, model, prompt, output_dir):
    from selenium.webdriver.support.ui import Select

    expected = cli_generation(heptapod, model, prompt)
    check(expected, f"heptapod generate made no new text for {prompt!r}: nothing to compare")
    log(f"prompt: {prompt!r}\nCLI new text: {expected!r}")
    driver = page.driver
    Select(page.el("generation-model")).select_by_value(model_name)
    page.set_field("generation-max-tokens", str(MAX_TOKENS))
    page.set_field("generation-temperature", str(TEMPERATURE))
    page.set_field("generation-seed", str(SEED))
    page.set_source(prompt, "generation-prompt")
    # Each addition to the output, counted from before the click: streamed text arrives in several.
    driver.execute_script("""
        const output = arguments[0];
        const counts = window.heptapodTest = { additions: 0, batches: 0 };
        counts.add = (records) => {
          for (const r of records)
            if (r.type === "characterData" || (r.type === "childList" && r.addedNodes.length)) counts.additions += 1;
        };
        counts.observer = new MutationObserver((records) => { counts.batches += 1; counts.add(records); });
        counts.observer.observe(output, { childList: true, characterData: true, subtree: true });""",
                          page.el("generation-output"))
    state = page.run_action("generate", "generation-status", "generation")
    check(state == "done", f"the generation failed on the page: {page.content('generation-status')!r}")
    got = page.content("generation-output")
    check(got == expected, f"the page generated {got!r} after {prompt!r}; heptapod generate says {expected!r}")
    counts = driver.execute_script("""
        const counts = window.heptapodTest;
        counts.add(counts.observer.takeRecords());  // any not yet delivered
        counts.observer.disconnect();
        return { additions: counts.additions, batches: counts.batches };""")
    check(counts["additions"] > 1, f"the output changed {counts['additions']} time(s) while it was generated: "
                                   "not streamed")
    check(not page.el("generation-stop").is_enabled(), "Stop stays enabled after the generation")
    check(page.content("generation-status").startswith("Generated"),
          f"status {page.content('generation-status')!r}")
    log(f"page generation matches the CLI, added in {counts['additions']} pieces "
        f"({counts['batches']} observer callbacks); {page.content('generation-status')!r}")
    screenshot_panel(page, "generation-panel", os.path.join(output_dir, "web_page_generation.png"))

    # Stop: clicked at once after Generate (one script, no reply can come between), it ends the request.
    driver.execute_script("arguments[0].click(); arguments[1].click();",
                          page.el("generate"), page.el("generation-stop"))
    state = page.wait_state("generation-status", ("stopped", "done", "error"), "stop")
    check(state == "stopped", f"Stop did not stop: {page.content('generation-status')!r}, state {state!r}")
    check(page.el("generate").is_enabled() and not page.el("generation-stop").is_enabled(),
          "the buttons do not return to Generate enabled, Stop disabled after Stop")
    log("Stop aborts the request")

    # A request the server refuses (beyond the model's context): the server's own message on the page.
    body = {"model": model_name, "prompt": prompt, "max_tokens": TOO_MANY_TOKENS, "temperature": TEMPERATURE,
            "seed": SEED, "stream": True, "stream_options": {"include_usage": True}}
    status, reply = http(server.url + "/v1/completions", body)
    check(status == 400 and isinstance(reply, dict) and isinstance(reply.get("error"), dict)
          and reply["error"].get("message"),
          f"the server answered {TOO_MANY_TOKENS} tokens with {status} {reply!r}, not 400 with an error message")
    page.set_field("generation-max-tokens", str(TOO_MANY_TOKENS))
    state = page.run_action("generate", "generation-status", "generation")
    status_text = page.content("generation-status")
    check(state == "error", f"{TOO_MANY_TOKENS} tokens are not an error on the page: {status_text!r}")
    check(reply["error"]["message"] in status_text,
          f"the page says {status_text!r}, not the server's {reply['error']['message']!r}")
    check(page.content("generation-output") == "", "the earlier text stays beside the error")
    log(f"generation error shown: {status_text!r}")
    page.set_field("generation-max-tokens", str(MAX_TOKENS))


def chat_log(page):
    """The chat log's messages: [(role, label, text)], each text the exact textContent of its text element,
    which must hold text nodes alone (model output never becomes HTML)."""
    return page.driver.execute_script("""
        return [...document.querySelectorAll("#chat-log .message")].map((m) => {
          const text = m.querySelector(".message-text");
          if ([...text.childNodes].some((n) => n.nodeType !== Node.TEXT_NODE)) throw new Error("markup in a message");
          return [m.dataset.role, m.querySelector(".message-role").textContent, text.textContent];
        });""")


def check_chat(page, server, heptapod, model_name, model, turns, output_dir, workdir):
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    driver = page.driver
    system = [{"role": "system", "content": CHAT_SYSTEM}]
    first = cli_chat(heptapod, model, system + [{"role": "user", "content": turns[0]}], workdir)
    second = cli_chat(heptapod, model, system + [{"role": "user", "content": turns[0]},
                                                 {"role": "assistant", "content": first},
                                                 {"role": "user", "content": turns[1]}], workdir)
    check(first and second, f"heptapod chat made an empty reply ({first!r}, {second!r}): nothing to compare")
    log(f"turns: {turns!r}\nCLI replies: {first!r}, {second!r}")

    Select(page.el("generation-model")).select_by_value(model_name)
    check(page.displayed("chat-view") and not page.displayed("completion-view"),
          "the chat model's panel is not a conversation (or still shows the completion view)")
    check(page.content("generation-heading") == "Chat", f"heading {page.content('generation-heading')!r}")
    check(chat_log(page) == [], f"a new model's conversation is not empty: {chat_log(page)!r}")
    page.set_field("generation-max-tokens", str(CHAT_TOKENS))
    page.set_field("generation-temperature", str(TEMPERATURE))
    page.set_field("generation-seed", str(SEED))
    page.set_field("chat-system", CHAT_SYSTEM)

    # Turn 1, sent with the button.
    page.set_source(turns[0], "chat-input")
    state = page.run_action("chat-send", "chat-status", "chat reply")
    check(state == "done", f"the first chat turn failed on the page: {page.content('chat-status')!r}")
    check(chat_log(page) == [["user", "You", turns[0]], ["assistant", "Model", first]],
          f"after one turn the log holds {chat_log(page)!r}; heptapod chat replies {first!r}")
    check(page.el("chat-input").get_attribute("value") == "", "the input keeps the sent text")
    check(page.content("chat-status").startswith("Replied with"), f"status {page.content('chat-status')!r}")

    # Turn 2, sent with Ctrl+Enter; the pieces of the reply counted as they are added.
    driver.execute_script("""
        const counts = window.heptapodChat = { pieces: 0 };
        counts.add = (records) => {
          for (const r of records)
            if (r.type === "childList" && r.addedNodes.length && r.target.classList &&
                r.target.classList.contains("message-text") && r.target.parentElement.dataset.role === "assistant")
              counts.pieces += 1;
        };
        counts.observer = new MutationObserver(counts.add);
        counts.observer.observe(arguments[0], { childList: true, subtree: true });""", page.el("chat-log"))
    page.set_source(turns[1], "chat-input")
    driver.execute_script("delete arguments[0].dataset.state;", page.el("chat-status"))
    page.el("chat-input").send_keys(Keys.CONTROL, Keys.ENTER)
    state = page.wait_state("chat-status", ("done", "error"), "second chat reply")
    check(state == "done", f"the second chat turn failed on the page: {page.content('chat-status')!r}")
    pieces = driver.execute_script("""
        const counts = window.heptapodChat;
        counts.add(counts.observer.takeRecords());
        counts.observer.disconnect();
        return counts.pieces;""")
    expected_log = [["user", "You", turns[0]], ["assistant", "Model", first],
                    ["user", "You", turns[1]], ["assistant", "Model", second]]
    check(chat_log(page) == expected_log,
          f"after two turns the log holds {chat_log(page)!r}; heptapod chat replies {first!r}, then {second!r}")
    check(pieces > 1, f"the second reply was added in {pieces} piece(s): not streamed")
    messages = page.driver.find_elements("css selector", "#chat-log .message")
    user_x, model_x = messages[2].rect["x"], messages[3].rect["x"]
    check(user_x > model_x, f"the user's message (x {user_x}) and the model's (x {model_x}) are not set apart")
    log(f"page chat matches the CLI over two turns, the second reply in {pieces} pieces; "
        f"{page.content('chat-status')!r}")
    screenshot_panel(page, "generation-panel", os.path.join(output_dir, "web_page_chat.png"))

    # A turn the server refuses (no room within the context): its message on the page, the turn dropped.
    too_long = system + [{"role": "user", "content": turns[0]}, {"role": "assistant", "content": first},
                         {"role": "user", "content": turns[1]}, {"role": "assistant", "content": second},
                         {"role": "user", "content": turns[0]}]
    body = {"model": model_name, "messages": too_long, "max_tokens": TOO_MANY_TOKENS, "temperature": TEMPERATURE,
            "seed": SEED, "stream": True, "stream_options": {"include_usage": True}}
    status, reply = http(server.url + "/v1/chat/completions", body)
    check(status == 400 and isinstance(reply, dict) and isinstance(reply.get("error"), dict)
          and reply["error"].get("message"),
          f"the server answered a chat of {TOO_MANY_TOKENS} tokens with {status} {reply!r}, not 400 with a message")
    page.set_field("generation-max-tokens", str(TOO_MANY_TOKENS))
    page.set_source(turns[0], "chat-input")
    state = page.run_action("chat-send", "chat-status", "chat error")
    status_text = page.content("chat-status")
    check(state == "error", f"a chat beyond the context is not an error on the page: {status_text!r}")
    check(reply["error"]["message"] in status_text,
          f"the page says {status_text!r}, not the server's {reply['error']['message']!r}")
    check(chat_log(page) == expected_log, f"the refused turn stays in the log: {chat_log(page)!r}")
    check(page.el("chat-input").get_attribute("value") == turns[0], "the refused turn's text is not back in the input")
    error_shot = os.path.join(output_dir, "web_page_chat_error.png")
    screenshot_panel(page, "generation-panel", error_shot)
    log(f"chat error shown: {status_text!r}")
    page.set_field("generation-max-tokens", str(CHAT_TOKENS))

    # Stop, clicked at once after Send: the reply ends, the buttons return.
    driver.execute_script("arguments[0].click(); arguments[1].click();", page.el("chat-send"), page.el("chat-stop"))
    state = page.wait_state("chat-status", ("stopped", "done", "error"), "chat stop")
    check(state == "stopped", f"Stop did not stop the reply: {page.content('chat-status')!r}, state {state!r}")
    check(page.el("chat-send").is_enabled() and not page.el("chat-stop").is_enabled(),
          "the buttons do not return to Send enabled, Stop disabled after Stop")
    log("Stop aborts the chat request")

    # New conversation: the log cleared, and the conversation with it: the first turn gets its first reply.
    page.el("chat-reset").click()
    check(chat_log(page) == [], f"New conversation leaves {chat_log(page)!r} in the log")
    check(page.content("chat-status") == "", f"New conversation leaves the status {page.content('chat-status')!r}")
    page.set_source(turns[0], "chat-input")
    state = page.run_action("chat-send", "chat-status", "chat reply after a reset")
    check(state == "done", f"the turn after New conversation failed: {page.content('chat-status')!r}")
    check(chat_log(page) == [["user", "You", turns[0]], ["assistant", "Model", first]],
          f"after New conversation the first turn gives {chat_log(page)!r}, not the fresh reply {first!r}")
    log("New conversation clears the log and the conversation")

    # The language model without a template: the completion panel again.
    Select(page.el("generation-model")).select_by_value("writer")
    check(page.displayed("completion-view") and not page.displayed("chat-view"),
          "selecting the language model does not bring the completion view back")
    check(page.content("generation-heading") == "Generate", f"heading {page.content('generation-heading')!r}")


def check_classification(page, heptapod, model_name, model, text, output_dir):
    from selenium.webdriver.support.ui import Select

    expected = cli_classes(heptapod, model, text)
    check(sorted(label for label, _ in expected) == ["number", "word"],
          f"heptapod classify --top-k 2 lists {expected!r}, not number and word")
    Select(page.el("classification-model")).select_by_value(model_name)
    page.set_source(text, "classification-text")
    state = page.run_action("classify", "classification-status", "classification")
    check(state == "done", f"the classification failed on the page: {page.content('classification-status')!r}")
    rows = page.el("classification-results").find_elements("tag name", "li")
    check(len(rows) == len(expected), f"the page shows {len(rows)} classes, not {len(expected)}")
    for row, (label, probability) in zip(rows, expected):
        part = lambda name: row.find_element("class name", name)  # noqa: E731
        text_of = lambda name: page.driver.execute_script("return arguments[0].textContent;", part(name))  # noqa
        shown = (text_of("class-label"), text_of("class-percent"))
        check(shown == (label, percent_shown(probability)),
              f"the page shows {shown!r}; heptapod classify says {label!r} {probability!r} "
              f"({percent_shown(probability)})")
        fill, track = part("class-fill").rect["width"], part("class-track").rect["width"]
        check(track > 0 and abs(fill - probability * track) <= 1.5,
              f"{label}'s bar is {fill} px of {track}: not its probability {probability}")
    log(f"classes match the CLI: {[(l, percent_shown(p)) for l, p in expected]}")
    screenshot_panel(page, "classification-panel", os.path.join(output_dir, "web_page_classification.png"))


def check_embedding(page, heptapod, model_name, model, texts, output_dir):
    from selenium.webdriver.support.ui import Select

    a, b = cli_vectors(heptapod, model, texts)
    cosine = sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
    Select(page.el("embedding-model")).select_by_value(model_name)
    page.set_source(texts[0], "embedding-first")
    page.set_source(texts[1], "embedding-second")
    state = page.run_action("embed", "embedding-status", "embedding")
    check(state == "done", f"the embedding failed on the page: {page.content('embedding-status')!r}")
    dimension, shown = page.content("embedding-dimension"), page.content("embedding-cosine")
    check(dimension == str(len(a)), f"the page says dimension {dimension!r}; heptapod embed's is {len(a)}")
    # Four decimals of the same value; a float's last bit apart (the server's and the CLI's printing) may
    # only matter at a rounding boundary, hence the 1e-7.
    check(re.fullmatch(r"-?\d\.\d{4}", shown) and abs(float(shown) - cosine) <= 0.00005 + 1e-7,
          f"the page shows cosine {shown!r}; from heptapod embed's vectors it is {cosine:.6f}")
    log(f"embedding matches the CLI: dimension {dimension}, cosine {shown}")
    screenshot_panel(page, "embedding-panel", os.path.join(output_dir, "web_page_embedding.png"))


def check_page(driver, server, heptapod, models, chat_model, data_dir, output_dir, workdir):
    from selenium.webdriver.support.ui import Select, WebDriverWait

    model = models["translation"][1]

    with open(os.path.join(data_dir, "numbers.dev.es"), encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]
    # One with a non-ASCII letter: the UTF-8 path through the browser, JSON and the server.
    sentence = next(s for s in sentences if re.search(r"[^\x00-\x7f]", s))
    two_lines = sentences[0] + "\n" + sentences[1]
    long_text = " ".join(sentences)[: MAX_CHARACTERS + 50]
    check(len(sentence) <= MAX_CHARACTERS and len(two_lines) <= MAX_CHARACTERS, "the sentences are too long")

    expected = cli_translation(heptapod, model, sentence)
    expected_two = cli_translation(heptapod, model, two_lines)
    nbest = cli_nbest(heptapod, model, sentence, ALTERNATIVES + 1)
    check(nbest and nbest[0] == expected, f"--nbest's best {nbest[:1]!r} is not the 1-best {expected!r}")
    check(len(nbest) > 1, f"--nbest {ALTERNATIVES + 1} found one hypothesis only: nothing to compare")
    log(f"sentence: {sentence!r}\nCLI translation: {expected!r}\nCLI alternatives: {nbest[1:]!r}")

    with open(os.path.join(data_dir, "numbers.dev.en"), encoding="utf-8") as f:
        english = [line.rstrip("\n") for line in f if line.strip()]
    prompt = next(s for s in english if len(s) <= 40)  # its tokens and 12 more within the model's 64 positions

    driver.get_log("performance")  # what the browser's start page asked for (chrome:// only) is not the page's
    driver.get(server.url + "/")
    check(driver.title == "Heptapod translate", f"page title {driver.title!r}")
    try:
        WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(
            lambda d: d.find_elements("css selector", "#pair option"))
    except Exception:
        raise TestFailure(f"the language list stayed empty for {WAIT_S} s")
    page = Page(driver)
    listed = {kind: [name] for kind, (name, _) in models.items()}
    listed["generation"].append(chat_model[0])
    check_panels(page, listed)
    log("the page shows the four panels")
    pairs = Select(page.el("pair"))
    names = [o.text for o in pairs.options]
    check(names == ["Spanish \u2192 English"], f"the pair select lists {names!r}, not ['Spanish → English']")
    check(pairs.first_selected_option.get_attribute("value") == "es|en",
          f"selected pair value {pairs.first_selected_option.get_attribute('value')!r}")
    check(page.el("source").get_attribute("lang") == "es" and page.el("output").get_attribute("lang") == "en",
          "the panes do not carry the pair's languages (lang es / en)")
    check(not page.el("nbest").is_selected(), "alternatives are ticked before anyone asked")

    # 1. One sentence: the page shows exactly what the CLI prints.
    page.set_source(sentence)
    state = page.translate()
    check(state == "done", f"the translation failed on the page: {page.content('status')!r}")
    got = page.content("output")
    check(got == expected, f"the page translated {sentence!r} to {got!r}; heptapod translate says {expected!r}")
    check(page.alternatives() == [], f"alternatives {page.alternatives()!r} shown without being asked for")
    check(re.fullmatch(r"Translated in \d+ ms", page.content("status")), f"status {page.content('status')!r}")
    source_width, output_width = page.el("source").rect["width"], page.el("output").rect["width"]
    check(abs(source_width - output_width) <= 2,
          f"the panes are {source_width} and {output_width} px wide: a long output squeezes the text area")
    log("page translation matches the CLI")

    # 2. Alternatives: hypotheses 2..K of the CLI's n-best list, the 1-best unchanged.
    page.el("nbest").click()
    check(page.el("nbest").is_selected(), "the alternatives box did not tick")
    check(page.el("nbest-count").get_attribute("value") == str(ALTERNATIVES),
          f"the alternatives count reads {page.el('nbest-count').get_attribute('value')!r}, not {ALTERNATIVES}")
    state = page.translate()
    check(state == "done", f"the translation with alternatives failed: {page.content('status')!r}")
    check(page.content("output") == expected,
          f"with alternatives the page translated to {page.content('output')!r}, not {expected!r}")
    shown = page.alternatives()
    check(shown == nbest[1:], f"the page lists the alternatives {shown!r}; heptapod translate --nbest "
                              f"{ALTERNATIVES + 1} gives {nbest[1:]!r}")
    check(page.el("alternatives").is_displayed(), "the alternatives list is not visible")
    screenshot = os.path.join(output_dir, "web_page.png")
    check(driver.save_screenshot(screenshot), "the screenshot was not saved")
    log(f"alternatives match the CLI; screenshot: {screenshot}")

    # 3. Two lines, Ctrl+Enter, alternatives off: each line translated on its own.
    page.el("nbest").click()
    page.set_source(two_lines)
    state = page.translate(how="keyboard")
    check(state == "done", f"the two-line translation failed: {page.content('status')!r}")
    check(page.content("output") == expected_two,
          f"two lines translated to {page.content('output')!r}; heptapod translate says {expected_two!r}")
    check(page.alternatives() == [], "alternatives still listed after unticking the box")
    log("two lines (Ctrl+Enter) match the CLI")

    # 4. A request the server refuses: the page shows the server's message and no stale translation.
    status, body = http(server.url + "/translate", {"q": long_text, "source": "es", "target": "en"})
    check(status == 400 and isinstance(body, dict) and "error" in body,
          f"the server answered the over-long text with {status} {body!r}, not 400 with an error")
    page.set_source(long_text)
    state = page.translate()
    status_text = page.content("status")
    check(state == "error", f"an over-long text is not an error on the page: state {state!r}, {status_text!r}")
    check(body["error"] in status_text, f"the page says {status_text!r}, not the server's {body['error']!r}")
    check("error" in (page.el("status").get_attribute("class") or ""), "the error is not styled as one")
    check(page.el("status").is_displayed(), "the error message is not visible")
    check(page.content("output") == "" and page.alternatives() == [],
          f"the previous translation {page.content('output')!r} stays beside the error")
    error_shot = os.path.join(output_dir, "web_page_error.png")
    driver.save_screenshot(error_shot)
    log(f"error shown: {status_text!r}; screenshot: {error_shot}")

    # 5. The page still works after the error.
    page.set_source(sentence)
    check(page.translate() == "done" and page.content("output") == expected, "no translation after the error")

    # 6. The other kinds' panels, each against its CLI.
    check_generation(page, server, heptapod, *models["generation"], prompt, output_dir)
    check_chat(page, server, heptapod, *chat_model, CHAT_TURNS, output_dir, workdir)
    check_classification(page, heptapod, *models["classification"], english[1], output_dir)
    check_embedding(page, heptapod, *models["embedding"], english[:2], output_dir)

    # 7. Nothing but the server was asked for anything over the network, and no script error.
    origin = server.url + "/"
    asked = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message.get("method") == "Network.requestWillBeSent":
            asked.append(message["params"]["request"]["url"])
    network = [u for u in asked if re.match(r"(https?|wss?|ftp)://", u)]
    check(network, "the performance log recorded no request")
    elsewhere = [u for u in network if not u.startswith(origin)]
    check(not elsewhere, f"the page asked for {elsewhere!r}: not self-contained")
    for path in ("/translate", "/v1/models", "/v1/completions", "/v1/chat/completions", "/v1/classify",
                 "/v1/embeddings"):
        check(server.url + path in network, f"no {path} in the performance log")
    console = driver.get_log("browser")
    script_errors = [e for e in console if e.get("source") == "javascript" or
                     (e.get("level") == "SEVERE" and "status of 400" not in e.get("message", ""))]
    check(not script_errors, f"the browser console reports {script_errors!r}")
    log(f"{len(network)} requests, all to {origin}; console clean")


def check_translation_only(driver, server, output_dir):
    """The page of a server holding the translation model alone: the translation panel and no other."""
    driver.get(server.url + "/")
    page = Page(driver)
    check_panels(page, {"translation": ["es-en"]})
    check(driver.title == "Heptapod translate", f"page title {driver.title!r}")
    shot = os.path.join(output_dir, "web_page_translation_only.png")
    driver.save_screenshot(shot)
    log(f"a translation-only server's page shows the translation panel alone; screenshot: {shot}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--heptapod", required=True)
    parser.add_argument("--make-model", required=True)
    parser.add_argument("--data", required=True, help="tests/data")
    parser.add_argument("--output", required=True, help="where the screenshots go")
    args = parser.parse_args()

    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append(f"selenium for {sys.executable}")
    if missing:
        log("SKIPPED: missing " + ", ".join(missing))
        return SKIP

    os.makedirs(args.output, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="heptapod_browser_") as workdir:
        # kind -> (name served under, file)
        models = {"translation": ("es-en", os.path.join(workdir, "model.htp")),
                  "generation": ("writer", os.path.join(workdir, "lm.htp")),
                  "classification": ("topics", os.path.join(workdir, "classifier.htp")),
                  "embedding": ("vec", os.path.join(workdir, "encoder.htp"))}
        server = driver = None
        failed = False
        try:
            for kind, (_, path) in models.items():
                run([args.make_model, path, kind])
            chat_model = ("talker", os.path.join(workdir, "chat.htp"))
            run([args.heptapod, "convert", models["generation"][1], "--chat-template", CHAT_TEMPLATE,
                 "-o", chat_model[1]])
            server = Server(args.heptapod, list(models.values()) + [chat_model], workdir,
                            ["--max-characters", str(MAX_CHARACTERS)])
            server.wait_ready()
            log(f"server ready at {server.url}")
            driver = start_browser(workdir)
            check_page(driver, server, args.heptapod, models, chat_model, args.data, args.output, workdir)
            server.stop()
            log("server stopped on SIGTERM with exit status 0")
            server = Server(args.heptapod, [models["translation"]], workdir, [], "serve-translation-only.log")
            server.wait_ready()
            log(f"translation-only server ready at {server.url}")
            check_translation_only(driver, server, args.output)
        except Exception as e:
            failed = True
            log("FAILED: " + (str(e) if isinstance(e, TestFailure) else traceback.format_exc()))
            if driver is not None:
                shot = os.path.join(args.output, "web_page_failure.png")
                try:
                    driver.save_screenshot(shot)
                    log(f"failure screenshot: {shot}")
                except Exception:
                    pass
        finally:
            if driver is not None:
                try:
                    driver.quit()
                except Exception as e:
                    log(f"quitting the browser: {e}")
            if server is not None:
                try:
                    server.stop()
                    log("server stopped on SIGTERM with exit status 0")
                except TestFailure as e:
                    failed = True
                    log("FAILED: " + str(e))
                if failed:
                    log("server log (tail):\n" + server.log_text()[-4000:])
    log(f"{'FAILED' if failed else 'PASSED'} in {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
