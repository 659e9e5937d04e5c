"""Vertex AI callSlurmRestApi envelope with google-auth: the token comes from the emulator's
OAuth endpoint, the envelope carries slurmrestd v0.0.42 calls."""

import google.auth.transport.requests
import google.oauth2.credentials


def test_envelope_submit_and_list(schedemu):
    creds = google.oauth2.credentials.Credentials(
        None, refresh_token="demo@example.com", token_uri=schedemu.token_uri,
        client_id="any", client_secret="any")
    session = google.auth.transport.requests.AuthorizedSession(creds)
    url = schedemu.vertex_url()  # .../modelDevelopmentClusters/demo-cluster:callSlurmRestApi

    submit = {"method": "HTTP_METHOD_POST", "path": "/slurm/v0.0.42/job/submit",
              "body": {"job": {"name": "train", "partition": "gpu", "tres_per_node": "gres/gpu:8",
                               "current_working_directory": "/home/demo",
                               "environment": ["PATH=/bin"]},
                       "script": "#!/bin/bash\nsleep 600\n"}}
    answer = session.post(url, json=submit).json()
    assert answer["status"] == 200
    job_id = answer["structuredBody"]["job_id"]

    schedemu.control.advance(60)
    listed = session.post(url, json={"method": "HTTP_METHOD_GET",
                                     "path": "/slurm/v0.0.42/job/%d" % job_id}).json()
    assert listed["structuredBody"]["jobs"][0]["job_state"] == ["RUNNING"]
