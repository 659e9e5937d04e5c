"""docs/python-kit.md keeps up with the kit: the examples it shows are python/examples/ verbatim,
and every public control method, Schedemu attribute and fixture option is in it."""

import inspect
import os

import schedemu as kit
from schedemu import pytest_plugin

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(CHECKOUT, "docs", "python-kit.md")) as f:
    DOC = f.read()


def public(cls):
    return [n for n, _ in inspect.getmembers(cls) if not n.startswith("_")]


def test_examples_are_shown_verbatim():
    folder = os.path.join(CHECKOUT, "python", "examples")
    names = sorted(n for n in os.listdir(folder) if n.startswith("test_"))
    assert names
    for name in names:
        with open(os.path.join(folder, name)) as f:
            assert f.read() in DOC, name


def test_every_control_method_is_documented():
    missing = [m for m in public(kit.ControlClient) if "`%s(" % m not in DOC]
    missing = [m for m in missing if m not in ("get", "post", "delete")]  # request() shortcuts
    assert missing == []


def test_every_schedemu_attribute_is_documented():
    emu_attrs = set(public(kit.Schedemu))
    emu_attrs |= set(inspect.signature(kit.Schedemu.__init__).parameters) - {"self"}
    missing = sorted(a for a in emu_attrs if "`%s" % a not in DOC)
    # start() and the context manager are the documented way in; host is always loopback.
    assert [a for a in missing if a not in ("start", "host")] == []


def test_every_option_and_marker_keyword_is_documented():
    for opt in ("--schedemu-binary", "--schedemu-scenario", "--schedemu-scope",
                "--schedemu-isolation", "--schedemu-clock", "--schedemu-arg"):
        assert opt in DOC and opt in inspect.getsource(pytest_plugin)
    for kw in ("scenario", "scope", "isolation", "clock", "args", "control_token", "binary"):
        assert "`%s=`" % kw in DOC
