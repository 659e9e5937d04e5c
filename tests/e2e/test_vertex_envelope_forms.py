"""End-to-end: both generations of Google's "Slurm Job API" page against the emulator over plain
HTTP, with Debian's python3-google-auth and python3-requests.

The older page (the seed, in Hebrew, and the Japanese translation) reads Slurm's answer from
`structuredBody`, an object; the current English page reads `body`, a JSON string, and parses it
(`json.loads(envelope["body"])`, `jq '.body | fromjson'`). By default the envelope answers with
both; `serve --envelope-answer` and the scenario's $.vertex.envelope_answer keep one form only.
Each client below follows its page's helper step by step: submit, status, cancel, confirm."""

import json
import os
import shutil
import subprocess
import sys
import tempfile

import google.auth
import google.auth.transport.requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402
from test_vertex_google_auth import (SlurmApi, docs_job,  # noqa: E402
                                     write_service_account_key)

JQ = shutil.which("jq")


class PageClient(SlurmApi):
    """The helper's steps: ADC session, POST the envelope, raise on an envelope error, then read
    Slurm's answer the way the page says (`structured` = the older page, else the current one)."""

    def __init__(self, session, base_url, structured):
        super().__init__(session, base_url)
        self.structured = structured
        self.last = None  # the last envelope response, as received

    def call_slurm(self, method, path, body=None):
        request = dict(method=method, path=path, **({} if body is None else {"body": body}))
        self.last = self.session.post(self.url, json=request)
        self.last.raise_for_status()
        envelope = self.last.json()
        if self.structured:
            return envelope["status"], envelope.get("structuredBody", {})
        return envelope["status"], json.loads(envelope["body"])


