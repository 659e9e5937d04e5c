"""End-to-end: secrets are never kept (issue 20). A full story over real sockets with
`serve --state-file F --control-token T --log-level debug` (the server's log written to a file):

- Cloud.ru: service_auth with the scenario's client secret (and once with a wrong one), jobs
  submitted and listed with the minted bearer and the x-api-key;
- Vertex: the envelope with a principal's static token; a token minted from a JWT-bearer assertion
  signed with an RSA private key (made as google-auth makes it); a token minted from a refresh
  token that is the static token (with an OAuth client secret beside it, and once with a
  real-looking Google refresh token the emulator does not know); the direct slurmrestd listener
  with a minted token and with a Slurm JWT signed with the cluster's key (header and Bearer);
- the control API with the control token (and once with a wrong token); a snapshot; a restart
  from the state file, after which the token minted before still works.

Then every file the server wrote (state file, its log, anything else in its directory) and every
view (GET state, events, the events stream the dashboard reads, jobs, faults, snapshots, metrics,
the dashboard's pages and data, the dialects' job lists) is searched for each secret of the
SECRETS table and for distinctive pieces of each (16-character slices; for a JWT, of its payload
and signature); any hit fails. One more secret is one more line in
`secrets_table`.
"""

import base64
import copy
import hashlib
import hmac
import json
import os
import secrets as pyrandom
import shutil
import sys
import tempfile
import time

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth import crypt, jwt

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402

SA_EMAIL = "demo-sa@demo-project.iam.gserviceaccount.com"
ENVELOPE = f"/v1beta1/{lib.CLUSTER}:callSlurmRestApi"


