"""Environment faults are never model failures (issue 17, item 1).

A task whose toolchain this machine lacks is not run: listed once with an install hint,
recorded as unrunnable, in no denominator. A grading command that cannot start makes the
trial an infra error, never a completed failure or a false success, unless the fault is
the agent's own doing (the pristine tree runs fine).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from localagentbench.records import RunDir
from localagentbench.runner import RunOptions, _toolchain, configuration_from_cli, execute
from localagentbench.sandbox import SandboxUnavailableError
from localagentbench.tasks import bundled_suite

Cli = Callable[..., tuple[int, str, str]]


@pytest.fixture
def farm_root() -> Iterator[Path]:
    """A world-searchable folder for PATH farms (pytest's tmp_path is under a 0700 folder,
    which the jail's uid cannot walk, so the sandbox would not show it)."""
    root = Path(tempfile.mkdtemp(prefix="lab-test-path-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def _path_without(root: Path, *missing: str) -> str:
    """A PATH folder of links to every system program except ``missing``."""
    farm = root / ("bin-without-" + "-".join(missing))
    farm.mkdir(parents=True)
    farm.chmod(0o755)
    for folder in ("/usr/local/bin", "/usr/bin", "/bin"):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            link = farm / name
            if name not in missing and not link.exists() and not link.is_symlink():
                link.symlink_to(os.path.join(folder, name))
    return os.pathsep.join([str(Path(sys.executable).parent), str(farm)])


@pytest.fixture(autouse=True)
def _own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.parametrize(
    ("program", "hidden_task", "kept_task", "hint"),
    [
        ("go", "go-ini-quoted", "py-calib-titlecase", "apt-get install golang-go"),
        ("node", "js-csv-quoted", "py-calib-titlecase", "apt-get install nodejs"),
    ],
)
def test_a_missing_toolchain_makes_its_tasks_unrunnable_not_failed(
    cli: Cli,
    tmp_path: Path,
    farm_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    program: str,
    hidden_task: str,
    kept_task: str,
    hint: str,
) -> None:
    if program == "go" and not any(os.path.exists(f"{d}/go") for d in ("/usr/bin", "/bin")):
        pytest.skip("go is not installed here, so there is nothing to hide")
    monkeypatch.setenv("PATH", _path_without(farm_root, program, "gofmt"))
    out = tmp_path / "run"
    args = ["--agent", "mock", "--mock-behavior", "solve", "--out", str(out), "--report"]
    code, _, err = cli("run", *args, "--task", hidden_task, "--task", kept_task)
    assert code == 0, err
    assert f"skipped 1 unrunnable task(s) ({hidden_task})" in err
    assert hint in err
    assert err.strip().splitlines()[-1].startswith("skipped 1 unrunnable task(s)")
    run = RunDir(out)
    assert [r.task_id for r in run.records()] == [kept_task]
    assert all(r.success for r in run.records())
    [unrunnable] = run.read_info().unrunnable
    assert unrunnable.id == hidden_task
    assert f"`{program}`" in unrunnable.reason
    summary = json.loads((out / "summary.json").read_text())
    assert summary["configurations"]["mock-solve"]["success_rate"] == 1.0
    assert [u["id"] for u in summary["unrunnable"]] == [hidden_task]
    report = (out / "report.md").read_text() if (out / "report.md").exists() else ""
    report = report or (out / "site" / "report.md").read_text()
    assert "## Not run on this machine" in report
    assert hidden_task in report


def test_require_all_refuses_before_any_trial(
    cli: Cli, tmp_path: Path, farm_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _path_without(farm_root, "node"))
    out = tmp_path / "run"
    args = ["--agent", "mock", "--out", str(out), "--require-all"]
    code, _, err = cli("run", *args, "--task", "js-csv-quoted", "--task", "py-calib-titlecase")
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "--require-all" in err
    assert "js-csv-quoted" in err
    assert "no trial was run" in err
    assert not (out / "trials").exists()


def test_the_proof_is_cached_per_task_version_and_machine(
    make_task: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = _toolchain.prove_fixtures

    def counting(tasks, sandbox, workers):  # type: ignore[no-untyped-def]
        calls.extend(task.key for task in tasks)
        return real(tasks, sandbox, workers)

    monkeypatch.setattr(_toolchain, "prove_fixtures", counting)
    root = make_task()
    suite = root.parent

    def run(out: str) -> None:
        config = configuration_from_cli("mock", None, mock_behavior="solve")
        options = RunOptions(
            tasks_dir=suite, configurations=[config], repeats=3, out=tmp_path / out
        )
        result = execute(options)
        assert result.summary.configurations["mock-solve"].success_rate == 1.0

    run("first")
    assert calls == ["calc-add@1"]  # once for three repeats
    run("second")
    assert calls == ["calc-add@1"]  # nothing proven again
    task_file = root / "task.yaml"
    task_file.write_text(task_file.read_text().replace("id: calc-add", "id: calc-add\nversion: 2"))
    run("third")
    assert calls == ["calc-add@1", "calc-add@2"]  # a new version is proven afresh


def test_a_grading_command_that_cannot_start_is_an_infra_error(
    cli: Cli, make_task: Callable[..., Path], tmp_path: Path
) -> None:
    """The held-out runner is missing on this machine: no verdict, never a false success."""
    root = make_task()
    data = yaml.safe_load((root / "task.yaml").read_text())
    data["heldout"]["command"] = ["lab-no-such-test-runner", "tests"]
    (root / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "--tasks", str(tmp_path / "suite"), "--agent", "mock", "--out", str(out)
    )
    assert code == 3, err
    assert "1 trial(s) have no verdict" in err
    [record] = RunDir(out).records()
    assert record.status == "infra_error"
    assert not record.false_success
    assert not record.success
    assert "lab-no-such-test-runner" in (record.error or "")
    assert "environment fault in grading" in (record.error or "")


def test_an_agent_that_exits_127_from_its_own_code_fails_and_is_scored(
    cli: Cli, make_task: Callable[..., Path], tmp_path: Path
) -> None:
    """Turning a failure into an unscored infra error by exiting 127 does not work: the
    pristine tree runs, so the fault is the agent's."""
    root = make_task()
    (root / "solution.patch").write_text(
        "diff --git a/calc.py b/calc.py\n--- a/calc.py\n+++ b/calc.py\n@@ -1,2 +1,4 @@\n"
        "+import os\n+os._exit(127)\n def add(a, b):\n     return a - b\n"
    )
    out = tmp_path / "run"
    args = ["--agent", "mock", "--mock-behavior", "solve", "--out", str(out)]
    code, _, err = cli("run", "--tasks", str(root.parent), *args)
    assert code == 0, err
    [record] = RunDir(out).records()
    assert record.status == "completed"
    assert not record.success
    assert record.false_success
    assert 127 in record.visible.exit_codes


def test_the_bundled_suite_has_go_and_node_tasks() -> None:
    """The tests above hide real toolchains of real bundled tasks."""
    ids = {p.name for p in bundled_suite().iterdir() if p.is_dir()}
    assert {"go-ini-quoted", "js-csv-quoted", "py-calib-titlecase"} <= ids


def test_a_container_task_without_an_engine_is_unrunnable_with_the_install_hint(
    cli: Cli, tmp_path: Path, make_task: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A task that ships a Dockerfile on a machine with neither podman nor docker: listed
    as not run (the reason and `apt-get install podman`), the other task runs and counts."""
    boxed = make_task("boxed-add", container={"dockerfile": "container/Dockerfile"})
    (boxed / "container").mkdir()
    (boxed / "container" / "Dockerfile").write_text("FROM localhost/base:1\n")
    make_task("plain-add")

    def none_here(preferred: str | None = None) -> None:
        raise SandboxUnavailableError("needs a container sandbox and none works here: test")

    monkeypatch.setattr("localagentbench.environments._image.usable_engine", none_here)
    out = tmp_path / "run"
    code, _, err = cli(
        "run", "--tasks", str(tmp_path / "suite"), "--agent", "mock", "--mock-behavior",
        "solve", "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert "skipped 1 unrunnable task(s) (boxed-add)" in err
    assert "needs a container sandbox" in err
    assert "apt-get install podman" in err
    run = RunDir(out)
    assert [r.task_id for r in run.records()] == ["plain-add"]
    [unrunnable] = run.read_info().unrunnable
    assert unrunnable.id == "boxed-add"
