"""`setup:` commands write only into the environment's folder; `env list|prune` manage it.
No network needed: setup here runs shell commands only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

GREET = (
    'mkdir -p "$LAB_ENV/bin" && printf "#!/bin/sh\\necho hello from setup\\n" '
    '> "$LAB_ENV/bin/greet" && chmod +x "$LAB_ENV/bin/greet"'
)


def _suite(root: Path, setup: list[list[str]]) -> Path:
    task = root / "suite" / "env-setup"
    (task / "repo").mkdir(parents=True)
    (task / "repo" / "Makefile").write_text("all:\n")
    data = {
        "id": "env-setup",
        "title": "t",
        "prompt": "p",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "shell",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": [["greet"]]},
        "environment": {"setup": setup},
    }
    (task / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return task.parent


@pytest.fixture
def bwrap():  # type: ignore[no-untyped-def]
    from localagentbench.sandbox import SandboxUnavailableError, select

    try:
        return select("bwrap")
    except SandboxUnavailableError as e:
        pytest.skip(f"the jailed build is proven under bwrap: {e} (apt-get install bubblewrap)")


def test_setup_output_is_on_the_jails_path_and_the_cache_is_managed(
    tmp_path: Path, monkeypatch, bwrap, cli
) -> None:
    from localagentbench.environments import ensure
    from localagentbench.grading import GradingJail
    from localagentbench.tasks import load_tasks

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    suite = _suite(tmp_path, [["sh", "-c", GREET]])
    (task,) = load_tasks(suite)
    view = ensure(task, bwrap)
    assert view is not None
    assert (view.root / "tree" / "Makefile").is_file()  # setup ran on a pristine copy
    work = tmp_path / "work"
    work.mkdir()
    ran = GradingJail(bwrap, tmp_path / "home", environment=view).run(
        ["greet"], cwd=work, timeout_s=30, output_cap=10_000
    )
    assert ran.stdout.strip() == "hello from setup"

    code, out, _ = cli("env", "list")
    assert code == 0
    assert "env-setup@1" in out
    assert "1 environment(s)" in out
    code, out, _ = cli("env", "prune", "--tasks", str(suite))
    assert "removed 0 environment(s)" in out  # the suite still uses it
    code, out, _ = cli("env", "prune", "--all")
    assert "removed 1 environment(s)" in out
    assert not view.root.exists()


def test_setup_cannot_write_outside_the_environment(tmp_path: Path, monkeypatch, bwrap) -> None:
    """A task's setup command is as untrusted as an agent: the task folder and the user's
    home are not writable (not even visible) in its jail."""
    from localagentbench.environments import EnvironmentBuildError, ensure
    from localagentbench.tasks import load_tasks

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    target = tmp_path / "suite" / "env-setup" / "escaped"
    suite = _suite(tmp_path, [["touch", str(target)]])
    (task,) = load_tasks(suite)
    with pytest.raises(EnvironmentBuildError, match="failed to build: `touch"):
        ensure(task, bwrap)
    assert not target.exists()
    home_file = Path(os.path.expanduser("~")) / "lab-env-escape-probe"
    suite2 = _suite(tmp_path / "b", [["touch", str(home_file)]])
    (task2,) = load_tasks(suite2)
    with pytest.raises(EnvironmentBuildError):
        ensure(task2, bwrap)
    assert not home_file.exists()
