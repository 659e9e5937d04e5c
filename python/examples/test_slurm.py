"""Direct slurmrestd v0.0.42 listener: a spot job is preempted (requeued) by a gpu job."""

import requests


def test_spot_job_is_requeued(schedemu):
    slurm = schedemu.slurm_url("v0.0.42")
    headers = schedemu.slurm_headers()  # X-SLURM-USER-NAME / X-SLURM-USER-TOKEN

    def submit(name, partition, gpus):
        job = {"job": {"name": name, "partition": partition, "tres_per_node": "gres/gpu:%d" % gpus,
                       "nodes": "4", "current_working_directory": "/home/demo",
                       "environment": ["PATH=/bin"]},
               "script": "#!/bin/bash\nsleep 3600\n"}
        return requests.post(slurm + "/job/submit", json=job, headers=headers).json()["job_id"]

    spot = submit("spot-run", "spot", 8)            # every GPU of the cluster
    schedemu.control.advance(10)
    submit("urgent", "gpu", 8)                      # the gpu partition preempts spot
    schedemu.control.advance(10)
    view = schedemu.control.job(("demo-cluster", spot))
    assert view["state"] in ("PENDING", "PREEMPTED") and view["preemptions"]
