"""The credentials a scenario gives its clients, read from the scenario file itself (the embedded
default's are the documented demo values below). A secret given only as its `*_sha256` digest in
the scenario is unknown here (None)."""

import json

# examples/default.json, the scenario compiled into the binary (the kit's tests check they agree).
DEFAULT_SCENARIO = {
    "workspaces": [
        {"id": "11111111-1111-4111-8111-111111111111", "name": "demo", "api_key": "demo-api-key",
         "service_accounts": [{"client_id": "demo-client", "client_secret": "demo-secret",
                               "email": "demo-client@demo.sa.cloud.ru"}]},
        {"id": "22222222-2222-4222-8222-222222222222", "name": "other",
         "api_key": "other-api-key",
         "service_accounts": [{"client_id": "other-client", "client_secret": "other-secret",
                               "email": "other-client@other.sa.cloud.ru"}]},
    ],
    "principals": [
        {"email": "demo@example.com", "token": "demo-token", "projects": ["demo-project"],
         "linux_user": "demo"},
        {"email": "other@example.com", "token": "other-token", "projects": ["demo-project"],
         "linux_user": "other"},
        {"email": "demo-sa@demo-project.iam.gserviceaccount.com", "projects": ["demo-project"],
         "linux_user": "demo"},
        {"email": "other-sa@demo-project.iam.gserviceaccount.com", "projects": ["demo-project"],
         "linux_user": "other"},
    ],
    "slurm_clusters": [
        {"name": "demo-cluster", "project": "demo-project", "location": "us-central1"},
    ],
}


class Workspace:
    """A Cloud.ru workspace: id, name, api_key, and its service accounts' (client_id,
    client_secret, email)."""

    def __init__(self, doc):
        self.id = doc.get("id")
        self.name = doc.get("name")
        self.api_key = doc.get("api_key")
        self.service_accounts = [
            (sa.get("client_id"), sa.get("client_secret"), sa.get("email"))
            for sa in doc.get("service_accounts", [])]

    @property
    def client_id(self):
        return self.service_accounts[0][0] if self.service_accounts else None

    @property
    def client_secret(self):
        return self.service_accounts[0][1] if self.service_accounts else None

    def __repr__(self):
        return "Workspace(%r, id=%r)" % (self.name, self.id)


class Principal:
    """A Google / Slurm identity: e-mail, static bearer token (None if absent or hashed), the
    Linux user Slurm sees, the projects it may call."""

    def __init__(self, doc):
        self.email = doc.get("email")
        self.token = doc.get("token")
        self.linux_user = doc.get("linux_user")
        self.projects = list(doc.get("projects", []))

    def __repr__(self):
        return "Principal(%r, linux_user=%r)" % (self.email, self.linux_user)


class Cluster:
    """A Slurm cluster of the Vertex API: its name, project, location and resource path."""

    def __init__(self, doc):
        self.name = doc.get("name")
        self.project = doc.get("project")
        self.location = doc.get("location")
        self.jwt_key = doc.get("jwt_key")

    @property
    def resource(self):
        return "projects/%s/locations/%s/modelDevelopmentClusters/%s" % (
            self.project, self.location, self.name)

    def __repr__(self):
        return "Cluster(%r)" % self.resource


class Credentials:
    """`creds.workspaces`, `creds.principals`, `creds.clusters`, and shortcuts for the first
    of each: `creds.workspace`, `creds.principal` (the first with a token), `creds.cluster`."""

    def __init__(self, scenario_doc):
        doc = scenario_doc or {}
        self.workspaces = [Workspace(w) for w in doc.get("workspaces", [])]
        self.principals = [Principal(p) for p in doc.get("principals", [])]
        self.clusters = [Cluster(c) for c in doc.get("slurm_clusters", [])]

    @classmethod
    def of_scenario(cls, scenario):
        """From a scenario dict, JSON text or file path; None means the embedded default."""
        if scenario is None:
            return cls(DEFAULT_SCENARIO)
        if isinstance(scenario, dict):
            return cls(scenario)
        text = str(scenario)
        if not text.lstrip().startswith("{"):
            with open(text) as f:
                text = f.read()
        return cls(json.loads(text))

    @property
    def workspace(self):
        return self.workspaces[0] if self.workspaces else None

    @property
    def principal(self):
        return next((p for p in self.principals if p.token), None)

    @property
    def cluster(self):
        return self.clusters[0] if self.clusters else None

    def find_workspace(self, name_or_id):
        return next(w for w in self.workspaces if name_or_id in (w.name, w.id))

    def find_principal(self, email_or_user):
        return next(p for p in self.principals
                    if email_or_user in (p.email, p.linux_user) and p.token)

    def slurm_headers(self, principal=None):
        """X-SLURM-USER-NAME / X-SLURM-USER-TOKEN of a principal (the first with a token)."""
        p = self.find_principal(principal) if principal else self.principal
        return {"X-SLURM-USER-NAME": p.linux_user, "X-SLURM-USER-TOKEN": p.token}
