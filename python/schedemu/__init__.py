"""schedemu test kit: start the scheduler emulator from Python tests and drive its control API.

    from schedemu import Schedemu
    with Schedemu(scenario="examples/node-failure.json") as emu:
        ...  # point the client under test at emu.base_url; move time with emu.control.advance()

Standard library only. The pytest plugin (schedemu.pytest_plugin) adds a `schedemu` fixture.
"""

from .control import TERMINAL_STATES, ControlClient
from .credentials import Credentials
from .errors import (BadRequest, BinaryNotFound, Conflict, ControlError, Forbidden,
                     MethodNotAllowed, NotFound, SchedemuError, ServerError, StartError,
                     Unauthorized, WaitTimeout)
from .server import Schedemu, ServerCrashed, find_binary

__all__ = [
    "Schedemu", "ControlClient", "Credentials", "find_binary", "TERMINAL_STATES",
    "SchedemuError", "StartError", "BinaryNotFound", "ServerCrashed", "ControlError",
    "BadRequest", "Unauthorized", "Forbidden", "NotFound", "MethodNotAllowed", "Conflict",
    "ServerError", "WaitTimeout",
]
__version__ = "0.1.0"
