"""The HTML report of `schedemu replay --report DIR` and `schedemu run --report DIR` (issue 18).

Reports of examples/sample.swf, of a seeded synthetic trace made by swf_gen (100,000 jobs; 10,000
when the binary is built with a sanitizer, SCHEDEMU_SANITIZE set by CMake) and of a scenario run
(examples/cloudru-preemption-cascade.json), each checked:
  * index.html is valid HTML (html.parser, every element closed in order) and self-contained
    (no script, nothing loaded from elsewhere), and small (< 1 MB whatever the trace);
  * every figure is one <svg> that parses as XML (xml.etree), with its id;
  * the numbers equal the `--format json` output: each summary row carries its JSON path
    (data-key) and exact value (data-value); the figures' totals (GPU-seconds of the utilisation
    buckets, wait quantiles of the CDF, preemptions) agree with the JSON;
  * the progress line on stderr (not a terminal: one line per 10 %) and `--quiet`.
A headless-Chromium screenshot of the synthetic trace's report goes to
$SCHEDEMU_ARTIFACTS/report.png (default build/artifacts/); with SCHEDEMU_UPDATE_DOCS=1 also to
docs/report.png.
"""

import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402

CHROMIUM = os.environ.get("SCHEDEMU_CHROMIUM", "/usr/bin/chromium")
SWF_GEN = os.environ.get("SCHEDEMU_SWF_GEN", os.path.join(os.path.dirname(tl.BINARY), "..",
                                                          "bench", "swf_gen"))
SANITIZED = os.environ.get("SCHEDEMU_SANITIZE", "") != ""
TRACE_JOBS = 2000 if SANITIZED else 100000  # ASan -O0: ~40x slower
FIGURES = ("utilisation", "wait-cdf", "gantt", "preemptions")
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
SVG_VOID = {"line", "rect", "path", "circle", "polyline", "polygon"}  # written as <x .../>


class StrictParser(html.parser.HTMLParser):
    """html.parser plus a stack: every element closed, in order; records rows and svgs."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.summary = {}  # data-key -> data-value (float) or text
        self.svg_ids = []
        self.wait_rows = {}
        self.doctype = False
        self.external = []

    def handle_decl(self, decl):
        self.doctype = self.doctype or decl.lower() == "doctype html"

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script":
            self.external.append("a <script> element")
        for k in ("src", "href"):
            if k in a:
                self.external.append("%s=%s" % (k, a[k]))
        if tag == "svg":
            self.svg_ids.append(a.get("id"))
        if tag == "tr" and "data-key" in a:
            self.summary[a["data-key"]] = float(a["data-value"]) if "data-value" in a else None
        if tag == "tr" and "data-group" in a:
            self.wait_rows[a["data-group"]] = a
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        if tag not in SVG_VOID and tag not in VOID:
            self.errors.append("self-closed <%s/>" % tag)
        a = dict(attrs)
        for k in ("src", "href"):
            if k in a:
                self.external.append("%s=%s" % (k, a[k]))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> closes %r" % (tag, self.stack[-1:] or None))
            return
        self.stack.pop()


def json_path(doc, key):
    """'jobs.final_states.COMPLETED' -> doc['jobs']['final_states']['COMPLETED'] (the last part
    may contain dots: the rejection messages)."""
    node = doc
    parts = key.split(".")
    i = 0
    while i < len(parts):
        if isinstance(node, dict) and parts[i] in node:
            node = node[parts[i]]
            i += 1
            continue
        rest = ".".join(parts[i:])
        if isinstance(node, dict) and rest in node:
            return node[rest]
        raise KeyError(key)
    return node


def run(args, **kw):
    return subprocess.run([tl.BINARY] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=600, **kw)


def check_page(check, name, path):
    """Parses one report: returns (parser, svg elements by id, text)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    size = os.path.getsize(path)
    check(size < 1_000_000, "%s: index.html is %d bytes (< 1 MB)" % (name, size))
    p = StrictParser()
    p.feed(text)
    p.close()
    check(p.doctype, "%s: <!DOCTYPE html>" % name)
    check(not p.errors, "%s: well-nested HTML: %s" % (name, p.errors[:5]))
    check(not p.stack, "%s: every element closed: %s" % (name, p.stack))
    check(not p.external, "%s: self-contained (no script, nothing fetched): %s"
          % (name, p.external[:5]))
    check("<script" not in text.lower(), "%s: no script at all" % name)
    svgs = {}
    for m in re.finditer(r"<svg\b.*?</svg>", text, re.S):
        try:
            el = ET.fromstring(m.group(0))
        except ET.ParseError as e:
            check(False, "%s: an <svg> does not parse as XML: %s" % (name, e))
            continue
        svgs[el.get("id")] = el
    for fig in FIGURES:
        check(fig in svgs, "%s: figure %s present and well-formed" % (name, fig))
    check(sorted(p.svg_ids) == sorted(svgs), "%s: every <svg> parsed: %s" % (name, p.svg_ids))
    return p, svgs, text


