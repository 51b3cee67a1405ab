"""Whether this machine's toolchain is new enough for a project, read from its files.

A project states the toolchain it needs: Go's ``go`` directive in ``go.mod``, Python's
``requires-python`` in ``pyproject.toml``, Node's ``engines.node`` in ``package.json``.
Read before any test runs, a mismatch is one reason that names both versions, instead of
whatever the compiler or the test runner happens to print (or not print) about it.
Python's specifiers are read with `packaging` (PEP 440, as pip reads them); Node's range
is read for its common forms (``>=18``, ``^20.1``, ``18.x``, ``a || b``); a range it cannot
read is not held against the project.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from localagentbench._proc import run_process

__all__ = ["toolchain_mismatch"]

Version = tuple[int, ...]


def _version(text: str) -> Version | None:
    found = re.match(r"\s*v?(\d+(?:\.\d+)*)", text)
    return tuple(int(p) for p in found.group(1).split(".")) if found else None


def _shown(version: Version) -> str:
    return ".".join(map(str, version))


def _machine(argv: list[str]) -> Version | None:
    if shutil.which(argv[0]) is None:
        return None
    done = run_process(argv, timeout_s=60)
    found = re.search(r"(\d+\.\d+(?:\.\d+)?)", done.stdout + done.stderr)
    return _version(found.group(1)) if done.exit_code == 0 and found else None


def _go(root: Path, machine: Version | None) -> str | None:
    try:
        text = (root / "go.mod").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    directive = re.search(r"^go\s+(\S+)", text, re.M)
    needed = _version(directive.group(1)) if directive else None
    have = machine or _machine(["go", "env", "GOVERSION"])
    if needed is None or have is None or have[: len(needed)] >= needed:
        return None
    return f"needs Go {_shown(needed)} (go.mod's go directive); this machine has go {_shown(have)}"


def _python(root: Path, machine: Version | None) -> str | None:
    try:
        data = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
        spec = SpecifierSet(str(data["project"]["requires-python"]))
    except (OSError, tomllib.TOMLDecodeError, KeyError, TypeError, InvalidSpecifier):
        return None
    have = machine or tuple(sys.version_info[:3])
    if spec.contains(_shown(have), prereleases=True):
        return None
    return (
        f"needs Python {spec} (pyproject.toml's requires-python); "
        f"this machine has Python {_shown(have)}"
    )


def _node_allows(rule: str, have: Version) -> bool | None:
    """Whether one ``||`` part of a Node range admits ``have`` (None: not read)."""
    parts = rule.split()
    if not parts:
        return True
    for part in parts:
        op, rest = re.match(r"(>=|<=|>|<|=|\^|~)?(.*)", part).groups()  # type: ignore[union-attr]
        rest = rest.rstrip(".x*").rstrip(".") or "0"
        want = _version(rest)
        if want is None:
            return None
        mine = have[: len(want)]
        checks = {
            ">=": mine >= want,
            ">": mine > want,
            "<=": mine <= want,
            "<": mine < want,
            "^": mine >= want and have[0] == want[0],
            "~": mine >= want and have[:2] == (want + (0,))[:2],
            "=": mine == want,
            None: mine == want,
        }
        if not checks[op]:
            return False
    return True


def _node(root: Path, machine: Version | None) -> str | None:
    try:
        data = json.loads((root / "package.json").read_text(encoding="utf-8"))
        rule = str(data["engines"]["node"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    have = machine or _machine(["node", "--version"])
    if have is None:
        return None
    verdicts = [_node_allows(part.strip(), have) for part in rule.split("||")]
    if any(v is None for v in verdicts) or any(verdicts):
        return None
    return f"needs Node {rule} (package.json's engines.node); this machine has node {_shown(have)}"


def toolchain_mismatch(root: Path, language: str, machine: Version | None = None) -> str | None:
    """Why this machine's toolchain (``machine``: its version, default asked of it) cannot
    run the project at ``root`` in ``language`` (go | python | javascript), naming both
    versions; None when it can or the project states no requirement this reads."""
    reader = {"go": _go, "python": _python, "javascript": _node}.get(language)
    return reader(root, machine) if reader is not None else None
