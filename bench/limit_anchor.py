#!/usr/bin/python3
"""The limit anchor (issue #19): per hot route, our rate against nginx serving the same answer.

For each hot route the live answer of `schedemu serve` is captured (status 200, its body and
Content-Type), written to a file, and nginx (Debian's, worker_processes = our server threads,
keep-alive, access log off) serves that file. Both are then driven by the same load driver
(bench/http_load) with the same connections and duration, one after the other in the same run:
ours on the live route, nginx on the static copy. Submits are compared with nginx answering the
POST with a fixed body (the captured submit answer). The fraction is ours / nginx.

Routes: Slurm GET job/{id} (direct), GET jobs with 1,000 and 10,000 jobs, the Vertex envelope
GET job/{id}, Cloud.ru GET jobs/{name} and GET jobs?limit=10, and the three submits.

With SCHEDEMU_BENCH_BASELINE (a schedemu binary built from an earlier commit) each route is also
driven on that binary, between ours and nginx in the same run: before / after / limit, and whether
the two answered the same bytes.

Environment (defaults in brackets):
  SCHEDEMU_BENCH_BUILD [build/bench]  where schedemu and http_load are (server/, bench/)
  SCHEDEMU_NGINX [nginx on PATH, else /usr/sbin/nginx]
  SCHEDEMU_BENCH_DURATION [10] seconds per run, SCHEDEMU_BENCH_CONNECTIONS [64]
  SCHEDEMU_BENCH_THREADS [2] our --threads and nginx worker_processes
  SCHEDEMU_BENCH_LIMIT_JOBS_CONNECTIONS [8] connections for the GET jobs (1k/10k) runs
  SCHEDEMU_BENCH_BASELINE [unset] an earlier schedemu binary to measure beside ours
  SCHEDEMU_BENCH_ROUTES [all] comma-separated substrings: only the routes whose key has one
Writes bench/results/limit.json and limit.md; prints the table.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("SCHEDEMU_BENCH_BUILD", os.path.join(ROOT, "build", "bench"))
SCHEDEMU = os.path.join(BUILD, "server", "schedemu")
HTTP_LOAD = os.path.join(BUILD, "bench", "http_load")
DURATION = float(os.environ.get("SCHEDEMU_BENCH_DURATION", "10"))
CONNECTIONS = int(os.environ.get("SCHEDEMU_BENCH_CONNECTIONS", "64"))
THREADS = int(os.environ.get("SCHEDEMU_BENCH_THREADS", "2"))
JOBS_CONNECTIONS = int(os.environ.get("SCHEDEMU_BENCH_LIMIT_JOBS_CONNECTIONS", "8"))
BASELINE = os.environ.get("SCHEDEMU_BENCH_BASELINE", "")
ROUTES = [r for r in os.environ.get("SCHEDEMU_BENCH_ROUTES", "").split(",") if r]
WORK = tempfile.mkdtemp(prefix="schedemu-limit-")
os.chmod(WORK, 0o755)  # nginx workers run as nobody when started by root

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402  (request helpers, headers, job bodies)


def nginx_binary():
    b = os.environ.get("SCHEDEMU_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
    if not os.path.exists(b):
        raise SystemExit("limit anchor: nginx not found (apt-get install nginx-light or set "
                         "SCHEDEMU_NGINX)")
    return b


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class Nginx:
    def __init__(self, root):
        self.port = free_port()
        conf = os.path.join(WORK, "nginx.conf")
        with open(conf, "w") as f:
            f.write("""worker_processes %d;