def close(a, b, rel=1e-9):
    return abs(a - b) <= rel * max(1.0, abs(a), abs(b))


def check_replay(check, name, trace, report_dir, cwd=None):
    t0 = time.time()
    r = run(["replay", trace, "--format", "json", "--report", report_dir], cwd=cwd)
    check.eq(r.returncode, 0, "%s: replay --report exits 0 (stderr %s)" % (name, r.stderr[-500:]))
    doc = json.loads(r.stdout)
    print("%s: replayed %d jobs in %.1f s" % (name, doc["jobs"]["submitted"], time.time() - t0))
    # Progress on stderr: not a terminal, so one line per 10 % and the last one at 100 %.
    lines = [l for l in r.stderr.splitlines() if l.startswith("replay ")]
    check(lines and "100.0 %" in lines[-1] and "done" in lines[-1],
          "%s: the progress ends at 100 %%: %r" % (name, lines[-1:]))
    check("\r" not in r.stderr, "%s: no carriage return when stderr is not a terminal" % name)
    if doc["jobs"]["submitted"] >= 10000:
        check(5 <= len(lines) <= 12, "%s: about one progress line per 10 %%: %d" % (name, len(lines)))
    p, svgs, _ = check_page(check, name, os.path.join(report_dir, "index.html"))

    # Every summary number equals the JSON's.
    numbers = 0
    for key, value in p.summary.items():
        if value is None:
            continue
        try:
            want = json_path(doc, key)
        except KeyError:
            check(False, "%s: summary row %s is not in the JSON" % (name, key))
            continue
        check.eq(value, float(want), "%s: summary %s equals the JSON" % (name, key))
        numbers += 1
    check(numbers >= 20, "%s: %d summary numbers compared" % (name, numbers))
    for key in ("utilisation", "wait_s.p50", "wait_s.p99", "preemptions", "makespan_s",
                "bounded_slowdown.p90", "jobs.submitted"):
        check(key in p.summary, "%s: summary has %s" % (name, key))

    # The figures agree with the JSON.
    util = svgs.get("utilisation")
    if util is not None:
        check(close(float(util.get("data-gpu-seconds")), doc["gpu_seconds_used"]),
              "%s: utilisation buckets hold the GPU-seconds used (%s vs %s)"
              % (name, util.get("data-gpu-seconds"), doc["gpu_seconds_used"]))
        check.eq(int(util.get("data-gpus")), doc["total_gpus"], "%s: utilisation of the target's GPUs" % name)
        buckets = int(util.get("data-buckets"))
        width = float(util.get("data-bucket-seconds"))
        check(close(buckets * width, doc["makespan_s"], 1e-6),
              "%s: the buckets span the makespan" % name)
    cdf = svgs.get("wait-cdf")
    if cdf is not None:
        for q in ("p50", "p90", "p99", "max"):
            check.eq(float(cdf.get("data-" + q)), doc["wait_s"][q], "%s: wait CDF %s" % (name, q))
        check.eq(int(cdf.get("data-jobs")), doc["jobs"]["started"], "%s: the CDF's jobs" % name)
    allrow = p.wait_rows.get("all")
    check(allrow is not None and close(float(allrow["data-mean"]), doc["wait_s"]["mean"]),
          "%s: wait table mean equals the JSON" % name)
    groups = sum(int(a["data-jobs"]) for g, a in p.wait_rows.items() if g != "all")
    check.eq(groups, doc["jobs"]["started"], "%s: the groups' waits add up to the started jobs" % name)
    pre = svgs.get("preemptions")
    if pre is not None:
        check.eq(int(pre.get("data-total")), doc["preemptions"], "%s: preemptions figure" % name)
    gantt = svgs.get("gantt")
    if gantt is not None:
        check(0 < int(gantt.get("data-bars")) <= 800, "%s: the Gantt chart is capped" % name)
        check(int(gantt.get("data-rows")) <= 48, "%s: at most 48 Gantt rows" % name)
        bars = [e for e in gantt.iter("{http://www.w3.org/2000/svg}rect")
                if e.find("{http://www.w3.org/2000/svg}title") is not None]
        check.eq(len(bars), int(gantt.get("data-bars")), "%s: one <rect> per bar" % name)
    return doc


