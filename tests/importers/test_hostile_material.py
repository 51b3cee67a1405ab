"""Task material is as untrusted as an agent: importers and `generate` run it jailed.

Each test imports material that, wherever it runs, appends to a marker file outside its
folder (a world-writable folder any uid could reach unjailed) and connects to a TCP
listener the test runs on 127.0.0.1: a Terminal-Bench task's solution script and tests, an
Exercism example, a project's test set-up run against generate's mutants. Under each usable
backend the import still succeeds (the material did run) while neither effect happens; the
same import with ``--sandbox none`` shows both, so the material is hostile indeed.
"""

from __future__ import annotations

import os
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.importers._shop import python_shop
from tests.importers._tbench import harbor_task
from tests.importers._track import python_track
from tests.sandbox._helpers import reachable_python

from localagentbench.importers import generate_tasks, import_exercism, import_terminal_bench
from localagentbench.importers._tests import git_patch
from localagentbench.sandbox import SandboxUnavailableError, select


class Listener:
    """A TCP listener on 127.0.0.1 counting the connections it accepts."""

    def __init__(self) -> None:
        self._sock = socket.create_server(("127.0.0.1", 0))
        self._sock.settimeout(0.1)
        self.port: int = self._sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()


class Hostile:
    """Where the material writes (``marker``) and what it connects to (``listener``)."""

    def __init__(self, outside: Path, listener: Listener) -> None:
        self.marker = outside / "marker"
        self.listener = listener

    def python(self, who: str) -> str:
        """Python lines that write the marker and connect, failures ignored."""
        return (
            "import socket as _s\n"
            "try:\n"
            f"    with open({str(self.marker)!r}, 'a') as _f:\n"
            f"        _f.write({who!r} + '\\n')\n"
            "except OSError:\n"
            "    pass\n"
            "try:\n"
            f"    _s.create_connection(('127.0.0.1', {self.listener.port}), timeout=2).close()\n"
            "except OSError:\n"
            "    pass\n"
        )

    def shell(self, who: str) -> str:
        return (
            f"echo {who} >> {self.marker} 2>/dev/null || true\n"
            f"(echo hi > /dev/tcp/127.0.0.1/{self.listener.port}) 2>/dev/null || true\n"
        )

    def effects(self) -> tuple[list[str], int]:
        written = self.marker.read_text().split() if self.marker.exists() else []
        return written, self.listener.connections


@pytest.fixture
def hostile() -> Iterator[Hostile]:
    outside = Path(tempfile.mkdtemp(prefix="lab-test-outside-"))
    outside.chmod(0o777)  # any uid, the jail's included, could write here unjailed
    listener = Listener()
    try:
        yield Hostile(outside, listener)
    finally:
        listener.close()
        shutil.rmtree(outside, ignore_errors=True)


@pytest.fixture(scope="module")
def reachable() -> Iterator[Path]:
    """A Python with pytest that landlock's jail uid can run (see tests/adversarial)."""
    base = Path(tempfile.mkdtemp(prefix="lab-test-open-"))
    base.chmod(0o755)
    try:
        yield reachable_python(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["bwrap", "landlock"])
def jail(request, monkeypatch) -> str:
    name: str = request.param
    try:
        select(name)
    except SandboxUnavailableError as e:
        pytest.skip(f"{name} is not usable here: {e}")
    python = Path(sys.executable).resolve()
    unreachable = any(not d.stat().st_mode & 0o001 for d in python.parents)
    if name == "landlock" and os.geteuid() == 0 and unreachable:
        monkeypatch.setattr(sys, "executable", str(request.getfixturevalue("reachable")))
    return name


def _terminal_bench(root: Path, hostile: Hostile) -> Path:
    folder = harbor_task(root)
    solve = folder / "solution" / "solve.sh"
    solve.write_text(
        solve.read_text().replace("#!/bin/bash\n", "#!/bin/bash\n" + hostile.shell("solve"))
    )
    tests = folder / "tests" / "test_outputs.py"
    tests.write_text(hostile.python("tests") + tests.read_text())
    return root


def test_a_hostile_terminal_bench_task_imports_without_writing_outside_or_connecting(
    tmp_path, hostile, jail
) -> None:
    root = _terminal_bench(tmp_path / "tb", hostile)
    result = import_terminal_bench(root, tmp_path / "suite", sandbox=jail)
    assert result.written == ["tb-word-count"], result.rejected  # its solution and tests ran
    assert hostile.effects() == ([], 0)


def test_the_same_task_unjailed_writes_and_connects(tmp_path, hostile) -> None:
    """The control: with no sandbox the material's effects happen, so the tests above see
    them stopped, not absent."""
    root = _terminal_bench(tmp_path / "tb", hostile)
    result = import_terminal_bench(root, tmp_path / "suite", sandbox="none")
    assert result.written == ["tb-word-count"], result.rejected
    written, connections = hostile.effects()
    assert "solve" in written
    assert "tests" in written
    assert connections >= 2


@pytest.mark.slow
def test_a_hostile_exercism_example_imports_without_writing_outside_or_connecting(
    tmp_path, hostile, jail
) -> None:
    track = python_track(tmp_path / "python", broken=False)
    example = track / "exercises" / "practice" / "leap" / ".meta" / "example.py"
    example.write_text(hostile.python("example") + example.read_text())
    result = import_exercism(track, "python", tmp_path / "suite", sandbox=jail)
    assert result.written == ["py-leap"], result.rejected  # the example's tests passed
    assert hostile.effects() == ([], 0)


@pytest.mark.slow
def test_generate_runs_a_hostile_projects_tests_and_mutants_jailed(tmp_path, hostile, jail) -> None:
    project = python_shop(tmp_path / "shop")
    (project / "conftest.py").write_text(hostile.python("mutant"))  # every test run loads it
    result = generate_tasks(project, tmp_path / "suite", kinds=["mutation"], count=1, sandbox=jail)
    assert result.written, result.rejected  # the base and mutant runs went through
    assert hostile.effects() == ([], 0)


def test_a_repository_shipped_with_the_material_never_configures_the_patch_git(tmp_path) -> None:
    """The reference patch is made by git outside any jail: a ``.git`` in the material
    (here one whose clean filter runs a command on `git add`) is left out of its copies."""
    marker = tmp_path / "filtered"
    before, after = tmp_path / "before", tmp_path / "after"
    for tree, text in ((before, "one\n"), (after, "two\n")):
        (tree / ".git").mkdir(parents=True)
        (tree / ".git" / "config").write_text(
            f'[filter "x"]\n\tclean = "sh -c \'touch {marker}; cat\'"\n'
        )
        (tree / ".gitattributes").write_text("* filter=x\n")
        (tree / "a.txt").write_text(text)
    patch = git_patch(before, after)
    assert "-one\n+two" in patch
    assert ".git/config" not in patch
    assert not marker.exists()
