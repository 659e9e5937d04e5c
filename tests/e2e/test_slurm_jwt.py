"""A slurmrestd client on the direct listener with a self-signed HS256 JWT, as README says.

What a user (or Slurm-web's agent in jwt_mode=auto) does: take the cluster's key (the default
scenario's is the 32 ASCII bytes documented in README, or `schedemu jwt-key --out FILE`), sign
{"iat","exp","sun"} with HMAC-SHA256 (stdlib hmac/hashlib/base64 only, no JWT library), send it
as X-SLURM-USER-TOKEN (with X-SLURM-USER-NAME) or Authorization: Bearer, discover the version
by ping, submit and list jobs; then a bad signature and an expired token get slurmrestd's 511.
"""

import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import tempfile
import time

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as tl  # noqa: E402

DEMO_KEY = b"schedemu-demo-slurm-jwt-key-0001"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def sign(claims, key=DEMO_KEY):
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps(claims).encode())
    mac = hmac.new(key, (header + "." + payload).encode(), hashlib.sha256).digest()
    return header + "." + payload + "." + b64url(mac)


def main():
    check = tl.Check("slurm_jwt")
    # The key as a file, the way tools that sign their own tokens take it.
    with tempfile.TemporaryDirectory() as tmp:
        key_file = os.path.join(tmp, "slurmrestd.key")
        subprocess.run([tl.BINARY, "jwt-key", "--out", key_file], check=True)
        with open(key_file, "rb") as f:
            key = f.read()
        check.eq(key, DEMO_KEY, "jwt-key writes the documented key")
        check.eq(os.stat(key_file).st_mode & 0o777, 0o600, "key file mode")

    with tl.Server() as srv:
        s = requests.Session()
        now = int(time.time())
        token = sign({"iat": now, "exp": now + 3600, "sun": "demo"}, key)
        headers = {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": token}

        # Version discovery: newest first, the first ping that answers wins.
        r = s.get(srv.base_url + "/slurm/v0.0.44/ping", headers=headers)
        check.eq(r.status_code, 200, "ping v0.0.44")
        check.eq(r.headers.get("Content-Type"), "application/json", "exact content type")
        body = r.json()
        check.eq(body["meta"]["slurm"]["cluster"], "demo-cluster", "cluster name")
        check.eq(body["errors"], [], "ping errors")
        check("warnings" in body, "ping warnings present")

        job = {"job": {"name": "jwt-e2e", "partition": "gpu", "current_working_directory": "/home/demo",
                       "environment": ["PATH=/bin:/usr/bin"], "tres_per_node": "gres/gpu:1"},
               "script": "#!/bin/bash\necho hi\n"}
        r = s.post(srv.base_url + "/slurm/v0.0.44/job/submit", headers=headers, json=job)
        check.eq(r.status_code, 200, "submit: %s" % r.text[:200])
        job_id = r.json().get("job_id")
        srv.advance(1)
        # Bearer form, no trailing slash and with one.
        bearer = {"Authorization": "Bearer " + token}
        for path in ("/slurm/v0.0.44/jobs", "/slurm/v0.0.44/jobs/"):
            r = s.get(srv.base_url + path, headers=bearer)
            check.eq(r.status_code, 200, "jobs " + path)
            jobs = [j for j in r.json()["jobs"] if j["job_id"] == job_id]
            check(jobs and jobs[0]["user_name"] == "demo", "the job is demo's: %s" % path)
            check(jobs and jobs[0]["job_state"] == ["RUNNING"], "running: %s" % path)

        # Wrong key, expired token: 511 with error 1007 in the jobs envelope.
        for name, bad in (("bad signature", sign({"exp": now + 3600, "sun": "demo"}, b"other-key")),
                          ("expired", sign({"iat": now - 7200, "exp": now - 3600, "sun": "demo"}, key))):
            r = s.get(srv.base_url + "/slurm/v0.0.44/jobs", headers={"X-SLURM-USER-TOKEN": bad})
            check.eq(r.status_code, 511, name)
            check.eq(r.headers.get("Content-Type"), "application/json", name + " content type")
            check.eq(r.json()["errors"][0]["error_number"], 1007, name + " error")
            check.eq(r.json()["jobs"], [], name + " jobs")
        # No credential: 401 text, connection closed.
        r = requests.get(srv.base_url + "/slurm/v0.0.44/jobs")
        check.eq((r.status_code, r.text), (401, "Authentication failure"), "no credential")
        check.eq(r.headers.get("Connection", "").lower(), "close", "connection closed")

        # A token minted by the control route works the same.
        minted = srv.control("POST", "slurm/token", {"username": "demo", "lifespan": 60})
        r = s.get(srv.base_url + "/slurm/v0.0.42/ping", headers={"X-SLURM-USER-TOKEN": minted["token"]})
        check.eq(r.status_code, 200, "control-minted token")
    check.finish()


if __name__ == "__main__":
    main()