def screenshot(page, png, height):
    profile = tempfile.mkdtemp(prefix="schedemu-chromium-")
    try:
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                        "--user-data-dir=" + profile, "--screenshot=" + png,
                        "--window-size=1000,%d" % height, "file://" + page],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def main():
    check = tl.Check("report")
    work = tempfile.mkdtemp(prefix="schedemu-report-")
    artifacts = os.environ.get("SCHEDEMU_ARTIFACTS",
                               os.path.join(tl.SOURCE_DIR, "build", "artifacts"))
    os.makedirs(artifacts, exist_ok=True)
    try:
        # 1. The sample trace.
        sample = os.path.join(tl.SOURCE_DIR, "examples", "sample.swf")
        check_replay(check, "sample", sample, os.path.join(work, "sample"))

        # --quiet: nothing on stderr; the report is the same page.
        r = run(["replay", sample, "--quiet", "--report", os.path.join(work, "quiet")])
        check.eq(r.returncode, 0, "replay --quiet exits 0")
        check.eq(r.stderr, "", "--quiet prints nothing on stderr")
        with open(os.path.join(work, "sample", "index.html")) as a, \
                open(os.path.join(work, "quiet", "index.html")) as b:
            check(a.read() == b.read(), "the report is a pure function of trace and scenario")

        # Errors: --report without a value; a directory that cannot be made.
        r = run(["replay", sample, "--report"])
        check.eq(r.returncode, 2, "--report without a value is a usage error")
        check("--report needs a value" in r.stderr, "the message names --report: " + r.stderr)
        r = run(["replay", sample, "--quiet", "--report", "/dev/null/x"])
        check.eq(r.returncode, 1, "an unwritable report directory fails the replay")
        check("cannot create report directory /dev/null/x" in r.stderr, r.stderr)

        # 2. A seeded synthetic trace (swf_gen).
        trace = os.path.join(work, "synthetic.swf")
        if not os.path.exists(SWF_GEN):
            check(False, "swf_gen missing at %s" % SWF_GEN)
        else:
            g = subprocess.run([SWF_GEN, "--jobs", str(TRACE_JOBS), "--seed", "18",
                                "--output", trace], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=120)
            check.eq(g.returncode, 0, "swf_gen exits 0: " + g.stderr)
            big = os.path.join(work, "synthetic")
            doc = check_replay(check, "synthetic", "synthetic.swf", big, cwd=work)
            check.eq(doc["jobs"]["submitted"], TRACE_JOBS, "every synthetic job submitted")
            if os.path.exists(CHROMIUM):
                png = os.path.join(artifacts, "report.png")
                screenshot(os.path.join(big, "index.html"), png, 2700)
                with open(png, "rb") as f:
                    check(f.read(8) == b"\x89PNG\r\n\x1a\n", "screenshot saved: " + png)
                if os.environ.get("SCHEDEMU_UPDATE_DOCS") == "1":
                    shutil.copyfile(png, os.path.join(tl.SOURCE_DIR, "docs", "report.png"))

        # 3. A scenario run: `schedemu run FILE --report DIR`.
        scenario = os.path.join(tl.SOURCE_DIR, "examples", "cloudru-preemption-cascade.json")
        out = os.path.join(work, "run")
        r = run(["run", scenario, "--format", "json", "--report", out])
        check.eq(r.returncode, 0, "run --report exits 0: " + r.stderr)
        lines = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        summary = [l for l in lines if l["type"] == "summary"][0]
        header = [l for l in lines if l["type"] == "scenario"][0]
        preempted = sum(1 for l in lines if l["type"] == "event" and l.get("kind") == "preempted")
        p, svgs, _ = check_page(check, "run", os.path.join(out, "index.html"))
        for key in ("expectations", "passed", "failed", "failed_actions", "skipped_steps", "t"):
            check.eq(p.summary.get("summary." + key), float(summary[key]),
                     "run: summary.%s equals the JSON summary line" % key)
        check.eq(p.summary.get("scenario.seed"), float(header["seed"]), "run: the seed")
        check.eq(p.summary.get("preemptions"), float(preempted),
                 "run: preemptions equal the preempted events")
        if "preemptions" in svgs:
            check.eq(int(svgs["preemptions"].get("data-total")), preempted,
                     "run: the preemptions figure")
        r = run(["run", scenario, "--report"])
        check.eq(r.returncode, 2, "run --report without a value is a usage error")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    check.finish()


if __name__ == "__main__":
    main()
