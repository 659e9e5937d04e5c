"""Browser test of the live dashboard (issue 8) in headless Debian Chromium.

Serves the dashboard from the real binary, loads the Cloud.ru documentation example
(examples/cloudru-shared-cluster.json) through the control API, plays its story through the public
APIs and asserts on the live DOM (no page reloads; updates arrive over the event stream):
  * the 4-GPU shared-cluster job shows on GPUs of both alloc-1 and alloc-2;
  * after the alloc-1 owner's high-priority job, it shows as preempted, the preemptor named
    (job table, job panel, timeline), and the owner's job holds alloc-1's GPUs;
  * after a server restart on the same port the page reconnects and shows the new world.
Saves a screenshot to $SCHEDEMU_ARTIFACTS/dashboard.png (default build/artifacts/dashboard.png);
with SCHEDEMU_UPDATE_DOCS=1 also to docs/dashboard.png (the README's picture).

Chromium is driven over the DevTools protocol with a small stdlib websocket client. A missing
/usr/bin/chromium is a failure (scripts/setup.sh installs it), not a skip.
"""

import base64
import http.client as http_client
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402

CHROMIUM = os.environ.get("SCHEDEMU_CHROMIUM", "/usr/bin/chromium")
EXAMPLE = "cloudru-shared-cluster"
# Jobs of the big-world check (fewer when the binary is built with a sanitizer: SCHEDEMU_SANITIZE).
BIG_JOBS = 500 if os.environ.get("SCHEDEMU_SANITIZE", "") else 2500
IMAGE = "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"


# ---------------------------------------------------------------------------------------------
# A minimal DevTools-protocol client (RFC 6455 websocket, text frames, client masking).
# ---------------------------------------------------------------------------------------------

