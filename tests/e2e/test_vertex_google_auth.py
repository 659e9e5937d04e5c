"""End-to-end: Google's "Slurm Job API" Python helper against the emulator, offline, with
Debian's python3-google-auth and python3-requests.

A service-account key file (RSA key generated here) whose token_uri points at the emulator is
picked up through GOOGLE_APPLICATION_CREDENTIALS + google.auth.default(); AuthorizedSession signs
a JWT assertion with the key and exchanges it at the emulator's /token endpoint (the emulator
decodes the assertion without verifying the signature). Then: the docs' example job runs to
COMPLETED (output path and /slurmdb record read), a spot job on all GPUs is preempted and
requeued by a gpu job, a running job is cancelled, and an authorized_user refresh-token
credential works too."""

import json
import os
import sys
import tempfile

import google.auth
import google.auth.transport.requests
import google.oauth2.credentials
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402

PROJECT_ID = "demo-project"
REGION = "us-central1"
CLUSTER_ID = "demo-cluster"
USERNAME = "demo"
TERMINAL = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "PREEMPTED", "NODE_FAIL")


def write_service_account_key(directory, token_uri):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    info = {
        "type": "service_account",
        "project_id": PROJECT_ID,
        "private_key_id": "0123456789abcdef",
        "private_key": pem,
        "client_email": "demo-sa@demo-project.iam.gserviceaccount.com",
        "client_id": "100000000000000000001",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": token_uri,
    }
    path = os.path.join(directory, "sa-key.json")
    with open(path, "w") as f:
        json.dump(info, f)
    return path


