"""End-to-end: clients run unchanged against the real hostnames through `schedemu serve
--intercept`, configured only by the environment `schedemu env` prints (Debian's python3-requests
and python3-google-auth, curl, gcloud where installed, openssl).

- A Slurm Job API client written from the steps of Google's page ("Manage training clusters by
  using the Slurm Job API": service-account credentials from a key file, an AuthorizedSession,
  POST {"method","path","body"} to https://REGION-aiplatform.googleapis.com/...:callSlurmRestApi,
  read `status` and `json.loads(body)`): submit, status, list, cancel, a slurmdb call. The key's
  token_uri is Google's real https://oauth2.googleapis.com/token.
- A Cloud.ru client at https://api.ai.cloud.ru/public/v2: service_auth, submit, status.
- curl with CURL_CA_BUNDLE reaching both; gcloud's print-access-token feeding curl (skipped with
  a message where gcloud is absent).
- Negatives: no CA variable fails verification; a CONNECT to a host not emulated is refused with
  the reason; a client offering only h2 gets no ALPN and a working handshake; the served chain
  passes `openssl verify -x509_strict`.
- The /etc/hosts way (--tls-listen 127.0.0.1:443, only REQUESTS_CA_BUNDLE), in a mount + network
  namespace of its own (`unshare -m -n`), skipped with a message where that is refused."""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import google.auth
import google.auth.transport.requests
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402

PROJECT_ID = "demo-project"
REGION = "us-central1"
CLUSTER_ID = "demo-cluster"
TOKEN_URI = "https://oauth2.googleapis.com/token"
CLOUDRU_API = "https://api.ai.cloud.ru/public/v2"
CLOUDRU_REGION = "SR008"
IMAGE = "cr.ai.cloud.ru/aicloud-base-images/py3.11-torch2.4.0:0.0.40"
SLURM_JOB = {"job": {"name": "my-run", "partition": "gpu", "current_working_directory": "/home/demo",
                     "minimum_nodes": 1, "tasks_per_node": 1, "environment": ["PATH=/bin"],
                     "time_limit": {"set": True, "number": 120}},
             "script": "#!/bin/bash\necho hello\nsleep 3000\n"}


def vertex_url(region=REGION):
    return (f"https://{region}-aiplatform.googleapis.com/v1beta1/projects/{PROJECT_ID}/locations/"
            f"{region}/modelDevelopmentClusters/{CLUSTER_ID}:callSlurmRestApi")


def write_key(directory):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    path = os.path.join(directory, "sa-key.json")
    with open(path, "w") as f:
        json.dump({"type": "service_account", "project_id": PROJECT_ID,
                   "private_key_id": "0123456789abcdef", "private_key": pem,
                   "client_email": "demo-sa@demo-project.iam.gserviceaccount.com",
                   "client_id": "100000000000000000001", "token_uri": TOKEN_URI}, f)
    return path


def parse_env(text):
    """The `export A=x B=y` / `unset ...` lines as (set, unset)."""
    exports, unsets = {}, []
    for line in text.splitlines():
        words = shlex.split(line, comments=True)
        if words[:1] == ["export"]:
            for w in words[1:]:
                k, v = w.split("=", 1)
                exports[k] = v
        elif words[:1] == ["unset"]:
            unsets += words[1:]
    return exports, unsets


def call_slurm(session, method, path, body=None):
    """The page's steps: the envelope, then Slurm's answer parsed from the `body` string."""
    request = {"method": method, "path": path}
    if body is not None:
        request["body"] = body
    response = session.post(vertex_url(), json=request)
    response.raise_for_status()
    envelope = response.json()
    return envelope["status"], json.loads(envelope["body"])


def run(cmd, env, **kw):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60, **kw)