class DevTools:
    def __init__(self, ws_url, timeout=30):
        assert ws_url.startswith("ws://")
        hostport, path = ws_url[5:].split("/", 1)
        host, port = hostport.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET /%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\n"
                           "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n" % (path, hostport, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("devtools handshake: connection closed")
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise RuntimeError("devtools handshake failed: %r" % status)
        self.buf = head.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _recv_exact(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise RuntimeError("devtools: connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def _send(self, text):
        payload = text.encode()
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _recv_message(self):
        data = b""
        while True:
            b0, b1 = self._recv_exact(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._recv_exact(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._recv_exact(8))[0]
            if b1 & 0x80:
                self._recv_exact(4)  # servers do not mask; tolerate it anyway
            payload = self._recv_exact(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise RuntimeError("devtools: websocket closed")
            if opcode in (0x9, 0xA):
                continue  # ping/pong
            data += payload
            if b0 & 0x80:
                return data.decode()

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self._send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self._recv_message())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True,
                      awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError("page exception: %s" % json.dumps(r["exceptionDetails"])[:500])
        return r["result"].get("value")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="schedemu-chromium-")
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
             "--user-data-dir=" + self.profile, "--remote-debugging-port=0",
             "--remote-debugging-address=127.0.0.1", "--window-size=1600,1000", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + 30
        port = None
        while time.time() < deadline and port is None:
            if self.proc.poll() is not None:
                raise RuntimeError("chromium exited with %s" % self.proc.returncode)
            try:
                with open(port_file) as f:
                    port = int(f.readline().strip())
            except (OSError, ValueError):
                time.sleep(0.1)
        if port is None:
            self.close()
            raise RuntimeError("chromium did not open a DevTools port")
        targets = []
        while time.time() < deadline and not targets:
            with urllib.request.urlopen("http://127.0.0.1:%d/json/list" % port, timeout=10) as r:
                targets = [t for t in json.load(r) if t.get("type") == "page"]
            if not targets:
                time.sleep(0.1)
        self.page = DevTools(targets[0]["webSocketDebuggerUrl"])
        self.page.call("Page.enable")
        self.page.call("Runtime.enable")
        self.page.call("Emulation.setDeviceMetricsOverride", width=1600, height=1000,
                       deviceScaleFactor=1, mobile=False)

    def goto(self, url):
        self.page.call("Page.navigate", url=url)

    def wait_for(self, expression, timeout=20.0):
        """Polls a JS expression until it is truthy; returns its value (None on timeout)."""
        deadline = time.time() + timeout
        value = None
        while time.time() < deadline:
            try:
                value = self.page.evaluate(expression)
            except RuntimeError:
                value = None
            if value:
                return value
            time.sleep(0.1)
        return None

    def screenshot(self, path):
        height = self.page.evaluate("Math.ceil(document.documentElement.scrollHeight)") or 1000
        height = max(1000, min(int(height), 2400))
        r = self.page.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                           clip={"x": 0, "y": 0, "width": 1600, "height": height, "scale": 1})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        if getattr(self, "page", None):
            self.page.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# HTTP helpers
# ---------------------------------------------------------------------------------------------

def http(method, url, body=None, headers=None):
    data = None
    hdrs = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        hdrs.setdefault("Content-Type", "application/json")
    req = urllib.request.Request(url, data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def cloudru_submit(server, body):
    status, _, raw = http("POST", server.base_url + "/public/v2/service_auth",
                          {"client_id": tl.DEMO_CLIENT[0], "client_secret": tl.DEMO_CLIENT[1]})
    assert status == 200, raw
    token = json.loads(raw)["token"]["access_token"]
    status, _, raw = http("POST", server.base_url + "/public/v2/jobs", body,
                          {"authorization": token, "x-api-key": tl.DEMO_API_KEY,
                           "x-workspace-id": tl.DEMO_WORKSPACE})
    assert status == 200, "submit: %s %s" % (status, raw)
    return json.loads(raw)["job_name"]


def submit_and_advance(server, seconds, **fields):
    """Submits a pytorch2 job in SR008, advances the clock, returns (name, control-API view)."""
    name = cloudru_submit(server, dict({"base_image": IMAGE, "region": "SR008",
                                        "type": "pytorch2"}, **fields))
    server.advance(seconds)
    return name, server.control("GET", "jobs/" + name)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# DOM probes (evaluated in the page).
JS_PICKED = "document.querySelector('#example')?.selectedOptions[0]?.value"
JS_GPUS_OF = """(() => {
  const cells = [...document.querySelectorAll('[data-gpu][data-job="%d"]')];
  return cells.map(c => ({gpu: c.dataset.gpu,
                          alloc: c.closest('[data-allocation]')?.dataset.allocation || null}));
})()"""
JS_ROW = """(() => {
  const r = document.querySelector('[data-job-row="%d"]');
  return r ? {state: r.dataset.state, status: r.dataset.status,
              by: r.dataset.preemptedBy || null, text: r.textContent} : null;
})()"""


def main():
    check = tl.Check("dashboard")
    if not os.path.exists(CHROMIUM):
        check(False, "%s is missing: scripts/setup.sh installs Debian's chromium" % CHROMIUM)
        check.finish()
    artifacts = os.environ.get("SCHEDEMU_ARTIFACTS",
                               os.path.join(tl.SOURCE_DIR, "build", "artifacts"))
    os.makedirs(artifacts, exist_ok=True)
    shot = os.path.join(artifacts, "dashboard.png")

    port = free_port()
    server = tl.Server("--port", str(port)).start()
    browser = None
    try:
        base = server.base_url
        check.eq(server.port, port, "serve honours --port")

        # ---- static files and the examples backend ---------------------------------------
        status, hdrs, body = http("GET", base + "/")
        check.eq(status, 200, "GET /")
        check.eq(hdrs.get("Content-Type"), "text/html; charset=utf-8", "GET / content type")
        check(b'<script type="module" src="/static/app.js">' in body, "index.html loads app.js")
        status2, _, body2 = http("GET", base + "/index.html")
        check(status2 == 200 and body2 == body, "GET /index.html is the same page")
        for path, ctype in (("/static/app.js", "text/javascript; charset=utf-8"),
                            ("/static/style.css", "text/css; charset=utf-8"),
                            ("/static/favicon.svg", "image/svg+xml")):
            status, hdrs, body = http("GET", base + path)
            check.eq(status, 200, "GET " + path)
            check.eq(hdrs.get("Content-Type"), ctype, path + " content type")
            src = os.path.join(tl.SOURCE_DIR, "dashboard", path[len("/static/"):])
            with open(src, "rb") as f:
                check(body == f.read(), path + " is the embedded dashboard/ file byte for byte")
        for bad in ("/static/nope.js", "/static/../api/routes.cc", "/static/", "/no/such/path"):
            status, _, body = http("GET", base + bad)
            check.eq(status, 404, "GET " + bad)
            check.eq(json.loads(body or b"null"), {"detail": "Not Found"}, "404 body of " + bad)
        status, _, body = http("POST", base + "/")
        check.eq(status, 405, "POST / is not allowed")
        status, _, body = http("GET", base + "/dashboard-api/examples")
        check.eq(status, 200, "GET /dashboard-api/examples")
        listed = {e["name"]: e for e in json.loads(body)["examples"]}
        on_disk = {f[:-5] for f in os.listdir(os.path.join(tl.SOURCE_DIR, "examples"))
                   if f.endswith(".json") and f != "scenario.schema.json"}
        check.eq(set(listed), on_disk, "every examples/*.json scenario is listed")
        check(EXAMPLE in listed and "preempt" in listed[EXAMPLE].get("description", ""),
              "the documentation example is listed with its description")
        status, _, example_text = http("GET", base + "/dashboard-api/examples/" + EXAMPLE)
        check.eq(status, 200, "GET the example")
        with open(os.path.join(tl.SOURCE_DIR, "examples", EXAMPLE + ".json"), "rb") as f:
            check(example_text == f.read(), "the embedded example is the file byte for byte")
        status, _, body = http("GET", base + "/dashboard-api/examples/no-such-example")
        check.eq(status, 404, "unknown example")
        check.eq(json.loads(body).get("field"), "name", "unknown example names the field")
        status, _, _ = http("GET", base + "/dashboard-api/examples/scenario.schema")
        check.eq(status, 404, "the JSON Schema is not offered as a scenario")

        # ---- the scenario picker shows the loaded scenario ------------------------------------
        check.eq(server.state().get("scenario"), {"name": "default"},
                 "GET /state names the loaded scenario")
        browser = Browser()
        browser.goto(base + "/")
        check.eq(browser.wait_for(JS_PICKED + " === 'default' && " + JS_PICKED), "default",
                 "the picker shows the loaded default scenario, not the first example")

        # ---- the documentation example, loaded through the control API ---------------------
        status, _, body = http("POST", base + "/emulator/v1/scenario", example_text)
        check.eq(status, 200, "POST scenario: %s" % body[:200])
        check.eq(browser.wait_for(JS_PICKED + " === %r && %s" % (EXAMPLE, JS_PICKED)), EXAMPLE,
                 "the picker follows a scenario loaded elsewhere (the control API)")
        for alloc in ("alloc-1", "alloc-2"):  # timeline at 0: other tenants hold 6 of 8 GPUs
            server.control("POST", "allocations/%s/take-gpus" % alloc, {"count": 6})

        browser.goto(base + "/")
        check(browser.wait_for("document.querySelector('[data-conn]')?.dataset.conn === 'live'"),
              "the page connects to the event stream")
        check(browser.wait_for("document.querySelectorAll('[data-gpu]').length === 16"),
              "the page shows the 16 GPUs of the two allocations")
        others = browser.page.evaluate(
            "document.querySelectorAll('[data-gpu-state=\"other-tenants\"]').length")
        check.eq(others, 12, "other tenants' GPUs are shown as such")

        server.advance(10)
        _, shared = submit_and_advance(
            server, 10, script="/home/jovyan/training/model_train.py",
            instance_type="a100.2gpu.32C.976G", queue_name="shared-cluster", n_workers=2,
            job_desc="4-GPU job on the shared cluster")
        check.eq(shared["state"], "RUNNING", "the shared job runs (control API)")

        gpus = browser.wait_for(
            "(() => { const g = %s; return g.length === 4 ? g : null; })()"
            % (JS_GPUS_OF % shared["id"]))
        check(gpus, "the spanning job shows on 4 GPUs without a reload")
        allocs = sorted({g["alloc"] for g in gpus or []})
        check.eq(allocs, ["alloc-1", "alloc-2"], "the spanning job is on GPUs of both allocations")
        check(browser.wait_for(
            "document.querySelector('[data-borrowed=\"alloc-1\"]')?.dataset.gpus === '2' && "
            "document.querySelector('[data-borrowed=\"alloc-2\"]')?.dataset.gpus === '2'"),
            "the shared queue shows 2 borrowed GPUs per allocation")
        row = browser.page.evaluate(JS_ROW % shared["id"])
        check(row and row["state"] == "RUNNING" and not row["by"], "job row: running: %r" % row)

        # ---- the owner's high-priority job preempts it --------------------------------------
        server.control("POST", "clock/set", {"time": shared_start_plus(server, 300)})
        owner_name, owner = submit_and_advance(
            server, 1, script="/home/jovyan/train.py", instance_type="a100.2gpu.32C.976G",
            allocation_name="alloc-1", priority_class="high", n_workers=1,
            job_desc="alloc-1 owner needs its GPUs back")
        check.eq(owner["state"], "RUNNING", "the owner's job runs (control API)")

        row = browser.wait_for(
            "(() => { const r = %s; return r && r.by ? r : null; })()" % (JS_ROW % shared["id"]))
        check(row, "the job row names a preemptor (live update)")
        if row:
            check.eq(row["by"], owner_name, "the preemptor is the owner's job")
            check.eq(row["state"], "PREEMPTED", "the shared job shows as preempted")
            check.eq(row["status"], "Terminated", "Cloud.ru wire status of a preempted job")
            check(owner_name in row["text"], "the preemptor's name is visible in the row")
        check.eq(browser.page.evaluate(JS_GPUS_OF % shared["id"]), [],
                 "the preempted job holds no GPUs any more")
        owner_gpus = browser.page.evaluate(JS_GPUS_OF % owner["id"])
        check.eq(sorted({g["alloc"] for g in owner_gpus}), ["alloc-1"],
                 "the owner's job shows on alloc-1's GPUs")
        check.eq(len(owner_gpus), 2, "the owner's job holds 2 GPUs")
        bars = browser.page.evaluate(
            "[...document.querySelectorAll('[data-bar][data-job=\"%d\"]')]"
            ".map(b => ({node: b.dataset.barNode, gpus: b.dataset.barGpus,"
            " by: b.dataset.preemptedBy || null}))" % shared["id"])
        check.eq(sum(len(b["gpus"].split(",")) for b in bars), 4,
                 "the timeline has the shared job's run on 4 GPUs: %r" % bars)
        check.eq(len(bars), len({b["node"] for b in bars}),
                 "one bar per node of the run (the node's GPU lanes inside its row)")
        check(bars and all(b["by"] == owner_name for b in bars),
              "the timeline marks the run as preempted by the owner: %r" % bars)

        # The job panel (GET /emulator/v1/jobs/{id}) names the preemptor too.
        browser.page.evaluate(
            "document.querySelector('[data-job-row=\"%d\"]').click(), true" % shared["id"])
        panel_by = browser.wait_for(
            "(() => { const p = document.querySelector('[data-job-panel]');"
            " if (!p || p.hidden || p.dataset.job !== '%d') return null;"
            " return p.querySelector('[data-preempted-by]')?.dataset.preemptedBy; })()"
            % shared["id"])
        check.eq(panel_by, owner_name, "the job panel names the preemptor")
        history = browser.page.evaluate(
            "[...document.querySelectorAll('[data-job-panel] .history [data-kind]')]"
            ".map(li => li.dataset.kind)")
        check(history and history[:3] == ["submitted", "started", "preempted"],
              "the job panel's state history: %r" % history)
        output = browser.page.evaluate(
            "document.querySelector('[data-job-panel] pre.output')?.textContent || ''")
        check("preempted" in output.lower(),
              "the job panel shows the job's output, with the preemption line: %r" % output)

        # Filters: state PREEMPTED leaves only the shared job.
        browser.page.evaluate(
            "(() => { const s = document.querySelector('[data-filter=state]');"
            " s.value = 'PREEMPTED'; s.dispatchEvent(new Event('change')); return true; })()")
        rows = browser.page.evaluate(
            "[...document.querySelectorAll('[data-job-row]')].map(r => +r.dataset.jobRow)")
        check.eq(rows, [shared["id"]], "the state filter shows only the preempted job")
        browser.page.evaluate(
            "(() => { const s = document.querySelector('[data-filter=state]');"
            " s.value = ''; s.dispatchEvent(new Event('change')); return true; })()")

        # ---- clock controls drive the control API -------------------------------------------
        before = server.control("GET", "clock")["elapsed_seconds"]
        browser.page.evaluate("document.querySelector('[data-advance=\"60\"]').click(), true")
        check(tl.wait_until(lambda: server.control("GET", "clock")["elapsed_seconds"]
                            == before + 60), "the +1m button advances the virtual clock")
        check(browser.wait_for(
            "document.querySelector('[data-clock]').dataset.now === %s"
            % json.dumps(server.control("GET", "clock")["now"])), "the page shows the new time")

        # The picture: a minute after the preemption, the job panel open on the preempted job.
        browser.page.evaluate("window.scrollTo(0, 0), true")
        time.sleep(0.3)
        browser.screenshot(shot)
        with open(shot, "rb") as f:
            check(f.read(8) == b"\x89PNG\r\n\x1a\n", "screenshot saved: " + shot)
        if os.environ.get("SCHEDEMU_UPDATE_DOCS") == "1":
            os.makedirs(os.path.join(tl.SOURCE_DIR, "docs"), exist_ok=True)
            shutil.copyfile(shot, os.path.join(tl.SOURCE_DIR, "docs", "dashboard.png"))


        # ---- a server restart: the page reconnects and re-fetches ---------------------------
        server.stop()
        check(browser.wait_for("document.querySelector('[data-conn]').dataset.conn === 'down'"),
              "the page notices the server went away")
        server = tl.Server("--port", str(port)).start()
        check(browser.wait_for(
            "document.querySelector('[data-conn]').dataset.conn === 'live' && "
            "document.querySelector('[data-cluster=\"demo-cluster\"]') !== null && "
            "document.querySelectorAll('[data-job-row]').length === 0", timeout=30),
            "after the restart the page shows the new world (default scenario, no jobs)")
    finally:
        if browser:
            browser.close()
        server.stop()
    big_world(check, artifacts)
    check.finish()


def big_world(check, artifacts):
    """bench/scenarios/big.json (1,250 nodes x 8 GPUs) with a few thousand Slurm jobs: the
    timeline has one row per node that ran something and folds the idle ones, the capacity panel
    folds its idle nodes, and a full render stays fast."""
    with open(os.path.join(tl.SOURCE_DIR, "bench", "scenarios", "big.json")) as f:
        scenario = json.load(f)
    scenario["principals"] = [{"email": "u1@example.com", "token": "big-token",
                               "projects": ["bench-project"], "linux_user": "u1"}]
    fd, path = tempfile.mkstemp(prefix="schedemu-big-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(scenario, f)
    server = tl.Server("--scenario", path).start()
    browser = None
    try:
        cluster = scenario["slurm_clusters"][0]
        envelope = "/v1beta1/projects/%s/locations/%s/modelDevelopmentClusters/%s:callSlurmRestApi" % (
            cluster["project"], cluster["location"], cluster["name"])
        conn = http_client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        rnd = random.Random(18)
        accepted = 0
        t0 = time.time()
        for i in range(BIG_JOBS):
            gpus = rnd.choice([1, 1, 1, 2, 2, 4, 8])
            nodes = 1 if rnd.random() < 0.9 else 2
            runtime = rnd.choice([60, 300, 900, 3600, 7200])
            job = {"job": {"name": "big-%d" % i, "partition": rnd.choice(["batch", "batch", "spot"]),
                           "current_working_directory": "/home/u1",
                           "environment": ["PATH=/bin", "SCHEDEMU_RUNTIME=%ds" % runtime],
                           "minimum_nodes": nodes, "tres_per_node": "gres/gpu:%d" % gpus,
                           "time_limit": {"set": True, "number": 240}},
                   "script": "#!/bin/bash\nsrun train\n"}
            conn.request("POST", envelope, json.dumps(
                {"method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit", "body": job}),
                {"Authorization": "Bearer big-token", "Content-Type": "application/json"})
            r = conn.getresponse()
            env = json.loads(r.read() or b"{}")
            accepted += 1 if r.status == 200 and env.get("status") == 200 else 0
            if i % 100 == 99:
                server.advance(120)
        conn.close()
        check.eq(accepted, BIG_JOBS, "big world: every submit accepted")
        print("big world: %d jobs submitted in %.1f s" % (accepted, time.time() - t0))
        state = server.state()
        nodes = {n["name"]: n for n in state["nodes"]}
        started = {j["id"] for j in state["jobs"] if j.get("started_at")}

        browser = Browser()
        browser.goto(server.base_url + "/")
        check(browser.wait_for("+(document.querySelector('#timeline')?.dataset.bars || 0) > 0",
                               timeout=60), "big world: the timeline renders")
        time.sleep(0.5)  # let the last refresh settle
        probe = browser.page.evaluate("""(() => {
          const tl = document.querySelector('#timeline');
          const bars = [...tl.querySelectorAll('[data-bar]')];
          const fold = tl.querySelector('[data-tl-idle]');
          const cap = document.querySelector('[data-cap-idle]');
          return {rows: tl.querySelectorAll('[data-tl-node]').length,
                  barNodes: [...new Set(bars.map(b => b.dataset.barNode))].length,
                  jobs: [...new Set(bars.map(b => +b.dataset.job))],
                  idle: fold ? +fold.dataset.count : 0,
                  capIdle: cap ? +cap.dataset.count : 0,
                  gpuCells: document.querySelectorAll('[data-gpu]').length,
                  elements: document.querySelectorAll('*').length,
                  renderMs: +tl.dataset.renderMs, parts: tl.dataset.renderParts,
                  loaded: document.querySelector('#example').dataset.loaded,
                  picked: document.querySelector('#example').selectedOptions[0]?.textContent};
        })()""")
        print("big world: %r" % {k: v for k, v in probe.items() if k != "jobs"})
        check.eq(probe["loaded"], "big", "big world: the picker knows the loaded scenario")
        check(probe["picked"] == "big (loaded)", "big world: the picker shows it although it is "
              "not an example: %r" % probe["picked"])
        check.eq(probe["rows"], probe["barNodes"], "big world: one timeline row per node that ran")
        check.eq(probe["rows"] + probe["idle"], len(nodes),
                 "big world: every other node folded into the idle line")
        check(probe["idle"] > 0, "big world: some nodes never ran anything (folded)")
        check.eq(set(probe["jobs"]), started, "big world: every started job has its bars")
        idle_now = sum(1 for n in nodes.values() if n["state"] == "up"
                       and all(o is None for o in n["gpu_owners"]))
        check.eq(probe["capIdle"], idle_now, "big world: the capacity panel folds its idle nodes")
        check.eq(probe["gpuCells"], 8 * (len(nodes) - idle_now),
                 "big world: GPU cells only for the nodes not folded")
        # The render time is reported, not asserted (a wall-clock bound fails on a loaded machine,
        # not on slow code: it did at 1,667 ms beside a benchmark); speed is measured in bench/.
        print("big world: a full render took %.0f ms (%s)" % (probe["renderMs"], probe["parts"]))
        shot = os.path.join(artifacts, "dashboard-big.png")
        browser.screenshot(shot)

        # Unfolding the idle nodes shows all 1,250 rows, still fast.
        browser.page.evaluate("document.querySelector('[data-tl-idle]').click(), true")
        rows = browser.wait_for("(() => { const n = document.querySelectorAll('[data-tl-node]')"
                                ".length; return n > %d ? n : 0; })()" % probe["rows"])
        check.eq(rows, len(nodes), "big world: the idle line unfolds into every node's row")
        ms = browser.page.evaluate("+document.querySelector('#timeline').dataset.renderMs")
        print("big world: unfolded render %.0f ms" % ms)
        if os.environ.get("SCHEDEMU_UPDATE_DOCS") == "1":
            shutil.copyfile(shot, os.path.join(tl.SOURCE_DIR, "docs", "dashboard-big.png"))
    finally:
        if browser:
            browser.close()
        server.stop()
        os.unlink(path)


def shared_start_plus(server, seconds):
    """Unix time `seconds` after the scenario start."""
    clock = server.control("GET", "clock")
    return clock["now_unix"] - clock["elapsed_seconds"] + seconds


if __name__ == "__main__":
    main()
