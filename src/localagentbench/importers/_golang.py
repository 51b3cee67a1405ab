"""A Go module as `generate` reads it: go/parser through `goast`, go test for the tests.

Go is parsed by Go's own parser rather than by patterns: `goast` (``goast/main.go``, shipped
with the package, standard library only) prints each file's package, declarations, mutation
sites as exact byte spans, and the calls it makes to the module's functions, as JSON. It is
built once per machine into the user cache, named by the digest of its source and the go
version (a changed source or an upgraded go builds a new one and removes the old; ``go run``
would compile and link it again on every call), and written by an atomic rename so two runs
never see half a binary. `go` is needed to run Go tasks anyway, so it adds no requirement.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import tempfile
from collections import Counter
from importlib.resources import files
from pathlib import Path
from typing import Any

from localagentbench._env import cache_dir
from localagentbench._proc import run_process
from localagentbench.errors import ConfigError, InfraError
from localagentbench.grading import Runner
from localagentbench.importers._mutate import Mutation
from localagentbench.importers._rename import Rename, camel_name
from localagentbench.importers._tests import TestRun

__all__ = ["GoProject", "goast"]

COMMAND = [
    *("env", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=readonly"),
    *("go", "test", "-count=1", "./..."),
]
"""What the bundled Go tasks and imported Exercism exercises run: offline, no toolchain
download, go.mod left as it is."""
_SPECIAL = re.compile(r"^(main|init|Test|Benchmark|Example|Fuzz)")
_BUILD_FAILED = ("[build failed]", "[setup failed]")
CHECKER = "lab_rename_check.go"
"""The name `renamecheck.go` is shipped under in a rename task's held-out folder."""


def _go_env() -> dict[str, str]:
    """The user's environment (its go caches) with no toolchain download, proxy or
    workspace: building `goast` needs only the standard library."""
    return {**os.environ, "GOTOOLCHAIN": "local", "GOPROXY": "off", "GOFLAGS": "", "GOWORK": "off"}


def goast() -> Path:
    """The `goast` binary for this machine's go, built into the user cache if missing."""
    go = shutil.which("go")
    if go is None:
        raise ConfigError("generate from a Go module needs `go` on PATH (https://go.dev/dl/)")
    source = files("localagentbench.importers").joinpath("goast", "main.go").read_bytes()
    version = run_process([go, "env", "GOVERSION"], env=_go_env(), timeout_s=60)
    digest = hashlib.sha256(source + b"\0" + version.stdout.strip().encode()).hexdigest()[:16]
    target = cache_dir() / "goast" / f"goast-{digest}"
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="lab-goast-") as tmp:
        (Path(tmp) / "main.go").write_bytes(source)
        (Path(tmp) / "go.mod").write_text("module labgoast\n\ngo 1.18\n", encoding="utf-8")
        built = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        argv = [go, "build", "-o", str(built), "."]
        done = run_process(argv, cwd=tmp, env=_go_env(), timeout_s=300)
        if done.exit_code != 0:
            built.unlink(missing_ok=True)
            raise InfraError(f"cannot build goast with {go}: {done.stderr.strip()[-500:]}")
        os.replace(built, target)
    for stale in target.parent.glob("goast-*"):  # built from another source or go version
        if stale != target:
            stale.unlink(missing_ok=True)
    return target


def _checker_source() -> bytes:
    return files("localagentbench.importers").joinpath("goast", "renamecheck.go").read_bytes()


def _references(root: Path, owner: str, name: str) -> list[tuple[str, int, int, int]]:
    """(file, line, start byte, end byte) of each reference to ``owner``'s ``name``."""
    go = shutil.which("go")
    if go is None:
        raise ConfigError("generate from a Go module needs `go` on PATH (https://go.dev/dl/)")
    with tempfile.TemporaryDirectory(prefix="lab-renamecheck-") as tmp:
        (Path(tmp) / CHECKER).write_bytes(_checker_source())
        (Path(tmp) / "go.mod").write_text("module labrename\n\ngo 1.18\n", encoding="utf-8")
        argv = [go, "run", CHECKER, str(root.resolve()), owner, name]
        done = run_process(argv, cwd=tmp, env=_go_env(), timeout_s=300)
    if done.exit_code not in (0, 1) or (done.exit_code == 1 and not done.stdout.strip()):
        raise InfraError(f"renamecheck failed on {root}: {done.stderr.strip()[-500:]}")
    found = []
    for line in done.stdout.splitlines():
        rel, number, start, end = line.split("\t")
        found.append((rel, int(number), int(start), int(end)))
    return found


