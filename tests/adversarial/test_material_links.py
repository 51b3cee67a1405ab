"""Attack: a downloaded benchmark task whose files lead to the importing machine's files.

Threat: a Terminal-Bench/Harbor task folder is untrusted material. Its build context holds
``words.txt -> /home/user/.ssh/id_rsa`` (or a linked folder); the Dockerfile copies it into
``/app``, so an importer that follows the link copies the user's file into the task's
fixture, which every agent that runs the task then reads, and into the task folder the user
publishes. Same for a linked instruction (the file lands in the prompt) or linked tests, and
for an Exercism exercise whose stub is a link or whose metadata names ``../../..`` paths.
Nothing runs here, so no sandbox stops it: the importer must not follow a link out of the
task folder. Run under each confining backend (the import's own runs are jailed in it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.importers._tbench import harbor_task
from tests.importers._track import python_track

from localagentbench.importers import import_exercism, import_terminal_bench
from localagentbench.sandbox import SandboxUnavailableError, select

SECRET = "lab-private-key-material-7f3a"


@pytest.fixture(params=["bwrap", "landlock"])
def jail(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    name = str(request.param)
    try:
        select(name)
    except SandboxUnavailableError as e:
        pytest.skip(str(e))
    if name == "landlock" and os.geteuid() == 0:
        # As root the jail's uid 65534 cannot run a Python under /root: use one it can.
        monkeypatch.setattr(sys, "executable", str(request.getfixturevalue("open_python")))
    return name


@pytest.fixture(autouse=True)
def no_container_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host-sandbox path (a container task copies its context the same way)."""

    def none_here(preferred: str | None = None) -> None:
        raise SandboxUnavailableError("no container engine in this test")

    monkeypatch.setattr("localagentbench.importers._terminal_bench.usable_engine", none_here)


def _private(tmp_path: Path) -> Path:
    """The user's own files, outside any task folder."""
    home = tmp_path / "home"
    (home / "keys").mkdir(parents=True)
    (home / "keys" / "id_rsa").write_text(f"one two {SECRET}\n")
    return home


def _leaks(root: Path) -> list[Path]:
    """Files under ``root`` holding the secret (links are not followed)."""
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            if not path.is_symlink() and SECRET in path.read_text(errors="replace"):
                found.append(path)
    return found


@pytest.mark.parametrize("how", ["file", "folder", "instruction"])
def test_a_task_linking_to_the_users_files_does_not_carry_them_off(
    tmp_path: Path, jail: str, how: str
) -> None:
    home = _private(tmp_path)
    folder = harbor_task(tmp_path / "tb")
    environment = folder / "environment"
    if how == "file":
        (environment / "words.txt").unlink()
        (environment / "words.txt").symlink_to(home / "keys" / "id_rsa")
    elif how == "folder":
        (environment / "data").symlink_to(home / "keys")
        dockerfile = environment / "Dockerfile"
        dockerfile.write_text(dockerfile.read_text() + "COPY data /app/data\n")
    else:
        (folder / "instruction.md").unlink()
        (folder / "instruction.md").symlink_to(home / "keys" / "id_rsa")
    out = tmp_path / "suite"
    result = import_terminal_bench(tmp_path / "tb", out, sandbox=jail)
    assert not out.exists() or _leaks(out) == [], _leaks(out)
    assert result.written == []
    (rejected,) = result.rejected
    assert rejected.reason == "links outside the task"
    named = {"file": "environment/words.txt", "folder": "environment/data"}
    assert rejected.detail.startswith(f"{named.get(how, 'instruction.md')} -> {home}")
    assert "\n" not in rejected.detail


@pytest.mark.parametrize("how", ["link", "climb"])
def test_an_exercise_leading_to_the_users_files_does_not_carry_them_off(
    tmp_path: Path, jail: str, how: str
) -> None:
    home = _private(tmp_path)
    track = python_track(tmp_path / "track", broken=False)
    exercise = track / "exercises" / "practice" / "leap"
    if how == "link":
        (exercise / "leap.py").unlink()
        (exercise / "leap.py").symlink_to(home / "keys" / "id_rsa")
    else:
        config = exercise / ".meta" / "config.json"
        climb = os.path.relpath(home / "keys" / "id_rsa", exercise)
        config.write_text(config.read_text().replace('"leap.py"', f'"{climb}"'))
    out = tmp_path / "suite"
    result = import_exercism(track, "python", out, sandbox=jail)
    assert not out.exists() or _leaks(out) == [], _leaks(out)
    assert result.written == []
    (rejected,) = result.rejected
    assert rejected.reason == "links outside the task"
    assert ("leap.py -> " if how == "link" else "(outside the folder)") in rejected.detail
