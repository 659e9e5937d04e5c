"""The docs hold together (scripts/check_docs.py), and the checker catches what it is for.

- the repository's README.md, ARCHITECTURE.md, scheduler/README.md and docs/*.md: every relative
  link resolves and every docs/ page is linked from README.md;
- on a small tree made here: a link to a missing file, a fragment naming no heading, and a docs/
  page README does not link are each reported (exit 1); GitHub's heading anchors (punctuation
  dropped, duplicates numbered, code spans) resolve; links inside code are not links;
- every flag `schedemu --help` lists is documented in docs/cli.md;
- README's pytest example (its ```python block) passes, run as the README says, with the kit's
  plugin against the binary under test.

Run with Debian's /usr/bin/python3. Exits non-zero on any failure.
"""

import os
import re
import subprocess
import sys
import tempfile

SOURCE_DIR = os.environ.get(
    "SCHEDEMU_SOURCE_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CHECKER = os.path.join(SOURCE_DIR, "scripts", "check_docs.py")

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL: " + message, file=sys.stderr)


def run_checker(root):
    return subprocess.run([sys.executable, CHECKER, "--root", root], capture_output=True,
                          text=True, timeout=60)


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


def make_tree(root, readme):
    write(root, "ARCHITECTURE.md", "# Architecture\n")
    write(root, "scheduler/README.md", "# Rooms\n[up](../README.md)\n")
    write(root, "docs/a.md",
          "# Page A\n\n## Slurm JWTs (rest_auth/jwt)\n\n## The answer's two forms\n\n"
          "## Twice\n\n## Twice\n\n## `code` in a heading\n\n"
          "```\n[not a link](missing.md)\n```\n`[not a link either](missing.md)`\n"
          "[back](../README.md#front)\n")
    write(root, "README.md", readme)


# The repository itself.
result = run_checker(SOURCE_DIR)
check(result.returncode == 0, "the repository's docs: " + result.stdout.strip())

GOOD = ("# Front\n\n[a](docs/a.md) [jwt](docs/a.md#slurm-jwts-rest_authjwt) "
        "[forms](docs/a.md#the-answers-two-forms) [second](docs/a.md#twice-1) "
        "[code](docs/a.md#code-in-a-heading) [web](https://example.com/x.md) ![pic](docs/a.md)\n")

with tempfile.TemporaryDirectory() as root:
    make_tree(root, GOOD)
    result = run_checker(root)
    check(result.returncode == 0, "a tree whose links all resolve: " + result.stdout.strip())

    make_tree(root, GOOD + "[gone](docs/gone.md)\n")
    result = run_checker(root)
    check(result.returncode == 1 and "README.md:4: docs/gone.md: no such file" in result.stdout,
          "a link to a missing file is reported with its line: " + result.stdout.strip())

    make_tree(root, GOOD + "[bad anchor](docs/a.md#no-such-heading)\n")
    result = run_checker(root)
    check(result.returncode == 1 and "no heading with anchor #no-such-heading" in result.stdout,
          "a fragment naming no heading is reported: " + result.stdout.strip())

    make_tree(root, GOOD)
    write(root, "docs/orphan.md", "# Orphan\n")
    result = run_checker(root)
    check(result.returncode == 1 and "docs/orphan.md: not linked from README.md" in result.stdout,
          "a docs page README does not link is reported: " + result.stdout.strip())

# docs/cli.md documents every flag `schedemu --help` lists.
if os.environ.get("SCHEDEMU_BINARY"):
    helped = subprocess.run([os.environ["SCHEDEMU_BINARY"], "--help"], capture_output=True,
                            text=True, timeout=30)
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", helped.stdout))
    check(helped.returncode == 0 and len(flags) > 10, "schedemu --help lists the flags")
    with open(os.path.join(SOURCE_DIR, "docs", "cli.md"), encoding="utf-8") as f:
        cli_page = f.read()
    for flag in sorted(flags):
        check(re.search(re.escape(flag) + r"(?![\w-])", cli_page) is not None,
              f"docs/cli.md documents {flag}")

# README's pytest example, as written there.
with open(os.path.join(SOURCE_DIR, "README.md"), encoding="utf-8") as f:
    readme = f.read()
example = re.search(r"```python\n(.*?)```", readme, re.S)
check(example is not None, "README has a ```python example")
if example and os.environ.get("SCHEDEMU_BINARY"):
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "test_readme_example.py"), "w", encoding="utf-8") as f:
            f.write(example.group(1))
        env = dict(os.environ, PYTHONPATH=os.path.join(SOURCE_DIR, "python"),
                   SCHEDEMU_BINARY=os.path.abspath(os.environ["SCHEDEMU_BINARY"]))
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "schedemu.pytest_plugin",
             "-p", "no:cacheprovider", "test_readme_example.py"],
            cwd=work, env=env, capture_output=True, text=True, timeout=120)
        check(result.returncode == 0 and "1 passed" in result.stdout,
              "README's pytest example passes: " + result.stdout[-2000:] + result.stderr[-2000:])

if failures:
    print(f"{len(failures)} failure(s)", file=sys.stderr)
    sys.exit(1)
print("ok")
