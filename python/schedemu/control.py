"""A client of the emulator's control API (`/emulator/v1` and `/metrics`), standard library only.

Every method is one route (see docs/python-kit.md for the table); answers are the server's JSON
decoded (dicts and lists), errors raise a ControlError subclass quoting the server's message.
"""

import datetime
import json
import socket
import urllib.error
import urllib.parse
import urllib.request

from .errors import ControlError, WaitTimeout, error_for_status

# Job states of the model (`state` in a job view); `status` carries the dialect's wire status.
TERMINAL_STATES = ("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "PREEMPTED")

_DEFAULT_WAIT = 30 * 24 * 3600  # virtual seconds wait_for_job allows by default (30 days)


def _rfc3339_unix(text):
    """Unix seconds of the clock's RFC 3339 times ("2026-01-01T00:00:00.000Z")."""
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def _quote(part):
    return urllib.parse.quote(str(part), safe=":")


def job_ref_path(ref):
    """The path segment of GET jobs/{ref}: an id (int), a job name (str) or (cluster, job_id)."""
    if isinstance(ref, tuple):
        cluster, job_id = ref
        return _quote("%s:%s" % (cluster, job_id))
    return _quote(ref)


def job_selector(ref):
    """The body naming a job in POST jobs/{action}: {"id"}, {"job_name"} or {"cluster","job_id"}."""
    if isinstance(ref, bool):
        raise TypeError("a job is named by an id, a job name or (cluster, job_id)")
    if isinstance(ref, int):
        return {"id": ref}
    if isinstance(ref, tuple):
        cluster, job_id = ref
        return {"cluster": cluster, "job_id": int(job_id)}
    if isinstance(ref, dict):  # a job view: its id
        return {"id": ref["id"]}
    return {"job_name": str(ref)}


class ControlClient:
    """`ControlClient("http://127.0.0.1:PORT", token=None)`; `Schedemu(...).control` is one."""

    def __init__(self, base_url, token=None, timeout=30.0):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # --- transport ----------------------------------------------------------------------------
    def _headers(self, extra=None):
        headers = {"Accept": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        headers.update(extra or {})
        return headers

    def request(self, method, path, body=None, query=None, raw=False):
        """One control call: `path` relative to /emulator/v1 (or absolute, e.g. "/metrics").
        `body` is JSON-encoded unless it is str/bytes (sent as is). Returns the decoded JSON
        (None for an empty answer), or the text when raw=True."""
        url = self.base_url + (path if path.startswith("/") else "/emulator/v1/" + path)
        if query:
            url += "?" + urllib.parse.urlencode({k: v for k, v in query.items() if v is not None})
        data = None
        headers = {}
        if body is not None:
            if isinstance(body, str):
                data = body.encode()
            elif isinstance(body, bytes):
                data = body
            else:
                data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif method in ("POST", "PUT", "PATCH"):
            data = b""
        req = urllib.request.Request(url, data=data, method=method, headers=self._headers(headers))
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                text = resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")
            raise self._error(e.code, method, path, text) from None
        if raw:
            return text
        return json.loads(text) if text.strip() else None

    @staticmethod
    def _error(status, method, path, text):
        field = message = code_name = None
        try:
            err = json.loads(text).get("error")
            if isinstance(err, dict):
                field, message, code_name = err.get("field"), err.get("message"), err.get("status")
            elif isinstance(err, str):
                message = err
        except (ValueError, AttributeError):
            pass
        cls = error_for_status(status)
        return cls(status, method, path, field=field, server_message=message, code_name=code_name,
                   body=text)

    def __call__(self, method, path, body=None):
        """`control("POST", "clock/advance", {"seconds": 5})`: the same as request()."""
        return self.request(method, path, body=body)

    def get(self, path, **query):
        return self.request("GET", path, query=query or None)

    def post(self, path, body=None):
        return self.request("POST", path, body=body)

    def delete(self, path):
        return self.request("DELETE", path)

    # --- the world ---------------------------------------------------------------------------
    def health(self):
        """GET health: {"status": "ok"}."""
        return self.get("health")

    def state(self):
        """GET state: the whole world (clock, allocations, nodes, queues, jobs, rules, faults...)."""
        return self.get("state")

    def reset(self):
        """POST reset: back to the loaded scenario, same seed, faults cleared."""
        return self.post("reset")

    def load_scenario(self, scenario):
        """POST scenario: replace the world. `scenario` is a dict, JSON text, or a file path."""
        if isinstance(scenario, str) and not scenario.lstrip().startswith("{"):
            with open(scenario) as f:
                scenario = f.read()
        return self.post("scenario", scenario)

    # --- the virtual clock -------------------------------------------------------------------
    def clock(self):
        """GET clock: now, now_unix, start, elapsed_seconds, mode, speed, next_event, active_jobs."""
        return self.get("clock")

    def advance(self, seconds):
        """POST clock/advance: `seconds` is a number or a duration string ("90s", "2h")."""
        return self.post("clock/advance", {"seconds": seconds})

    def set_time(self, time):
        """POST clock/set: unix seconds or RFC 3339; never backwards (400)."""
        return self.post("clock/set", {"time": time})

    def set_speed(self, speed):
        """POST clock/speed: the realtime clock's scale (> 0, <= 1e6)."""
        return self.post("clock/speed", {"speed": speed})

    def run_until_idle(self, max_seconds=None):
        """POST clock/run-until-idle: event by event until nothing can move (cap 30 virtual days
        unless `max_seconds`). Answers the clock plus events_processed, advanced_seconds, idle."""
        return self.post("clock/run-until-idle",
                         {} if max_seconds is None else {"max_seconds": max_seconds})

    # --- capacity ----------------------------------------------------------------------------
    def add_node(self, name, allocation=None, cluster=None):
        """POST nodes: a node like the allocation's (Cloud.ru) or the cluster's (Slurm)."""
        body = {"name": name}
        if allocation is not None:
            body["allocation"] = allocation
        if cluster is not None:
            body["cluster"] = cluster
        return self.post("nodes", body)

    def remove_node(self, name):
        """DELETE nodes/{node}."""
        return self.delete("nodes/" + _quote(name))

    def _node_state(self, name, state, reason):
        return self.post("nodes/%s/%s" % (_quote(name), state),
                         {} if reason is None else {"reason": reason})

    def node_down(self, name, reason=None):
        """POST nodes/{node}/down: its jobs fail or requeue as the dialect does."""
        return self._node_state(name, "down", reason)

    def node_up(self, name, reason=None):
        """POST nodes/{node}/up."""
        return self._node_state(name, "up", reason)

    def node_drain(self, name, reason=None):
        """POST nodes/{node}/drain: running jobs finish, nothing new starts."""
        return self._node_state(name, "drain", reason)

    def take_gpus(self, allocation, count):
        """POST allocations/{name}/take-gpus: GPUs held by other tenants."""
        return self.post("allocations/%s/take-gpus" % _quote(allocation), {"count": count})

    def return_gpus(self, allocation, count):
        """POST allocations/{name}/return-gpus."""
        return self.post("allocations/%s/return-gpus" % _quote(allocation), {"count": count})

    # --- jobs --------------------------------------------------------------------------------
    def jobs(self):
        """GET jobs: every job's view (a list)."""
        return self.get("jobs")["jobs"]

    def job(self, ref):
        """GET jobs/{ref}: one job's view plus its `output`. `ref`: id, job name or
        (cluster, job_id)."""
        return self.get("jobs/" + job_ref_path(ref))

    def job_action(self, action, ref, **extra):
        """POST jobs/{action} (preempt, fail, finish, hold, release) for the job `ref`."""
        body = job_selector(ref)
        body.update(extra)
        return self.post("jobs/" + _quote(action), body)

    def preempt(self, ref):
        return self.job_action("preempt", ref)

    def fail(self, ref, exit_code=None):
        return self.job_action("fail", ref, **({} if exit_code is None else
                                               {"exit_code": exit_code}))

    def finish(self, ref):
        return self.job_action("finish", ref)

    def hold(self, ref):
        return self.job_action("hold", ref)

    def release(self, ref):
        return self.job_action("release", ref)

    def wait_for_job(self, ref, states=TERMINAL_STATES, within=_DEFAULT_WAIT):
        """Moves the virtual clock event by event until the job's `state` (or its wire `status`)
        is one of `states` (a string or a tuple); returns its view. Raises WaitTimeout when that
        does not happen within `within` virtual seconds, or when no event is left to move to.
        Needs the manual clock. A job that does not exist yet raises NotFound."""
        if isinstance(states, str):
            states = (states,)
        deadline = None
        while True:
            view = self.job(ref)
            if view.get("state") in states or view.get("status") in states:
                return view
            clock = self.clock()
            if deadline is None:
                deadline = clock["now_unix"] + float(within)
            nxt = clock.get("next_event")
            if nxt is None:
                raise WaitTimeout("job %r is %s (status %s, reason %r) and no event is left; "
                                  "waited for %s" % (ref, view.get("state"), view.get("status"),
                                                     view.get("reason"), "/".join(states)), view)
            if clock["now_unix"] >= deadline:
                raise WaitTimeout("job %r is still %s (status %s, reason %r) after %s virtual "
                                  "seconds; waited for %s" % (
                                      ref, view.get("state"), view.get("status"),
                                      view.get("reason"), within, "/".join(states)), view)
            # The next event, but never past the deadline (the clock does not go back).
            if _rfc3339_unix(nxt) > deadline:
                self.set_time(deadline)
            else:
                self.set_time(nxt)

    # --- behaviour rules ---------------------------------------------------------------------
    def rules(self):
        """GET behaviour-rules (a list)."""
        return self.get("behaviour-rules")["rules"]

    def add_rule(self, match=None, behaviour=None, **extra):
        """POST behaviour-rules: {"match": {dialect, tenant, queue, name_pattern}, "behaviour":
        {runtime, exit_code, output, fail_at}}; answers the rule with its id."""
        body = dict(extra)
        if match is not None:
            body["match"] = match
        if behaviour is not None:
            body["behaviour"] = behaviour
        return self.post("behaviour-rules", body)

    def rule(self, rule_id):
        return self.get("behaviour-rules/" + _quote(rule_id))

    def delete_rule(self, rule_id):
        return self.delete("behaviour-rules/" + _quote(rule_id))

    # --- faults ------------------------------------------------------------------------------
    def faults(self):
        """GET faults (a list)."""
        return self.get("faults")["faults"]

    def add_fault(self, match=None, **fields):
        """POST faults: match={dialect, method, path, tenant}, and status=503 or "UNAVAILABLE",
        message, latency_ms, drop, first / nth / probability. Answers the fault with its id."""
        body = dict(fields)
        if match is not None:
            body["match"] = match
        return self.post("faults", body)

    def fault(self, fault_id):
        return self.get("faults/" + _quote(fault_id))

    def delete_fault(self, fault_id):
        return self.delete("faults/" + _quote(fault_id))

    def clear_faults(self):
        """DELETE faults: all of them; answers {"deleted": N}."""
        return self.delete("faults")

    # --- snapshots ---------------------------------------------------------------------------
    def snapshots(self):
        """GET snapshots (a list of {name, time})."""
        return self.get("snapshots")["snapshots"]

    def save_snapshot(self, name):
        return self.post("snapshots/" + _quote(name))

    def restore_snapshot(self, name):
        return self.post("snapshots/%s/restore" % _quote(name))

    def delete_snapshot(self, name):
        return self.delete("snapshots/" + _quote(name))

    # --- Slurm -------------------------------------------------------------------------------
    def slurm_token(self, cluster=None, username=None, lifespan=None):
        """POST slurm/token (`scontrol token`): {"token", "scontrol": "SLURM_JWT=...", ...}."""
        body = {k: v for k, v in (("cluster", cluster), ("username", username),
                                  ("lifespan", lifespan)) if v is not None}
        return self.post("slurm/token", body)

    def reservations(self, cluster):
        """GET clusters/{cluster}/reservations (a list)."""
        return self.get("clusters/%s/reservations" % _quote(cluster))["reservations"]

    def add_reservation(self, cluster, reservation=None, **fields):
        """POST clusters/{cluster}/reservations: as a scenario reservation (name, nodes, users,
        accounts, flags, start, duration/end, partition)."""
        body = dict(reservation or {})
        body.update(fields)
        return self.post("clusters/%s/reservations" % _quote(cluster), body)

    def delete_reservation(self, cluster, name):
        return self.delete("clusters/%s/reservations/%s" % (_quote(cluster), _quote(name)))

    # --- what happened -----------------------------------------------------------------------
    def events(self, since=0, limit=None):
        """GET events: {"events": [...], "next_since": N} (pass next_since back to page on)."""
        return self.get("events", since=since, limit=limit)

    def event_list(self, since=0, kind=None):
        """Every event after `since` (all pages), optionally only those of one `kind`."""
        out = []
        while True:
            page = self.events(since=since)
            out.extend(page["events"])
            if not page["events"] or page["next_since"] == since:
                break
            since = page["next_since"]
        return [e for e in out if kind is None or e.get("kind") == kind]

    def stream_events(self, since=0, timeout=10.0):
        """GET events/stream (Server-Sent Events): yields each event as a dict with its `event`
        name ("message" unless the server named it, e.g. "reset") and `data` decoded. Stops when
        no event arrives for `timeout` wall seconds."""
        url = self.base_url + "/emulator/v1/events/stream?since=%d" % since
        req = urllib.request.Request(url, headers=self._headers({"Accept": "text/event-stream"}))
        try:
            resp = urllib.request.urlopen(req, timeout=timeout)
        except urllib.error.HTTPError as e:
            raise self._error(e.code, "GET", "events/stream", e.read().decode()) from None
        with resp:
            name, data = "message", []
            while True:
                try:
                    line = resp.readline()
                except (socket.timeout, TimeoutError):
                    return
                if not line:
                    return
                line = line.decode("utf-8", "replace").rstrip("\r\n")
                if line == "":
                    if data:
                        text = "\n".join(data)
                        try:
                            decoded = json.loads(text)
                        except ValueError:
                            decoded = text
                        yield {"event": name, "data": decoded}
                    name, data = "message", []
                elif line.startswith("event:"):
                    name = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].lstrip())

    def metrics(self):
        """GET /metrics: the Prometheus text."""
        return self.request("GET", "/metrics", raw=True)

    def metric(self, name, **labels):
        """The value of one sample of /metrics (labels must all match); None when absent."""
        for line in self.metrics().splitlines():
            if line.startswith("#") or not line.strip():
                continue
            key, _, value = line.rpartition(" ")
            metric, _, rest = key.partition("{")
            if metric != name:
                continue
            got = {}
            for part in rest.rstrip("}").split(","):
                if "=" in part:
                    k, v = part.split("=", 1)
                    got[k.strip()] = v.strip().strip('"')
            if all(got.get(k) == str(v) for k, v in labels.items()):
                return float(value)
        return None
