"""Browser test of the request guard (issue 20) in headless Debian Chromium.

A page served from a second local origin (another port on 127.0.0.1, as any dev server the user
runs would be) tries what a hostile page would: read the world with fetch, move the clock and
reset the world with "simple" cross-site requests that need no preflight (text/plain fetch, a
no-cors fetch, a form post). The page reports each fetch as failed, and the control API shows
nothing moved. The dashboard itself, served by the emulator, still connects and updates.
"""

import http.server
import os
import socketserver
import sys
import threading
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402
from test_dashboard import CHROMIUM, Browser  # noqa: E402

PAGE = """<!doctype html>
<html><body>
<pre id="log"></pre>
<form id="f" method="POST" action="{base}/emulator/v1/reset" enctype="text/plain" target="sink">
  <input name='{{"x":"' value='"}}'>
</form>
<iframe name="sink"></iframe>
<script>
const base = "{base}";
const results = {{}};
async function attempt(name, url, init) {{
  try {{
    const r = await fetch(url, init);
    // An opaque no-cors answer hides its status; only a readable one counts as a success.
    results[name] = r.type === "opaque" ? "opaque" : ("read " + r.status + " " + await r.text());
  }} catch (e) {{
    results[name] = "failed: " + e.message;
  }}
}}
(async () => {{
  await attempt("read-state", base + "/emulator/v1/state");
  await attempt("advance", base + "/emulator/v1/clock/advance",
                {{method: "POST", headers: {{"Content-Type": "text/plain"}},
                  body: JSON.stringify({{seconds: 3600}})}});
  await attempt("advance-no-cors", base + "/emulator/v1/clock/advance",
                {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                  body: JSON.stringify({{seconds: 3600}})}});
  await attempt("cloudru-auth", base + "/public/v2/service_auth",
                {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                  body: JSON.stringify({{client_id: "x", client_secret: "y"}})}});
  document.getElementById("f").submit();
  document.getElementById("log").textContent = JSON.stringify(results);
  window.done = results;
}})();
</script>
</body></html>
"""


class OtherOrigin:
    """A second local origin: a plain HTTP server on another port that serves the hostile page."""

    def __init__(self, page):
        body = page.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = socketserver.TCPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d/" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def refused(server, dialect):
    """How many requests the guard refused on a dialect's routes, from GET /metrics."""
    with urllib.request.urlopen(server.base_url + "/metrics", timeout=30) as r:
        text = r.read().decode()
    label = 'schedemu_http_requests_total{route="%s.refused",status="403"} ' % dialect
    return sum(int(line[len(label):]) for line in text.splitlines() if line.startswith(label))


def main():
    check = tl.Check("cross_origin")
    if not os.path.exists(CHROMIUM):
        check(False, "%s is missing: scripts/setup.sh installs Debian's chromium" % CHROMIUM)
        check.finish()
    server = tl.Server().start()
    other = OtherOrigin(PAGE.format(base=server.base_url))
    browser = None
    try:
        before = server.control("GET", "clock")["elapsed_seconds"]
        jobs_before = len(server.control("GET", "jobs")["jobs"])
        server.advance(5)  # something a reset would undo
        moved = server.control("GET", "clock")["elapsed_seconds"]
        check.eq(moved, before + 5, "the clock moves through the control API itself")

        browser = Browser()
        browser.goto(other.url)
        results = browser.wait_for("window.done", timeout=30)
        check(results, "the hostile page ran its attempts: %r" % results)
        results = results or {}
        for name in ("read-state", "advance"):
            check(str(results.get(name, "")).startswith("failed"),
                  "the page cannot %s: %r" % (name, results.get(name)))
        for name in ("advance-no-cors", "cloudru-auth"):
            check(results.get(name) in ("opaque",) or str(results.get(name, "")).startswith(
                "failed"), "a no-cors %s gives the page nothing to read: %r"
                  % (name, results.get(name)))
        # All four attempts on the control API (the form post included) arrived and were refused.
        check(tl.wait_until(lambda: refused(server, "control") >= 4),
              "the control API refused 4 requests: %d" % refused(server, "control"))
        check(refused(server, "cloudru") >= 1, "Cloud.ru refused the service_auth attempt")
        check.eq(server.control("GET", "clock")["elapsed_seconds"], moved,
                 "no cross-origin request moved the clock or reset the world")
        check.eq(len(server.control("GET", "jobs")["jobs"]), jobs_before, "no job appeared")

        # The dashboard, from the emulator's own origin, still connects and updates.
        browser.goto(server.base_url + "/")
        check(browser.wait_for("document.querySelector('[data-conn]')?.dataset.conn === 'live'"),
              "the dashboard connects to the event stream")
        browser.page.evaluate("document.querySelector('[data-advance=\"60\"]').click(), true")
        check(tl.wait_until(lambda: server.control("GET", "clock")["elapsed_seconds"]
                            == moved + 60), "the dashboard's +1m button (same origin) works")
    finally:
        if browser:
            browser.close()
        other.close()
        server.stop()
    check.finish()


if __name__ == "__main__":
    main()
