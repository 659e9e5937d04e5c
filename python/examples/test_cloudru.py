"""Cloud.ru ML Space API v2: submit a training job, let two virtual hours pass, see it finish."""

import requests


def test_training_job_completes(schedemu):
    api = schedemu.cloudru_url
    headers = schedemu.cloudru_headers()  # service_auth with the scenario's service account
    job = {"script": "/home/jovyan/train.py", "base_image": "cr.ai.cloud.ru/img:1",
           "instance_type": "a100.1gpu", "region": "SR008", "type": "pytorch2",
           "env_variables": {"SCHEDEMU_RUNTIME": "2h"}}
    name = requests.post(api + "/jobs", json=job, headers=headers).json()["job_name"]

    schedemu.control.advance("30m")
    assert requests.get(api + "/jobs/" + name, headers=headers).json()["status"] == "running"
    done = schedemu.control.wait_for_job(name, "COMPLETED")  # moves the virtual clock
    assert done["exit_code"] == 0
    headers = schedemu.cloudru_headers()  # the token expired: 1 h of virtual time
    assert requests.get(api + "/jobs/" + name, headers=headers).json()["status"] == "completed"