def run_page_flow(check, client, label):
    """Submit, status, cancel, confirm: the flow both pages show."""
    status, result = client.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", docs_job())
    check.eq(status, 200, f"{label}: submit status")
    job_id = result["job_id"]
    check(isinstance(job_id, int) and job_id > 0, f"{label}: job id {job_id!r}")
    _, pending = client.call_slurm("HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
    check(pending["jobs"][0]["job_state"][0] in ("PENDING", "RUNNING"),
          f"{label}: state after submit {pending['jobs'][0]['job_state']!r}")
    client.call_slurm("HTTP_METHOD_DELETE", f"/slurm/v0.0.42/job/{job_id}")
    _, cancelled = client.call_slurm("HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
    check.eq(cancelled["jobs"][0]["job_state"][0], "CANCELLED", f"{label}: cancelled")
    return job_id


def jq(check, text, program):
    """`jq -r PROGRAM` over the envelope's text; the same in Python where jq is missing."""
    if JQ:
        out = subprocess.run([JQ, "-r", program], input=text, capture_output=True, text=True)
        check.eq(out.returncode, 0, f"jq {program}: {out.stderr}")
        return out.stdout.strip()
    env = json.loads(text)
    if program == ".body | fromjson | .job_id":
        return str(json.loads(env["body"])["job_id"])
    if program == ".structuredBody.job_id":
        return str(env["structuredBody"]["job_id"])
    raise ValueError(program)


def session_for(srv, tmp):
    os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = write_service_account_key(
        tmp, srv.base_url + "/token")
    credentials, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
    return google.auth.transport.requests.AuthorizedSession(credentials)


def check_default(check, tmp):
    with lib.Server() as srv:
        session = session_for(srv, tmp)
        seed = PageClient(session, srv.base_url, structured=True)
        current = PageClient(session, srv.base_url, structured=False)
        run_page_flow(check, seed, "older page's client")
        job_id = run_page_flow(check, current, "current page's client")

        # Both fields carry the same answer; `body` is its JSON text.
        current.call_slurm("HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
        env = current.last.json()
        check.eq(sorted(env), ["body", "status", "structuredBody"], "default answer fields")
        check(isinstance(env["body"], str), "body is a string")
        check.eq(json.loads(env["body"]), env["structuredBody"], "body parses to structuredBody")

        # jq, as each page shows it.
        current.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", docs_job())
        text = current.last.text
        new_id = json.loads(text)["structuredBody"]["job_id"]
        check.eq(jq(check, text, ".body | fromjson | .job_id"), str(new_id), "jq .body | fromjson")
        check.eq(jq(check, text, ".structuredBody.job_id"), str(new_id), "jq .structuredBody")

        # A plain-text slurmrestd answer has no object form: only `body`, the text itself.
        r = session.post(current.url, json={"method": "HTTP_METHOD_POST",
                                            "path": "/slurm/v0.0.42/job/submit",
                                            "body": "{\"job\": {"})
        check.eq(r.json(), {"status": 400, "body": "Unable to parse query."}, "plain-text answer")

        # The envelope's own errors are unchanged.
        r = session.post(current.url, json={"method": "HTTP_METHOD_GET"})
        check.eq(r.status_code, 400, "envelope error status")
        check.eq(r.json()["error"]["status"], "INVALID_ARGUMENT", "envelope error shape")
        check("structuredBody" not in r.json() and "body" not in r.json(), "no answer fields")


def check_one_form(check, tmp, args, form, label):
    with lib.Server(*args) as srv:
        session = session_for(srv, tmp)
        if form == "body":
            run_page_flow(check, PageClient(session, srv.base_url, structured=False), label)
        else:
            run_page_flow(check, PageClient(session, srv.base_url, structured=True), label)
        client = PageClient(session, srv.base_url, structured=(form == "structured"))
        client.call_slurm("HTTP_METHOD_GET", "/slurm/v0.0.42/jobs/")
        env = client.last.json()
        want = ["body", "status"] if form == "body" else ["status", "structuredBody"]
        check.eq(sorted(env), want, f"{label}: answer fields")
        if form == "body":
            check(isinstance(env["body"], str) and "jobs" in json.loads(env["body"]),
                  f"{label}: body is the JSON text")
        else:
            check("jobs" in env["structuredBody"], f"{label}: structuredBody is the object")


def scenario_file(tmp, form):
    with open(os.path.join(lib.SOURCE_DIR, "examples", "default.json")) as f:
        scenario = json.load(f)
    scenario["vertex"] = {"envelope_answer": form}
    path = os.path.join(tmp, f"scenario-{form}.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    return path


def serve_refused(args):
    cmd = [lib.BINARY, "serve", "--host", "127.0.0.1", "--port", "0"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def main():
    check = lib.Check("vertex_envelope_forms")
    with tempfile.TemporaryDirectory() as tmp:
        check_default(check, tmp)
        for form in ("structured", "body"):
            check_one_form(check, tmp, ["--envelope-answer", form], form, f"flag {form}")
            check_one_form(check, tmp, ["--scenario", scenario_file(tmp, form)], form,
                           f"scenario {form}")
        # The flag wins over the scenario.
        check_one_form(check, tmp, ["--scenario", scenario_file(tmp, "structured"),
                                    "--envelope-answer", "body"], "body", "flag over scenario")

        # Bad values: one line, exit 2; the scenario's error names the JSON path.
        r = serve_refused(["--envelope-answer", "string"])
        check.eq(r.returncode, 2, "bad flag exit status")
        check.eq(len(r.stderr.strip().splitlines()), 1, f"bad flag: one line: {r.stderr!r}")
        check("--envelope-answer" in r.stderr and "'string'" in r.stderr, f"flag: {r.stderr!r}")
        r = serve_refused(["--scenario", scenario_file(tmp, "string")])
        check.eq(r.returncode, 2, "bad scenario exit status")
        check("$.vertex.envelope_answer" in r.stderr and "structured" in r.stderr,
              f"scenario error names the path: {r.stderr!r}")
    check.finish()


if __name__ == "__main__":
    main()
