"""Validation of slurmrestd answers against the saved v0.0.42 OpenAPI spec (python3-jsonschema).

The spec's `required` lists need fixing first: Slurm emits empty lists and path-style entries
("nodes/count" = nested property `count` of `nodes`). We drop empty lists, turn path-style entries
into nested requirements, and forbid properties the spec does not define (additionalProperties:
false) so a misspelt or invented field fails the contract.
"""

import copy
import json
import os

import jsonschema

SOURCE_DIR = os.environ.get(
    "SCHEDEMU_SOURCE_DIR",
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# The copies kept in the repository (tests/contract/specs/PROVENANCE.md says where each came from).
SPEC_DIRS = [
    os.environ.get("SCHEDEMU_SLURM_SPEC_DIR", ""),
    os.path.join(SOURCE_DIR, "tests", "contract", "specs"),
]


def _fix(schema):
    if isinstance(schema, list):
        for s in schema:
            _fix(s)
        return
    if not isinstance(schema, dict):
        return
    req = schema.get("required")
    if isinstance(req, list):
        plain = [r for r in req if "/" not in r]
        for r in req:
            if "/" in r:
                head, rest = r.split("/", 1)
                plain.append(head)
                sub = schema.get("properties", {}).get(head)
                if isinstance(sub, dict) and "$ref" not in sub:
                    sub.setdefault("required", []).append(rest)
        plain = sorted(set(plain))
        if plain:
            schema["required"] = plain
        else:
            schema.pop("required", None)
    for v in schema.values():
        _fix(v)
    # Nested required lists created above may themselves be path-style.
    req = schema.get("required")
    if isinstance(req, list) and any("/" in r for r in req):
        _fix(schema)
    if schema.get("type") == "object" and "properties" in schema and \
            "additionalProperties" not in schema:
        schema["additionalProperties"] = False


def load_spec(version="v0.0.42"):
    for d in SPEC_DIRS:
        path = os.path.join(d, "slurm-%s.openapi.json" % version) if d else ""
        if path and os.path.exists(path):
            with open(path) as f:
                spec = json.load(f)
            fixed = copy.deepcopy(spec)
            _fix(fixed["components"]["schemas"])
            return spec, fixed
    raise FileNotFoundError("slurm-%s.openapi.json not found in %r" % (version, SPEC_DIRS))


class Contract:
    def __init__(self, version="v0.0.42"):
        self.raw, self.spec = load_spec(version)
        self.resolver = jsonschema.RefResolver.from_schema(self.spec)

    def schema_for(self, method, path):
        """Response schema name of the operation serving `path` (template match)."""
        path = path.split("?", 1)[0]
        segs = [s for s in path.split("/") if s]
        for template, ops in self.raw["paths"].items():
            tsegs = [s for s in template.split("/") if s]
            if len(tsegs) != len(segs):
                continue
            if all(t == s or (t.startswith("{") and t.endswith("}")) for t, s in zip(tsegs, segs)):
                op = ops.get(method.lower())
                if op is None:
                    continue
                ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
                return ref.rsplit("/", 1)[1]
        raise KeyError("no operation for %s %s" % (method, path))

    def errors(self, method, path, body):
        name = self.schema_for(method, path)
        validator = jsonschema.Draft7Validator(
            {"$ref": "#/components/schemas/" + name}, resolver=self.resolver)
        return name, ["%s at %s" % (e.message[:300], "/".join(str(p) for p in e.absolute_path))
                      for e in validator.iter_errors(body)]