class SlurmApi:
    """The helper of Google's page, with only the base URL changed."""

    def __init__(self, session, base_url):
        self.session = session
        self.url = (f"{base_url}/v1beta1/projects/{PROJECT_ID}"
                    f"/locations/{REGION}/modelDevelopmentClusters/{CLUSTER_ID}:callSlurmRestApi")

    def call_slurm(self, method, path, body=None):
        request = {"method": method, "path": path}
        if body is not None:
            request["body"] = body
        response = self.session.post(self.url, json=request)
        response.raise_for_status()
        envelope = response.json()
        return envelope["status"], envelope.get("structuredBody", {})

    def job(self, job_id):
        status, body = self.call_slurm("HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
        return body["jobs"][0] if status == 200 and body.get("jobs") else None


def docs_job(partition="gpu", user=USERNAME, **extra):
    job = {
        "name": "my-run",
        "partition": partition,
        "current_working_directory": f"/home/{user}",
        "minimum_nodes": 1,
        "tasks_per_node": 1,
        "environment": ["PATH=/bin:/usr/bin"],
        "time_limit": {"set": True, "number": 120},
    }
    job.update(extra)
    return {"job": job, "script": "#!/bin/bash\necho hello\nsleep 5\necho done\n"}


def main():
    check = lib.Check("vertex_google_auth")
    with lib.Server() as srv, tempfile.TemporaryDirectory() as tmp:
        os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = write_service_account_key(
            tmp, srv.base_url + "/token")
        credentials, project = google.auth.default(
            scopes=["https://www.googleapis.com/auth/cloud-platform"])
        check.eq(project, PROJECT_ID, "project from the key file")
        session = google.auth.transport.requests.AuthorizedSession(credentials)
        api = SlurmApi(session, srv.base_url)

        # --- The docs' helper flow: submit, status, cancel, confirm. ---
        status, result = api.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit",
                                        docs_job())
        check.eq(status, 200, "submit status")
        check(credentials.token and credentials.valid, "google-auth obtained a token")
        job_id = result["job_id"]
        check.eq(result.get("errors"), [], "submit errors")
        _, pending_result = api.call_slurm("HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
        check(pending_result["jobs"][0]["job_state"][0] in ("PENDING", "RUNNING"),
              "state after submit: %r" % pending_result["jobs"][0]["job_state"])
        check.eq(pending_result["jobs"][0]["user_name"], USERNAME, "job runs as the SA's user")
        api.call_slurm("HTTP_METHOD_DELETE", f"/slurm/v0.0.42/job/{job_id}")
        _, cancelled_result = api.call_slurm("HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
        check(cancelled_result["jobs"][0]["job_state"][0] == "CANCELLED",
              "cancelled: %r" % cancelled_result["jobs"][0]["job_state"])

        # --- The example job polled to COMPLETED on the manual clock. ---
        _, result = api.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", docs_job())
        job_id = result["job_id"]
        seen = []
        for _ in range(60):
            job = api.job(job_id)
            state = job["job_state"]
            if not seen or seen[-1] != state:
                seen.append(state)
            if state[0] in TERMINAL and "COMPLETING" not in state:
                break
            srv.advance(1)
        check.eq(seen[-1], ["COMPLETED"], "final state (sequence %r)" % seen)
        check(["RUNNING"] in seen, "was RUNNING: %r" % seen)
        check(["COMPLETED", "COMPLETING"] in seen, "COMPLETING before COMPLETED: %r" % seen)
        check.eq(job["exit_code"]["status"], ["SUCCESS"], "exit status")
        check.eq(job["standard_output"], f"/home/{USERNAME}/slurm-{job_id}.out", "output path")
        status, db = api.call_slurm("HTTP_METHOD_GET", f"/slurmdb/v0.0.42/job/{job_id}")
        check.eq(status, 200, "slurmdb status")
        check.eq(len(db["jobs"]), 1, "one accounting record")
        rec = db["jobs"][0]
        check.eq(rec["state"]["current"], ["COMPLETED"], "accounting state")
        check.eq(rec["stdout_expanded"], f"/home/{USERNAME}/slurm-{job_id}.out", "stdout_expanded")
        check(rec["time"]["elapsed"] >= 5, "elapsed %r" % rec["time"]["elapsed"])

        # --- Preemption: spot on all 32 GPUs, then a gpu job. ---
        spot = docs_job("spot", minimum_nodes=4, tres_per_node="gres/gpu:8")
        spot["script"] = "#!/bin/bash\nsleep 3000\n"
        _, result = api.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", spot)
        low = result["job_id"]
        srv.advance(1)
        check.eq(api.job(low)["job_state"], ["RUNNING"], "spot job runs")
        gpu = docs_job("gpu", tres_per_node="gres/gpu:8")
        gpu["script"] = "#!/bin/bash\nsleep 15\n"
        _, result = api.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", gpu)
        high = result["job_id"]
        sequence = []
        for _ in range(70):
            job = api.job(low)
            item = (tuple(job["job_state"]), job["state_reason"], job["restart_cnt"])
            if not sequence or sequence[-1] != item:
                sequence.append(item)
            if job["job_state"] == ["RUNNING"] and job["restart_cnt"] == 1:
                break
            srv.advance(2)
        states = [s for s, _, _ in sequence]
        check(("PENDING", "COMPLETING") in states, "epilog after preemption: %r" % sequence)
        check((("PENDING",), "BeginTime", 1) in sequence, "requeued, BeginTime: %r" % sequence)
        check.eq(sequence[-1], (("RUNNING",), "None", 1), "runs again after the requeue delay")
        check.eq(api.job(high)["job_state"], ["COMPLETED"], "the gpu job completed")
        _, db = api.call_slurm("HTTP_METHOD_GET", f"/slurmdb/v0.0.42/job/{low}")
        check.eq([r["state"]["current"] for r in db["jobs"]], [["PREEMPTED"], ["RUNNING"]],
                 "one accounting record per run")

        # --- Cancel a running job. ---
        status, body = api.call_slurm("HTTP_METHOD_DELETE", f"/slurm/v0.0.42/job/{low}")
        check.eq((status, body["status"]), (200, []), "cancel accepted")
        check.eq(api.job(low)["job_state"], ["CANCELLED", "COMPLETING"], "cancelling")
        srv.advance(2)
        check.eq(api.job(low)["job_state"], ["CANCELLED"], "cancelled")

        # --- Tokens expire on the virtual clock; AuthorizedSession refreshes on 401. ---
        first_token = credentials.token
        srv.advance(3700)
        status, body = api.call_slurm("HTTP_METHOD_GET", "/slurm/v0.0.42/jobs/")
        check.eq(status, 200, "call after token expiry")
        check(credentials.token != first_token, "a new token was minted")

        # --- authorized_user credentials (refresh token = the principal's e-mail). ---
        user_creds = google.oauth2.credentials.Credentials(
            None, refresh_token="other@example.com", token_uri=srv.base_url + "/token",
            client_id="emulator-client", client_secret="emulator-secret")
        other = SlurmApi(google.auth.transport.requests.AuthorizedSession(user_creds),
                         srv.base_url)
        status, result = other.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit",
                                          docs_job(user="other"))
        check.eq(status, 200, "authorized_user submit")
        check.eq(other.job(result["job_id"])["user_name"], "other", "runs as other")
        _, result = api.call_slurm("HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit", docs_job())
        demo_job = result["job_id"]
        status, body = other.call_slurm("HTTP_METHOD_DELETE", f"/slurm/v0.0.42/job/{demo_job}")
        check.eq([e["error"]["code"] for e in body["status"]], [2002],
                 "other cannot cancel demo's job")
    check.finish()


if __name__ == "__main__":
    main()