daemon off;
pid %s/nginx.pid;
error_log %s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  sendfile on; tcp_nopush on; tcp_nodelay on;
  keepalive_requests 100000000; keepalive_timeout 600;
  client_body_temp_path %s/body; proxy_temp_path %s/proxy; fastcgi_temp_path %s/fcgi;
  uwsgi_temp_path %s/uwsgi; scgi_temp_path %s/scgi;
  client_max_body_size 16m;
  types { } default_type application/json;
  server {
    listen 127.0.0.1:%d reuseport;
    root %s;
    location /post/ { error_page 405 =200 $uri; }
  }
}
""" % (THREADS, WORK, WORK, WORK, WORK, WORK, WORK, WORK, self.port, root))
        self.proc = subprocess.Popen([nginx_binary(), "-c", conf, "-p", WORK],
                                     stderr=subprocess.PIPE)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("nginx did not start")

    def stop(self):
        self.proc.send_signal(signal.SIGQUIT)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def load(port, tpl, label, connections):
    rb.CONNECTIONS, rb.DURATION = connections, DURATION
    r = rb.http_load(port, [tpl], label, duration=DURATION, connections=connections)
    t = r["total"]
    bad = r["errors"] + r.get("unexpected_status", 0)
    return {"rps": t["rps"], "p50_ms": t["p50_ms"], "p99_ms": t["p99_ms"], "errors": bad}


def capture(port, tpl):
    """Our live answer to the template: (body bytes) with status 200 required."""
    body = tpl.get("body")
    data = json.dumps(body) if body is not None and not isinstance(body, str) else body
    st, txt, _ = rb.request(port, tpl["method"], tpl["target"], data, tpl.get("headers"))
    if st != 200:
        raise RuntimeError("%s %s answered %d: %s" % (tpl["method"], tpl["target"], st, txt[:200]))
    return txt


def start(binary):
    """`schedemu serve` of `binary` (ours or the baseline)."""
    rb.SCHEDEMU = binary
    try:
        return rb.Server(["--threads", str(THREADS)])
    finally:
        rb.SCHEDEMU = SCHEDEMU


def wanted(key):
    return not ROUTES or any(r in key for r in ROUTES)


def measure(results, port, docroot, nginx_port, key, tpl, connections, base=None):
    """`base`: (port, template) of the baseline server for the same route, or None."""
    body = capture(port, tpl)
    rel = ("post/" if tpl["method"] == "POST" else "get/") + re.sub(r"[^A-Za-z0-9]+", "_", key)
    with open(os.path.join(docroot, rel), "wb") as f:
        f.write(body)
    static = {"method": tpl["method"], "target": "/" + rel}
    if tpl["method"] == "POST":
        static["body"] = tpl.get("body")
        static["headers"] = {"Content-Type": "application/json"}
    entry = {"route": key, "bytes": len(body), "connections": connections}
    if base is not None:
        base_body = capture(base[0], base[1])
        entry["same_bytes_as_before"] = base_body == body
    entry["ours"] = load(port, tpl, "ours " + key, connections)
    if base is not None:
        entry["before"] = load(base[0], base[1], "before " + key, connections)
    entry["nginx"] = load(nginx_port, static, "nginx " + key, connections)
    limit = entry["nginx"]["rps"]
    entry["fraction"] = entry["ours"]["rps"] / limit if limit else 0.0
    line = "%-34s %8d B  ours %9.0f" % (key, len(body), entry["ours"]["rps"])
    if base is not None:
        entry["before_fraction"] = entry["before"]["rps"] / limit if limit else 0.0
        line += "  before %9.0f (%.2f)" % (entry["before"]["rps"], entry["before_fraction"])
    line += "  nginx %9.0f req/s  fraction %.2f" % (limit, entry["fraction"])
    results.append(entry)
    print(line, flush=True)


def hot_routes(port):
    """The hot routes on a fresh server: one Cloud.ru and one Slurm job submitted first."""
    ch = rb.cloudru_headers(port)
    st, body, _ = rb.request(port, "POST", "/public/v2/jobs", rb.CLOUDRU_JOB, ch)
    cloud_name = json.loads(body)["job_name"]
    st, body, _ = rb.request(port, "POST", "/slurm/v0.0.42/job/submit", rb.slurm_job(),
                             dict(rb.SLURM_HDR))
    slurm_id = json.loads(body)["job_id"]
    envelope = "/v1beta1/" + rb.CLUSTER + ":callSlurmRestApi"
    return [
        ("slurm GET job/{id}", {"method": "GET", "target": "/slurm/v0.0.42/job/%d" %
                                slurm_id, "headers": rb.SLURM_HDR}),
        ("vertex envelope GET job/{id}", {
            "method": "POST", "target": envelope, "headers": rb.VERTEX_HDR, "body": {
                "method": "HTTP_METHOD_GET",
                "path": "/slurm/v0.0.42/job/%d" % slurm_id}}),
        ("cloudru GET jobs/{name}", {"method": "GET", "target": "/public/v2/jobs/" +
                                     cloud_name, "headers": ch}),
        ("cloudru GET jobs?limit=10", {"method": "GET", "target":
                                       "/public/v2/jobs?limit=10&region=SR008",
                                       "headers": ch}),
        ("cloudru POST jobs", {"method": "POST", "target": "/public/v2/jobs",
                               "headers": ch, "body": rb.CLOUDRU_JOB}),
        ("slurm POST job/submit", {"method": "POST", "target":
                                   "/slurm/v0.0.42/job/submit", "headers": rb.SLURM_HDR,
                                   "body": rb.slurm_job()}),
        ("vertex envelope POST job/submit", {
            "method": "POST", "target": envelope, "headers": rb.VERTEX_HDR, "body": {
                "method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit",
                "body": rb.slurm_job()}}),
    ]


def main():
    shutil.rmtree(rb.WORK, ignore_errors=True)  # run_bench's own scratch, unused here
    rb.SCHEDEMU, rb.HTTP_LOAD, rb.WORK = SCHEDEMU, HTTP_LOAD, WORK
    docroot = os.path.join(WORK, "www")
    os.makedirs(os.path.join(docroot, "get"))
    os.makedirs(os.path.join(docroot, "post"))
    ng = Nginx(docroot)
    results = []
    try:
        srv = start(SCHEDEMU)
        base = start(BASELINE) if BASELINE else None
        try:
            hot = hot_routes(srv.port)
            base_hot = hot_routes(base.port) if base else None
            for i, (key, tpl) in enumerate(hot):
                if wanted(key):
                    measure(results, srv.port, docroot, ng.port, key, tpl, CONNECTIONS,
                            (base.port, base_hot[i][1]) if base else None)
        finally:
            srv.stop()
            if base:
                base.stop()
        for n in (1000, 10000):
            key = "slurm GET jobs (%d jobs)" % n
            if not wanted(key):
                continue
            srv = start(SCHEDEMU)
            base = start(BASELINE) if BASELINE else None
            try:
                tpl = {"method": "GET", "target": "/slurm/v0.0.42/jobs", "headers": rb.SLURM_HDR}
                for s in [srv] + ([base] if base else []):
                    rb.preload_slurm(s.port, n, rb.SLURM_HDR, "/slurm/v0.0.42/job/submit",
                                     rb.slurm_job(hold=True))
                measure(results, srv.port, docroot, ng.port, key, tpl, JOBS_CONNECTIONS,
                        (base.port, tpl) if base else None)
            finally:
                srv.stop()
                if base:
                    base.stop()
    finally:
        ng.stop()
    out = {"machine": rb.machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
           "duration_s": DURATION, "threads": THREADS, "routes": results}
    os.makedirs(os.path.join(ROOT, "bench", "results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench", "results", "limit.json"), "w") as f:
        json.dump(out, f, indent=1)
    if BASELINE:
        lines = ["| route | answer bytes | connections | before req/s | ours req/s | nginx req/s "
                 "| before fraction | fraction | same bytes as before |",
                 "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
        for r in results:
            lines.append("| %s | %d | %d | %.0f | %.0f | %.0f | %.2f | %.2f | %s |" % (
                r["route"], r["bytes"], r["connections"], r["before"]["rps"], r["ours"]["rps"],
                r["nginx"]["rps"], r["before_fraction"], r["fraction"],
                "yes" if r["same_bytes_as_before"] else "no"))
    else:
        lines = ["| route | answer bytes | connections | ours req/s | nginx req/s | fraction |",
                 "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for r in results:
            lines.append("| %s | %d | %d | %.0f | %.0f | %.2f |" % (
                r["route"], r["bytes"], r["connections"], r["ours"]["rps"], r["nginx"]["rps"],
                r["fraction"]))
    with open(os.path.join(ROOT, "bench", "results", "limit.md"), "w") as f:
        f.write("Limit anchor, %s, %s\n\n" % (out["date"], json.dumps(out["machine"]))
                + "\n".join(lines) + "\n")
    print("\n".join(lines))
    shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
