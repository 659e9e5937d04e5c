"""Helpers of the kit's own tests: stdlib HTTP to the dialects, a Slurm job submission."""

import json
import urllib.request


def http(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers=dict({"Content-Type": "application/json"},
                                              **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def submit_slurm(emu, name="kit-job", partition="gpu", gpus=1, script="#!/bin/bash\nsleep 600\n"):
    """Submits a job through the direct slurmrestd listener; returns its Slurm job id."""
    job = {"job": {"name": name, "partition": partition, "current_working_directory": "/home/demo",
                   "environment": ["PATH=/bin:/usr/bin"], "tres_per_node": "gres/gpu:%d" % gpus},
           "script": script}
    status, body = http("POST", emu.slurm_url() + "/job/submit", job, emu.slurm_headers())
    assert status == 200, body
    return body["job_id"]
