"""Every scenario in examples/ through the real binary.

- each file validates against examples/scenario.schema.json;
- `schedemu run FILE` exits 0 (all expectations hold) and prints byte-identical output twice,
  in both --format table and --format json (JSON lines ending with an ok summary);
- `schedemu serve --scenario FILE` starts from it and answers health;
- a broken expectation makes `run` exit 1; a bad file makes `run` and `serve` exit 2 with one line
  naming the file, the JSON path and why.

Run with Debian's /usr/bin/python3 (needs python3-jsonschema). Exits non-zero on any failure.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402

import jsonschema  # noqa: E402

EXAMPLES = os.path.join(lib.SOURCE_DIR, "examples")
SCHEMA_PATH = os.path.join(EXAMPLES, "scenario.schema.json")

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, file=sys.stderr)
    return condition


def run(*args, timeout=120):
    return subprocess.run([lib.BINARY, "run"] + list(args), capture_output=True, text=True,
                          timeout=timeout)


def scenario_files():
    files = sorted(glob.glob(os.path.join(EXAMPLES, "*.json")))
    return [f for f in files if not f.endswith(".schema.json")]


def test_schema(files):
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    for path in files:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        check(not errors, "%s does not match the schema: %s" % (
            os.path.basename(path), "; ".join("%s: %s" % (list(e.path), e.message) for e in errors[:3])))
    # The schema rejects what the loader rejects: an unknown field.
    with open(files[0]) as f:
        doc = json.load(f)
    doc["colour"] = "blue"
    check(list(validator.iter_errors(doc)), "schema accepts an unknown top-level field")


def test_run_examples(files):
    with_timeline = 0
    for path in files:
        name = os.path.basename(path)
        with open(path) as f:
            has_timeline = bool(json.load(f).get("timeline"))
        with_timeline += has_timeline
        first = run(path)
        check(first.returncode == 0, "%s: run exited %d\n%s%s" % (
            name, first.returncode, first.stdout[-3000:], first.stderr[-2000:]))
        if has_timeline:
            fail_lines = [l for l in first.stdout.splitlines() if l.split()[1:3] == ["FAIL", "expect"]]
            check(not fail_lines, "%s: FAIL lines: %s" % (name, fail_lines))
            check(first.stdout.rstrip().splitlines()[-1].startswith("OK: "),
                  "%s: last line is not the OK summary" % name)
        second = run(path)
        check(first.stdout == second.stdout,
              "%s: table output differs between two runs" % name)

        j1 = run(path, "--format", "json")
        j2 = run(path, "--format", "json")
        check(j1.returncode == 0, "%s: --format json exited %d: %s" % (name, j1.returncode, j1.stderr))
        check(j1.stdout == j2.stdout, "%s: JSON output differs between two runs" % name)
        lines = [json.loads(line) for line in j1.stdout.splitlines()]
        check(lines and lines[0].get("type") == "scenario", "%s: first JSON line is not the header" % name)
        check(lines and lines[-1].get("type") == "summary" and lines[-1].get("ok") is True,
              "%s: JSON summary not ok: %s" % (name, lines[-1] if lines else None))
        if has_timeline:
            expects = [l for l in lines if l.get("type") == "step" and l.get("kind") == "expect"]
            check(expects and all(l["ok"] for l in expects), "%s: expectations in JSON not all ok" % name)
            check(lines[-1]["expectations"] == len(expects), "%s: summary count mismatch" % name)
    check(with_timeline >= 5, "expected at least 5 examples with a timeline, found %d" % with_timeline)


def test_serve_examples(files):
    for path in files:
        name = os.path.basename(path)
        try:
            with lib.Server("--scenario", path) as s:
                check(s.control("GET", "health") == {"status": "ok"}, "%s: serve health" % name)
                state = s.control("GET", "state")
                with open(path) as f:
                    doc = json.load(f)
                check(len(state["allocations"]) == len(doc.get("allocations", [])),
                      "%s: served world has a different number of allocations" % name)
        except (RuntimeError, OSError) as e:
            check(False, "%s: serve did not start: %s" % (name, e))


def test_failures_exit_nonzero(files):
    with open(os.path.join(EXAMPLES, "cloudru-shared-cluster.json")) as f:
        doc = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        # A wrong expectation: exit 1, the FAIL line says what was seen.
        broken = json.loads(json.dumps(doc))
        for step in broken["timeline"]:
            if "expect" in step and step["expect"].get("status") == "Terminated":
                step["expect"]["status"] = "Running"
        p = os.path.join(tmp, "broken.json")
        with open(p, "w") as f:
            json.dump(broken, f)
        r = run(p)
        check(r.returncode == 1, "wrong expectation: run exited %d" % r.returncode)
        check("status=Terminated (expected Running)" in r.stdout, "FAIL line missing:\n" + r.stdout)

        # A bad file: exit 2, one line naming the file, the JSON path and why; no output.
        bad = json.loads(json.dumps(doc))
        bad["allocations"][1]["nodes"] = "dgxsrv-201.sr008"
        p = os.path.join(tmp, "bad.json")
        with open(p, "w") as f:
            json.dump(bad, f)
        r = run(p)
        check(r.returncode == 2, "bad file: run exited %d" % r.returncode)
        check(r.stdout == "", "bad file: run printed output")
        check("%s: $.allocations[1].nodes: expected an array of strings" % p in r.stderr,
              "bad file message: %r" % r.stderr)
        serve = subprocess.run([lib.BINARY, "serve", "--port", "0", "--scenario", p],
                               capture_output=True, text=True, timeout=30)
        check(serve.returncode == 2, "bad file: serve exited %d" % serve.returncode)
        check("$.allocations[1].nodes: expected an array of strings" in serve.stderr,
              "bad file: serve message %r" % serve.stderr)

        p = os.path.join(tmp, "syntax.json")
        with open(p, "w") as f:
            f.write('{\n  "name": "x",\n  "seed": ,\n}\n')
        r = run(p)
        check(r.returncode == 2 and "line 3, column" in r.stderr, "syntax error: %r" % r.stderr)

    r = run()
    check(r.returncode == 2 and "missing FILE" in r.stderr, "no FILE: %r" % r.stderr)
    r = run(files[0], "--format", "yaml")
    check(r.returncode == 2, "--format yaml accepted")


def test_until():
    path = os.path.join(EXAMPLES, "slurm-spot-requeue.json")
    r = run(path, "--until", "90s")
    check(r.returncode == 0, "--until 90s exited %d: %s" % (r.returncode, r.stdout + r.stderr))
    check("steps after --until skipped" in r.stdout and "ended at +00:01:30" in r.stdout,
          "--until summary:\n" + r.stdout)


def main():
    files = scenario_files()
    check(any(f.endswith("default.json") for f in files), "examples/default.json missing")
    test_schema(files)
    test_run_examples(files)
    test_serve_examples(files)
    test_failures_exit_nonzero(files)
    test_until()
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("ok: %d example files" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