def _scan(root: Path) -> dict[str, Any]:
    done = run_process([str(goast()), str(root)], timeout_s=300)
    if done.exit_code != 0:
        raise ConfigError(f"{root}: cannot read it as a Go module: {done.stderr.strip()}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


class GoProject:
    """The `Project` of a Go module (a ``go.mod`` at the root; nested modules left out)."""

    language = "go"
    runner: Runner = "go"
    noun = "Go"
    sources = "**/*.go"
    caller_format = (
        "each as the import path of its package's folder, a dot and the function's name "
        "(`Type.Method` for a method, whatever its receiver: `Parse` in the folder `conf` of "
        "a module `example.org/app` is `example.org/app/conf.Parse`); a test function counts "
        "under the folder of its file"
    )

    def __init__(self, root: Path, command: list[str] | None = None) -> None:
        if not (root / "go.mod").is_file():
            raise ConfigError(f"{root}: no go.mod at its root; give the root of a Go module")
        data = _scan(root)
        self.root = root
        self.module: str = data["module"]
        self.files: list[dict[str, Any]] = data["files"]
        self.command = command or COMMAND
        self.shown = "go test ./..." if command is None else " ".join(command)

    def _code(self) -> list[dict[str, Any]]:
        return [f for f in self.files if not f["test"]]

    def test_files(self) -> list[str]:
        return [f["rel"] for f in self.files if f["test"]]

    def has_code(self) -> bool:
        return bool(self._code())

    def mutations(self) -> list[Mutation]:
        return [
            Mutation(
                f["rel"],
                m["operator"],
                m["line"],
                m["start"],
                m["end"],
                m["text"].encode(),
                m["description"],
            )
            for f in self._code()
            for m in f["mutations"]
        ]

    def renames(self, rng: random.Random) -> list[Rename]:
        """Top-level functions and types declared once in the module (no method or other
        declaration shares the name), each with a new name that occurs nowhere in it."""
        declared = Counter(d["name"] for f in self.files for d in f["decls"])
        everything = "\n".join(
            (self.root / f["rel"]).read_text(encoding="utf-8", errors="replace") for f in self.files
        )
        found = []
        for f in self._code():
            for d in f["decls"]:
                name = d["name"]
                if d["kind"] == "method" or declared[name] > 1 or len(name) < 4:
                    continue
                if _SPECIAL.match(name):
                    continue
                new = camel_name(name, rng)
                if re.search(rf"\b{re.escape(new)}\b", everything):
                    continue
                found.append(Rename(f["dir"], d["kind"], name, new))
        return found

    def targets(self) -> list[tuple[str, str]]:
        return [
            (f["dir"], d["name"])
            for f in self._code()
            for d in f["decls"]
            if d["kind"] == "function" and d["name"] not in ("main", "init")
        ]

    def rename_in(self, root: Path, rename: Rename) -> list[str]:
        """Every reference to the renamed function or type (`renamecheck`) renamed;
        comments, strings, and methods or fields of the same name left alone. The files
        changed, relative to ``root``."""
        spans: dict[str, list[tuple[int, int]]] = {}
        for rel, _, start, end in _references(root, rename.module, rename.old):
            spans.setdefault(rel, []).append((start, end))
        for rel, places in spans.items():
            path = root / rel
            data = path.read_bytes()
            for start, end in sorted(places, reverse=True):
                data = data[:start] + rename.new.encode() + data[end:]
            path.write_bytes(data)
        return sorted(spans)

    def rename_check(self, rename: Rename) -> tuple[dict[str, Any], dict[str, bytes]]:
        """A `command` check that runs `renamecheck` on the graded copy (``go run``, offline):
        no reference to the object by its old name may remain. The program goes into the
        held-out folder; its ``//go:build ignore`` keeps it out of ``go test ./...``."""
        check = {
            "kind": "command",
            "name": f"{rename.old} gone",
            "command": [[*COMMAND[:4], "go", "run", CHECKER, ".", rename.module, rename.old]],
            "timeout_s": 120,
        }
        return check, {CHECKER: _checker_source()}

    def callers(self, owner: str, name: str) -> list[str]:
        found: list[str] = []
        for f in self.files:
            external = f["package"].endswith("_test")
            for c in f["calls"]:
                if c["owner"] != owner or c["name"] != name:
                    continue
                if f["dir"] == owner and c["caller"] == name and not external:
                    continue  # the function's own recursive call
                caller = f"{f['dir']}.{c['caller']}"
                if caller not in found:
                    found.append(caller)
        return found

    def is_test(self, rel: str) -> bool:
        return rel.endswith("_test.go")

    def defect(self, mutated: bytes, ran: TestRun) -> str | None:
        if any(mark in ran.output for mark in _BUILD_FAILED):
            return "mutant does not compile"
        return None