def rand(prefix, n=24):
    return prefix + pyrandom.token_hex(n // 2)


class Story:
    """The secrets the story hands the server, and what it mints."""

    def __init__(self):
        self.api_key = rand("ak-")
        self.client_secret = rand("cs-")
        self.wrong_client_secret = rand("wrongcs-")
        self.static_token = rand("st-")
        self.control_token = rand("ct-", 32)
        self.wrong_control_token = rand("wrongct-", 32)
        self.oauth_client_secret = rand("GOCSPX-")
        self.google_refresh_token = "1//0g" + pyrandom.token_urlsafe(40)
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_key = key.private_bytes(serialization.Encoding.PEM,
                                             serialization.PrivateFormat.PKCS8,
                                             serialization.NoEncryption()).decode()
        self.assertion = None
        self.cloudru_token = None
        self.oauth_token = None
        self.refresh_minted_token = None
        # The demo cluster's HS256 key (scenario configuration, kept by design) and a Slurm JWT
        # signed with it, as `scontrol token` or a user's own tool makes one.
        self.slurm_jwt_key = rand("jk-", 32)
        self.slurm_jwt = slurm_jwt(self.slurm_jwt_key.encode(), "demo")


def secrets_table(st):
    """(what, value): every secret the server was given or minted. One line per secret."""
    return [
        ("Cloud.ru client secret", st.client_secret),
        ("Cloud.ru wrong client secret", st.wrong_client_secret),
        ("Cloud.ru x-api-key", st.api_key),
        ("Cloud.ru minted bearer (service_auth JWT)", st.cloudru_token),
        ("Vertex static token", st.static_token),
        ("Vertex minted OAuth token (JWT-bearer)", st.oauth_token),
        ("Vertex minted OAuth token (refresh_token)", st.refresh_minted_token),
        ("OAuth JWT-bearer assertion", st.assertion),
        ("service-account private key", st.private_key),
        ("OAuth client secret", st.oauth_client_secret),
        ("unknown Google refresh token", st.google_refresh_token),
        ("Slurm JWT (HS256, the cluster's key)", st.slurm_jwt),
        ("control token", st.control_token),
        ("wrong control token", st.wrong_control_token),
    ]


def fragments(value):
    """The secret and distinctive pieces of it: 16-character slices every 8 characters (of a JWT:
    of its payload and signature; its header is public boilerplate; of a PEM key: of its body)."""
    if value.startswith("-----BEGIN"):
        lines = [l for l in value.splitlines() if l and not l.startswith("-----")]
        parts = lines
    elif value.count(".") == 2:
        parts = value.split(".")[1:]
    else:
        parts = [value]
    out = {value}
    for p in parts:
        if len(p) < 16:
            if len(p) >= 8:
                out.add(p)
            continue
        for i in range(0, len(p) - 15, 8):
            out.add(p[i:i + 16])
        out.add(p[-16:])
    return out


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def slurm_jwt(key, user):
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = b64url(json.dumps({"iat": int(time.time()), "exp": int(time.time()) + 3600,
                                 "sun": user, "nonce": pyrandom.token_hex(8)}).encode())
    mac = hmac.new(key, (header + "." + payload).encode(), hashlib.sha256).digest()
    return header + "." + payload + "." + b64url(mac)


def scenario_with(st):
    with open(os.path.join(lib.SOURCE_DIR, "examples", "default.json")) as f:
        doc = json.load(f)
    doc = copy.deepcopy(doc)
    ws = next(w for w in doc["workspaces"] if w["name"] == "demo")
    ws["api_key"] = st.api_key
    sa = next(a for a in ws["service_accounts"] if a["client_id"] == "demo-client")
    sa["client_secret"] = st.client_secret
    p = next(p for p in doc["principals"] if p["email"] == "demo@example.com")
    p["token"] = st.static_token
    cluster = next(c for c in doc["slurm_clusters"] if c["name"] == "demo-cluster")
    cluster["jwt_key"] = st.slurm_jwt_key
    return doc


def make_assertion(st, token_uri):
    signer = crypt.RSASigner.from_string(st.private_key, key_id="0123456789abcdef")
    now = int(time.time())
    payload = {"jti": pyrandom.token_hex(8), "iss": SA_EMAIL, "aud": token_uri,
               "scope": "https://www.googleapis.com/auth/cloud-platform", "iat": now,
               "exp": now + 3600}
    return jwt.encode(signer, payload).decode()


class Serve:
    """The kit's Schedemu with the debug log kept in a file of the workdir and the state file;
    stop() saves the state file (SIGTERM). control() answers `requests` responses: the test
    looks at statuses and raw texts, and sends a wrong token once."""

    def __init__(self, workdir, scenario, st, log_name):
        self.log_path = os.path.join(workdir, log_name)
        self.emu = lib.kit.Schedemu(
            scenario=scenario, binary=lib.BINARY, log_level="debug", stderr_path=self.log_path,
            control_token=st.control_token,
            args=["--state-file", os.path.join(workdir, "state.json")]).start()
        self.proc = self.emu.proc
        self.base = self.emu.base_url
        self.control_headers = {"Authorization": "Bearer " + st.control_token}

    def control(self, method, path, body=None, token=None):
        headers = dict(self.control_headers)
        if token is not None:
            headers["Authorization"] = "Bearer " + token
        return requests.request(method, self.base + "/emulator/v1/" + path, json=body,
                                headers=headers, timeout=30)

    def stop(self):
        return self.emu.stop(timeout=15)


def cloudru_headers(st, token):
    return {"Authorization": "Bearer " + token, "x-api-key": st.api_key,
            "x-workspace-id": lib.DEMO_WORKSPACE}


CLOUDRU_JOB = {"script": "/home/jovyan/train.py", "base_image": "img:1",
               "instance_type": "a100.1gpu", "region": "SR008", "type": "pytorch2",
               "allocation_name": "alloc-1", "job_desc": "secrets story"}


def slurm_job(name):
    return {"job": {"name": name, "partition": "gpu", "current_working_directory": "/home/demo",
                    "environment": ["PATH=/bin"], "script": "#!/bin/bash\nsleep 5"}}


def story(s, st, check):
    """The first run: every credential in play."""
    r = requests.post(s.base + "/public/v2/service_auth",
                      json={"client_id": "demo-client", "client_secret": st.wrong_client_secret})
    check.eq(r.status_code, 401, "service_auth with a wrong secret")
    r = requests.post(s.base + "/public/v2/service_auth",
                      json={"client_id": "demo-client", "client_secret": st.client_secret})
    check.eq(r.status_code, 200, "service_auth: " + r.text)
    st.cloudru_token = r.json()["token"]["access_token"]
    for i in range(2):
        r = requests.post(s.base + "/public/v2/jobs", json=dict(CLOUDRU_JOB, job_desc=f"s{i}"),
                          headers=cloudru_headers(st, st.cloudru_token))
        check.eq(r.status_code, 200, "Cloud.ru submit: " + r.text)

    envelope = {"method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit",
                "body": slurm_job("static")}
    r = requests.post(s.base + ENVELOPE, json=envelope,
                      headers={"Authorization": "Bearer " + st.static_token})
    check.eq(r.status_code, 200, "envelope with the static token: " + r.text)

    st.assertion = make_assertion(st, s.base + "/token")
    r = requests.post(s.base + "/token",
                      data={"grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer",
                            "assertion": st.assertion})
    check.eq(r.status_code, 200, "JWT-bearer grant: " + r.text)
    st.oauth_token = r.json()["access_token"]
    r = requests.post(s.base + ENVELOPE, json=dict(envelope, body=slurm_job("minted")),
                      headers={"Authorization": "Bearer " + st.oauth_token})
    check.eq(r.status_code, 200, "envelope with the minted token: " + r.text)

    r = requests.post(s.base + "/token",
                      data={"grant_type": "refresh_token", "refresh_token": st.static_token,
                            "client_id": "x.apps.googleusercontent.com",
                            "client_secret": st.oauth_client_secret})
    check.eq(r.status_code, 200, "refresh_token grant with the static token: " + r.text)
    st.refresh_minted_token = r.json()["access_token"]
    r = requests.post(s.base + "/token",
                      json={"grant_type": "refresh_token", "refresh_token": st.google_refresh_token,
                            "client_secret": st.oauth_client_secret})
    check.eq(r.status_code, 400, "an unknown refresh token")
    r = requests.post(s.base + "/slurm/v0.0.42/job/submit", json=slurm_job("direct"),
                      headers={"X-SLURM-USER-NAME": "demo",
                               "X-SLURM-USER-TOKEN": st.refresh_minted_token})
    check.eq(r.status_code, 200, "direct slurmrestd with a minted token: " + r.text)
    r = requests.post(s.base + "/slurm/v0.0.42/job/submit", json=slurm_job("jwt"),
                      headers={"X-SLURM-USER-TOKEN": st.slurm_jwt})
    check.eq(r.status_code, 200, "direct slurmrestd with a Slurm JWT: " + r.text)
    r = requests.get(s.base + "/slurm/v0.0.42/jobs",
                     headers={"Authorization": "Bearer " + st.slurm_jwt})
    check.eq(r.status_code, 200, "direct slurmrestd with the JWT as a Bearer: " + r.text)

    check.eq(s.control("POST", "clock/advance", {"seconds": 10}).status_code, 200, "advance")
    check.eq(s.control("POST", "clock/advance", {"seconds": 10},
                       token=st.wrong_control_token).status_code, 401, "a wrong control token")
    check.eq(s.control("POST", "snapshots/after-story").status_code, 201, "snapshot")


VIEWS = ["state", "events", "jobs", "faults", "snapshots", "behaviour-rules", "clock"]


def collect_views(s, st):
    """Every view's text: control, metrics, dashboard page and data, the dialects' lists."""
    texts = {}
    for v in VIEWS:
        texts["/emulator/v1/" + v] = s.control("GET", v).text
    texts["/metrics"] = requests.get(s.base + "/metrics", headers=s.control_headers).text
    with requests.get(s.base + "/emulator/v1/events/stream?since=0", headers=s.control_headers,
                      stream=True, timeout=10) as r:
        streamed = ""
        for chunk in r.iter_content(chunk_size=None):  # the backlog arrives at once
            streamed += chunk.decode(errors="replace")
            if "\nevent: " in streamed:
                break
        texts["/emulator/v1/events/stream"] = streamed
    for path in ["/", "/dashboard-api/examples"]:
        texts[path] = requests.get(s.base + path).text
    texts["/public/v2/jobs"] = requests.get(
        s.base + "/public/v2/jobs?region=SR008",
        headers=cloudru_headers(st, st.cloudru_token)).text
    texts["envelope GET jobs"] = requests.post(
        s.base + ENVELOPE, json={"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/jobs"},
        headers={"Authorization": "Bearer " + st.static_token}).text
    return texts


def search(check, where, text, table):
    for what, value in table:
        for piece in fragments(value):
            check(piece not in text, f"{where} holds the {what} (or a piece of it: {piece!r})")


def main():
    check = lib.Check("secrets_never_kept")
    st = Story()
    workdir = tempfile.mkdtemp(prefix="schedemu-secrets-")
    given = set()  # files the test itself wrote (the scenario holds the secrets, by design)
    try:
        scenario = os.path.join(workdir, "scenario.json")
        with open(scenario, "w") as f:
            json.dump(scenario_with(st), f)
        given.add(scenario)

        s = Serve(workdir, scenario, st, "serve-1.log")
        views = {}
        try:
            story(s, st, check)
            views.update({"run 1 " + k: v for k, v in collect_views(s, st).items()})
            state = s.control("GET", "state").json()
            check(len(state.get("tokens", [])) == 3, "three minted tokens in the state view")
            check(all(t["token"].endswith("…") for t in state.get("tokens", [])),
                  "the state view shows tokens redacted")
        finally:
            check.eq(s.stop(), 0, "first server exit status")
        check(os.path.exists(os.path.join(workdir, "state.json")), "the state file was written")

        s = Serve(workdir, scenario, st, "serve-2.log")
        try:
            r = requests.get(s.base + "/public/v2/jobs?region=SR008",
                             headers=cloudru_headers(st, st.cloudru_token))
            check.eq(r.status_code, 200, "the minted bearer after the restart: " + r.text)
            check.eq(r.json().get("count"), 2, "the Cloud.ru jobs after the restart")
            r = requests.get(s.base + "/slurm/v0.0.42/jobs",
                             headers={"X-SLURM-USER-NAME": "demo",
                                      "X-SLURM-USER-TOKEN": st.oauth_token})
            check.eq(r.status_code, 200, "the minted OAuth token after the restart: " + r.text)
            # The one submitted with a JWT too: the journal kept the user it verified as.
            check.eq(len(r.json().get("jobs", [])), 4, "the Slurm jobs after the restart")
            check.eq(s.control("POST", "snapshots/after-story/restore").status_code, 200,
                     "the snapshot survived the restart")
            views.update({"run 2 " + k: v for k, v in collect_views(s, st).items()})
        finally:
            check.eq(s.stop(), 0, "second server exit status")

        table = secrets_table(st)
        check(all(v for _, v in table), "every secret of the table was used")
        for where, text in views.items():
            search(check, where, text, table)
        written = [os.path.join(workdir, n) for n in sorted(os.listdir(workdir))]
        written = [p for p in written if p not in given and os.path.isfile(p)]
        check(any(p.endswith("state.json") for p in written), "the state file is searched")
        check(all(os.path.getsize(p) > 0 for p in written if p.endswith(".log")),
              "the server logged something (debug)")
        for path in written:
            with open(path, encoding="utf-8", errors="replace") as f:
                search(check, os.path.basename(path), f.read(), table)
        # The test can fail: the scenario it wrote holds the secrets it searches for.
        with open(scenario) as f:
            check(st.client_secret in f.read(), "the search finds a secret where it is")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    check.finish()


if __name__ == "__main__":
    main()
