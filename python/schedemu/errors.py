"""Typed errors of the kit. A control call that the server refuses raises a ControlError subclass
chosen by the HTTP status; its message quotes the server's own `error.message` and names the field.
"""


class SchedemuError(Exception):
    """Base class of every error the kit raises."""


class StartError(SchedemuError):
    """The binary did not start, exited, or never answered its health check.

    `stderr` holds what the process wrote on stderr (its last lines are also in the message);
    `returncode` is its exit status when it had exited (None if still running when given up on).
    """

    def __init__(self, message, stderr="", returncode=None):
        self.stderr = stderr
        self.returncode = returncode
        tail = "\n".join(stderr.strip().splitlines()[-20:])
        if tail:
            message = "%s\n--- schedemu stderr ---\n%s" % (message, tail)
        super().__init__(message)


class BinaryNotFound(StartError):
    """No schedemu binary: pass binary=, set $SCHEDEMU_BINARY, or put schedemu on PATH."""


class ControlError(SchedemuError):
    """The control API answered with an error: `{"error": {"code", "status", "field", "message"}}`.

    Attributes: status (HTTP status), code_name (e.g. "INVALID_ARGUMENT"), field (the request
    field or path part at fault), server_message (the server's wording), method, path, body (the
    raw answer text).
    """

    def __init__(self, status, method, path, field=None, server_message=None, code_name=None,
                 body=""):
        self.status = status
        self.method = method
        self.path = path
        self.field = field
        self.server_message = server_message
        self.code_name = code_name
        self.body = body
        detail = server_message if server_message is not None else body[:500]
        where = " (field %s)" % field if field else ""
        super().__init__("%s %s -> %d%s: %s" % (method, path, status, where, detail))


class BadRequest(ControlError):
    """400: a missing or malformed field; `field` names it."""


class Unauthorized(ControlError):
    """401: a control token is set and the request did not carry it (or carried another)."""


class Forbidden(ControlError):
    """403: the Host/Origin guard refused the request."""


class NotFound(ControlError):
    """404: an unknown job, node, allocation, rule, fault, snapshot, cluster or route."""


class MethodNotAllowed(ControlError):
    """405: the route exists but not with this method."""


class Conflict(ControlError):
    """409: a duplicate name, an overlapping reservation, a cluster without a JWT key..."""


class ServerError(ControlError):
    """5xx."""


_BY_STATUS = {400: BadRequest, 401: Unauthorized, 403: Forbidden, 404: NotFound,
              405: MethodNotAllowed, 409: Conflict}


def error_for_status(status):
    """The ControlError subclass for an HTTP status."""
    if status >= 500:
        return ServerError
    return _BY_STATUS.get(status, ControlError)


class WaitTimeout(SchedemuError):
    """wait_for_job: the job did not reach the state within the virtual time allowed (or the
    world ran out of events first). `job` is its last view."""

    def __init__(self, message, job=None):
        self.job = job
        super().__init__(message)
