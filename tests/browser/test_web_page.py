#!/usr/bin/python3
"""The web page of `heptapod serve` (GET /) in a real browser: headless Chromium driven by Selenium.

    test_web_page.py --heptapod BIN --make-model BIN --data tests/data --output DIR

Writes the tests' random-weights model (make_test_model), starts `heptapod serve -m es-en=MODEL --port 0
--compute-type int8 --max-characters N` on 127.0.0.1 and checks, on the page, that the pair select lists
"Spanish → English"; that a sentence of numbers.dev.es translates to the bytes `heptapod translate` prints for
it; that ticking "alternatives" lists the CLI's `--nbest` hypotheses 2..K; that two lines (sent with Ctrl+Enter)
translate line by line; that a request over the server's character limit shows the server's own error message
and clears the result; and that the browser asked nothing of any address but the server's. Saves screenshots
to DIR. The browser contacts only 127.0.0.1 (no proxy, other host names unresolvable, no background
networking) and Selenium Manager is never asked for a driver. Every wait is bounded.

Exit status: 0 passed, 1 failed, 77 skipped (no chromium, chromedriver or selenium: CTest's SKIP_RETURN_CODE).
Runs under Debian's /usr/bin/python3 (python3-selenium), standard library otherwise.
"""
import argparse
import json
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
    """`heptapod serve` on 127.0.0.1, any free port; stop() sends SIGTERM and checks the exit status 0."""

    def __init__(self, heptapod, model, workdir, extra):
        self.log_path = os.path.join(workdir, "serve.log")
        self.log_file = open(self.log_path, "wb")
        self.command = [heptapod, "serve", "-m", "es-en=" + model, "--host", "127.0.0.1", "--port", "0",
                        "--compute-type", "int8"] + extra
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

    def set_source(self, text):
        from selenium.webdriver.common.keys import Keys

        box = self.el("source")
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


def check_page(driver, server, heptapod, model, data_dir, output_dir):
    from selenium.webdriver.support.ui import Select, WebDriverWait

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

    driver.get_log("performance")  # what the browser's start page asked for (chrome:// only) is not the page's
    driver.get(server.url + "/")
    check(driver.title == "Heptapod translate", f"page title {driver.title!r}")
    try:
        WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(
            lambda d: d.find_elements("css selector", "#pair option"))
    except Exception:
        raise TestFailure(f"the language list stayed empty for {WAIT_S} s")
    page = Page(driver)
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

    # 6. Nothing but the server was asked for anything over the network, and no script error.
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
    check(server.url + "/translate" in network, "no POST /translate in the performance log")
    console = driver.get_log("browser")
    script_errors = [e for e in console if e.get("source") == "javascript" or
                     (e.get("level") == "SEVERE" and "status of 400" not in e.get("message", ""))]
    check(not script_errors, f"the browser console reports {script_errors!r}")
    log(f"{len(network)} requests, all to {origin}; console clean")


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
        model = os.path.join(workdir, "model.htp")
        server = driver = None
        failed = False
        try:
            run([args.make_model, model])
            server = Server(args.heptapod, model, workdir, ["--max-characters", str(MAX_CHARACTERS)])
            server.wait_ready()
            log(f"server ready at {server.url}")
            driver = start_browser(workdir)
            check_page(driver, server, args.heptapod, model, args.data, args.output)
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
