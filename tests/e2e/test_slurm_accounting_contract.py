"""Contract test of the accounting views: every answer of GET /slurmdb/{v}/accounts, account/{name},
associations, association, users, user/{name}, qos, qos/{qos}, clusters, cluster/{name}, tres,
config, diag and GET /slurm/{v}/licenses, shares validates against the response schema of its
operation in the v0.0.42, v0.0.43 and v0.0.44 OpenAPI documents, for the fresh default cluster
and for a cluster with accounts, sub-accounts, users in several accounts, QOS with limits and
licenses, on hits, misses and filtered queries."""

import json
import os
import sys

import requests

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schedemu_testlib as lib  # noqa: E402
from slurm_contract_lib import Contract  # noqa: E402

VERSIONS = ("v0.0.42", "v0.0.43", "v0.0.44")

# Paths under /slurm{db}/{version}/, each tried on both worlds.
PATHS = [
    "/slurmdb/{v}/accounts/", "/slurmdb/{v}/accounts?WithAssociations=true",
    "/slurmdb/{v}/accounts?description=nope", "/slurmdb/{v}/account/root",
    "/slurmdb/{v}/account/root?with_assocs=true", "/slurmdb/{v}/account/nope",
    "/slurmdb/{v}/associations/", "/slurmdb/{v}/associations?user=root",
    "/slurmdb/{v}/associations?account=nope", "/slurmdb/{v}/association?account=root&user=root",
    "/slurmdb/{v}/association/", "/slurmdb/{v}/users/", "/slurmdb/{v}/users?with_assocs",
    "/slurmdb/{v}/user/root", "/slurmdb/{v}/user/nope", "/slurmdb/{v}/qos/",
    "/slurmdb/{v}/qos/normal", "/slurmdb/{v}/qos/nope", "/slurmdb/{v}/qos?name=nope",
    "/slurmdb/{v}/clusters/", "/slurmdb/{v}/clusters?update_time=0",
    "/slurmdb/{v}/tres/", "/slurmdb/{v}/config", "/slurmdb/{v}/diag/",
    "/slurm/{v}/licenses/", "/slurm/{v}/shares", "/slurm/{v}/shares?users=root",
]

# A cluster with the scenario's accounting fields (examples/default.json's cluster plus them).
RICH = {
    "accounts": [{"name": "physic", "description": "Physics", "qos": ["normal", "gpu"]},
                 {"name": "optic", "parent": "physic", "organization": "lab"}],
    "qos": [{"name": "gpu", "priority": 10, "flags": ["DENY_LIMIT"], "grp_jobs": 4,
             "max_tres_per_job": "cpu=16,mem=32G,gres/gpu=8", "grp_tres": "node=2",
             "min_tres_per_job": "gres/gpu=1", "max_wall": "2h", "grp_wall": "UNLIMITED",
             "grace_time": "30s", "preempt": ["normal"], "preempt_mode": "REQUEUE",
             "usage_factor": 2.5}],
    "licenses": [{"name": "matlab", "count": 10}],
}


def rich_scenario():
    with open(os.path.join(lib.SOURCE_DIR, "examples", "default.json")) as f:
        scenario = json.load(f)
    cluster = scenario["slurm_clusters"][0]
    cluster.update(RICH)
    cluster["users"][0]["accounts"] = ["optic"]
    cluster["users"][1]["account"] = "optic"
    cluster["users"][1]["admin_level"] = "Operator"
    return scenario


def main():
    check = lib.Check("slurm_accounting_contract")
    contracts = {v: Contract(v) for v in VERSIONS}
    headers = {"X-SLURM-USER-NAME": "demo", "X-SLURM-USER-TOKEN": "demo-token"}
    with lib.Server() as srv:
        s = requests.Session()
        for world in ("default", "rich"):
            if world == "rich":
                srv.control("POST", "scenario", rich_scenario())
            seen = set()
            for v in VERSIONS:
                extra = ["/slurmdb/{v}/cluster/demo-cluster", "/slurmdb/{v}/account/optic",
                         "/slurmdb/{v}/qos/gpu", "/slurmdb/{v}/associations?qos=gpu",
                         "/slurm/{v}/shares?accounts=physic"]
                for template in PATHS + extra:
                    path = template.format(v=v)
                    r = s.get(srv.base_url + path, headers=headers)
                    check.eq(r.headers.get("Content-Type"), "application/json", path)
                    body = r.json()
                    name, errs = contracts[v].errors("GET", path, body)
                    seen.add(name.split("_", 1)[1])
                    check(not errs, "%s %s (%s, status %d): %s" %
                          (world, path, name, r.status_code, errs[:5]))
                    check.eq(body["meta"]["plugin"]["data_parser"], "data_parser/" + v, path)
            for needed in ("openapi_accounts_resp", "openapi_assocs_resp", "openapi_users_resp",
                           "openapi_slurmdbd_qos_resp", "openapi_clusters_resp",
                           "openapi_tres_resp", "openapi_slurmdbd_config_resp",
                           "openapi_slurmdbd_stats_resp", "openapi_licenses_resp",
                           "openapi_shares_resp"):
                check(needed in seen, "%s: an answer validated as %s" % (world, needed))
        # Through the Vertex envelope: the same handlers, the same shapes.
        envelope = ("/v1beta1/projects/demo-project/locations/us-central1/"
                    "modelDevelopmentClusters/demo-cluster:callSlurmRestApi")
        for v in VERSIONS:
            for path in ("/slurmdb/%s/associations" % v, "/slurmdb/%s/qos/gpu" % v,
                         "/slurm/%s/shares" % v):
                r = s.post(srv.base_url + envelope, json={"method": "HTTP_METHOD_GET", "path": path},
                           headers={"Authorization": "Bearer demo-token"})
                check.eq(r.status_code, 200, "envelope " + path)
                out = r.json()
                check.eq(out.get("status"), 200, "envelope status " + path)
                name, errs = contracts[v].errors("GET", path, out.get("structuredBody"))
                check(not errs, "envelope %s (%s): %s" % (path, name, errs[:5]))
        # The rich world's values reached the answers (the contract alone would pass on []).
        r = s.get(srv.base_url + "/slurmdb/v0.0.44/qos/gpu", headers=headers).json()
        check.eq([q["name"] for q in r["qos"]], ["gpu"], "qos/gpu found")
        r = s.get(srv.base_url + "/slurm/v0.0.44/licenses", headers=headers).json()
        check.eq([(x["LicenseName"], x["Total"], x["Free"], x["Nodes"]) for x in r["licenses"]],
                 [("matlab", 10, 10, "")], "licenses from the scenario")
    check.finish()


if __name__ == "__main__":
    main()