def main():
    check = lib.Check("unchanged_clients")
    with tempfile.TemporaryDirectory() as tmp:
        ca_dir = os.path.join(tmp, "ca")
        with lib.Server("--intercept=127.0.0.1:0", "--ca-dir", ca_dir) as srv:
            # The kit read the lines after `listening on`: the proxy line, the comment, the env.
            served = [line + "\n" for line in srv.stdout_lines[1:8]]
            check(served[0].startswith("intercepting on http://127.0.0.1:"), "proxy line %r" % served)
            proxy_port = int(served[0].split()[2].rsplit(":", 1)[1])
            check.eq("http://127.0.0.1:%d" % proxy_port, srv.intercept_url, "the kit's proxy URL")
            printed = subprocess.run([lib.BINARY, "env", "--intercept", "127.0.0.1:%d" % proxy_port,
                                      "--ca-dir", ca_dir], capture_output=True, text=True, check=True)
            check.eq("".join(served[2:]), printed.stdout, "serve prints what `schedemu env` prints")
            exports, unsets = parse_env(printed.stdout)
            check.eq(sorted(exports), ["CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE", "CURL_CA_BUNDLE",
                                       "HTTPS_PROXY", "REQUESTS_CA_BUNDLE", "https_proxy"],
                     "the variables")
            check.eq(unsets, ["NO_PROXY", "no_proxy"], "unset")
            for k in unsets:
                os.environ.pop(k, None)
            os.environ.update(exports)
            os.environ["GOOGLE_APPLICATION_CREDENTIALS"] = write_key(tmp)
            env = dict(os.environ)

            # --- Google's Slurm Job API, from the page's steps. ---
            credentials, project = google.auth.default(
                scopes=["https://www.googleapis.com/auth/cloud-platform"])
            check.eq(project, PROJECT_ID, "project from the key file")
            session = google.auth.transport.requests.AuthorizedSession(credentials)
            status, result = call_slurm(session, "HTTP_METHOD_POST", "/slurm/v0.0.42/job/submit",
                                        SLURM_JOB)
            check.eq(status, 200, "submit status")
            check(credentials.valid, "a token from https://oauth2.googleapis.com/token")
            job_id = result["job_id"]
            status, result = call_slurm(session, "HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
            check.eq(status, 200, "job status")
            check(result["jobs"][0]["job_state"][0] in ("PENDING", "RUNNING"), "state %r" % result)
            srv.advance(1)
            status, result = call_slurm(session, "HTTP_METHOD_GET", "/slurm/v0.0.42/jobs")
            check(job_id in [j["job_id"] for j in result["jobs"]], "listed: %r" % result)
            status, _ = call_slurm(session, "HTTP_METHOD_DELETE", f"/slurm/v0.0.42/job/{job_id}")
            check.eq(status, 200, "cancel status")
            srv.advance(1)
            _, result = call_slurm(session, "HTTP_METHOD_GET", f"/slurm/v0.0.42/job/{job_id}")
            check.eq(result["jobs"][0]["job_state"], ["CANCELLED"], "cancelled")
            status, db = call_slurm(session, "HTTP_METHOD_GET", f"/slurmdb/v0.0.42/job/{job_id}")
            check.eq(status, 200, "slurmdb status")
            check.eq(db["jobs"][0]["state"]["current"], ["CANCELLED"], "accounting record")
            token = credentials.token

            # --- Cloud.ru at its real address. ---
            s = requests.Session()
            r = s.post(CLOUDRU_API + "/service_auth",
                       json=dict(zip(("client_id", "client_secret"), lib.DEMO_CLIENT)))
            check.eq(r.status_code, 200, "service_auth: %s" % r.text)
            s.headers.update({"authorization": r.json()["token"]["access_token"],
                              "x-api-key": lib.DEMO_API_KEY, "x-workspace-id": lib.DEMO_WORKSPACE})
            r = s.post(CLOUDRU_API + "/jobs", json={
                "base_image": IMAGE, "script": "/home/jovyan/train.py", "region": CLOUDRU_REGION,
                "instance_type": "a100.1gpu.8C.243G", "type": "pytorch2", "n_workers": 1,
                "allocation_name": "alloc-1", "env_variables": {"SCHEDEMU_RUNTIME": "60s"}})
            check.eq(r.status_code, 200, "submit: %s" % r.text)
            name = r.json().get("job_name")
            r = s.get(CLOUDRU_API + "/jobs/%s" % name, params={"region": CLOUDRU_REGION})
            check.eq(r.status_code, 200, "status: %s" % r.text)
            check.eq(r.json().get("job_name"), name, "the job")

            # --- curl, CURL_CA_BUNDLE from the printed environment. ---
            body = json.dumps({"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/jobs"})
            c = run(["curl", "-sS", "-X", "POST", "-H", "Authorization: Bearer " + token,
                     "-H", "Content-Type: application/json", "-d", body, vertex_url()], env)
            check(c.returncode == 0 and '"status":200' in c.stdout.replace(" ", ""),
                  "curl reaches Vertex: %s %s" % (c.stdout[:200], c.stderr))
            c = run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-H",
                     "authorization: " + s.headers["authorization"], "-H",
                     "x-api-key: " + lib.DEMO_API_KEY, "-H", "x-workspace-id: " + lib.DEMO_WORKSPACE,
                     CLOUDRU_API + "/jobs?region=" + CLOUDRU_REGION], env)
            check.eq((c.returncode, c.stdout), (0, "200"), "curl reaches Cloud.ru (%s)" % c.stderr)

            # --- gcloud print-access-token feeding curl (the page's gcurl). ---
            if shutil.which("gcloud"):
                genv = dict(env, CLOUDSDK_CONFIG=os.path.join(tmp, "gcloud"),
                            CLOUDSDK_CORE_DISABLE_PROMPTS="1",
                            CLOUDSDK_COMPONENT_MANAGER_DISABLE_UPDATE_CHECK="1",
                            CLOUDSDK_CORE_DISABLE_USAGE_REPORTING="1")
                g = run(["gcloud", "auth", "application-default", "print-access-token"], genv)
                check(g.returncode == 0 and g.stdout.strip(), "gcloud token: %s" % g.stderr[-300:])
                c = run(["curl", "-sS", "-X", "POST", "-H", "Authorization: Bearer " + g.stdout.strip(),
                         "-H", "Content-Type: application/json", "-d", body, vertex_url()], genv)
                check('"status":200' in c.stdout.replace(" ", ""), "gcurl: %s" % c.stdout[:200])
            else:
                print("unchanged_clients: gcloud not installed, its print-access-token step skipped")

            # --- Negatives. ---
            plain = {k: v for k, v in env.items()
                     if k not in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")}
            os.environ.clear()
            os.environ.update(plain)
            try:
                requests.post(CLOUDRU_API + "/service_auth", json={})
                check(False, "a client without the CA variable must fail verification")
            except requests.exceptions.SSLError as e:
                check("CERTIFICATE_VERIFY_FAILED" in str(e), "verification failed: %s" % e)
            os.environ.update(env)
            try:
                requests.get("https://example.com/")
                check(False, "a host not emulated must be refused")
            except requests.exceptions.ProxyError as e:
                check("403 schedemu: host not emulated" in str(e), "refused with the reason: %s" % e)
            c = run(["curl", "-sS", "https://example.com/"], env)
            check(c.returncode == 56 and "403" in c.stderr, "curl refused: %s" % c.stderr)

            proxy = "127.0.0.1:%d" % proxy_port
            sc = run(["openssl", "s_client", "-proxy", proxy, "-connect", "api.ai.cloud.ru:443",
                      "-servername", "api.ai.cloud.ru", "-alpn", "h2", "-showcerts"], env, input="")
            check("No ALPN negotiated" in sc.stdout, "h2 only: no ALPN, handshake done")
            pem = sc.stdout[sc.stdout.find("-----BEGIN CERTIFICATE-----"):
                            sc.stdout.find("-----END CERTIFICATE-----") + 25]
            leaf = os.path.join(tmp, "leaf.pem")
            with open(leaf, "w") as f:
                f.write(pem + "\n")
            v = run(["openssl", "verify", "-x509_strict", "-CAfile", os.path.join(ca_dir, "ca.pem"),
                     leaf], env)
            check.eq(v.returncode, 0, "openssl verify -x509_strict: %s %s" % (v.stdout, v.stderr))

        hosts_way(check, tmp, ca_dir)
    check.finish()


HOSTS_CLIENT = r'''
import json, sys, google.auth, google.auth.transport.requests, requests
creds, _ = google.auth.default(scopes=["https://www.googleapis.com/auth/cloud-platform"])
s = google.auth.transport.requests.AuthorizedSession(creds)
r = s.post(sys.argv[1], json={"method": "HTTP_METHOD_GET", "path": "/slurm/v0.0.42/jobs"})
e = r.json()
t = requests.post("https://api.ai.cloud.ru/public/v2/service_auth",
                  json={"client_id": "demo-client", "client_secret": "demo-secret"})
print(json.dumps({"status": e["status"], "jobs": "jobs" in json.loads(e["body"]),
                  "cloudru": t.status_code}))
'''


def hosts_way(check, tmp, ca_dir):
    """/etc/hosts + --tls-listen 127.0.0.1:443 in a namespace of its own; no proxy variable."""
    probe = subprocess.run(["unshare", "-m", "-n", "true"], capture_output=True)
    if probe.returncode != 0 or not shutil.which("ip"):
        print("unchanged_clients: cannot make a mount + network namespace (unshare -m -n: %s), "
              "the /etc/hosts way skipped" % probe.stderr.decode().strip())
        return
    hosts = os.path.join(tmp, "hosts")
    line = subprocess.run([lib.BINARY, "hosts"], capture_output=True, text=True, check=True).stdout
    check(line.startswith("127.0.0.1 oauth2.googleapis.com us-central1-aiplatform.googleapis.com"),
          "hosts line %r" % line)
    with open(hosts, "w") as f:
        f.write("127.0.0.1 localhost\n" + line)
    client = os.path.join(tmp, "hosts_client.py")
    with open(client, "w") as f:
        f.write(HOSTS_CLIENT)
    script = (
        "set -e; ip link set lo up; mount --bind %(hosts)s /etc/hosts; "
        "%(bin)s serve --port 0 --clock manual --log-level warn --tls-listen 127.0.0.1:443 "
        "--ca-dir %(ca)s > %(tmp)s/hosts-serve.out & pid=$!; "
        "for i in $(seq 100); do grep -q '^tls on' %(tmp)s/hosts-serve.out 2>/dev/null && break; "
        "sleep 0.05; done; "
        "/usr/bin/python3 %(client)s %(url)s; kill $pid; wait $pid || true"
    ) % {"hosts": shlex.quote(hosts), "bin": shlex.quote(lib.BINARY), "ca": shlex.quote(ca_dir),
         "tmp": shlex.quote(tmp), "client": shlex.quote(client), "url": shlex.quote(vertex_url())}
    env = {k: v for k, v in os.environ.items()
           if k.lower() not in ("https_proxy", "curl_ca_bundle", "cloudsdk_core_custom_ca_certs_file")}
    env["REQUESTS_CA_BUNDLE"] = os.path.join(ca_dir, "ca.pem")
    r = subprocess.run(["unshare", "-m", "-n", "sh", "-c", script], env=env, capture_output=True,
                       text=True, timeout=60)
    out = r.stdout.strip().splitlines()
    check(r.returncode == 0 and out, "hosts way ran: %s %s" % (r.stdout, r.stderr[-500:]))
    if out:
        check.eq(json.loads(out[-1]), {"status": 200, "jobs": True, "cloudru": 200},
                 "hosts way: Vertex and Cloud.ru by their names")


if __name__ == "__main__":
    main()
