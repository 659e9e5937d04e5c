"""The package installs from the checkout offline (a venv over Debian's site packages, Debian's
pip without build isolation or an index) and pytest then loads the plugin by its entry point, with or
without `-p schedemu.pytest_plugin` given too."""

import importlib.util
import os
import shutil
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.skipif(not (importlib.util.find_spec("pip") and importlib.util.find_spec("setuptools")),
                    reason="python3-pip (with python3-setuptools) is not installed")
def test_pip_install_and_entry_point(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", "tests", "examples"))
    venv = tmp_path / "venv"
    # Without a pip of its own: Debian's (a system site package) installs into the venv.
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the installed copy only
    r = subprocess.run([py, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-index",
                        "--disable-pip-version-check",
                        str(src)], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_it.py").write_text(
        "import schedemu\n"
        "def test_it(schedemu):\n"
        "    assert schedemu.control.health() == {'status': 'ok'}\n"
        "    assert 'site-packages' in __import__('schedemu').__file__\n")
    for extra in ([], ["-p", "schedemu.pytest_plugin"]):
        r = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider"] + extra,
                           cwd=project, capture_output=True, text=True, env=env)
        assert r.returncode == 0 and "1 passed" in r.stdout, r.stdout + r.stderr
