"""Issue 38's acceptance for task environments, end to end with a real PyPI install.

A task whose code imports `more-itertools`, which the harness's interpreter lacks, names it
in `environment.python.requirements`: `check` and `verify` pass, the reference solver
succeeds and the no-op fails (both scored), the environment is built once however many
commands use it, the agent's and the grader's jails cannot write into it, and a trial
still has no network.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

PACKAGE = "more-itertools==10.5.0"

BUGGY = '''import more_itertools


def batches(items, size):
    """The items in lists of `size`, the last one shorter when they do not divide evenly."""
    return [list(b) for b in more_itertools.chunked(items, size) if len(b) == size]
'''
FIXED = BUGGY.replace(" if len(b) == size]", "]")
VISIBLE = """from batching import batches


def test_tail_kept():
    assert batches([1, 2, 3], 2) == [[1, 2], [3]]
"""
HIDDEN = """from batching import batches


def test_even():
    assert batches([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_longer_tail():
    assert batches(list(range(5)), 3) == [[0, 1, 2], [3, 4]]
"""
PROBE = r"""
import os, socket, sys
import more_itertools
print("import ok", more_itertools.__version__)
print("python", sys.prefix)
env = os.environ["LAB_ENV"]
try:
    open(os.path.join(env, "planted.txt"), "w").write("x")
    print("write env: allowed")
except OSError as e:
    print("write env: refused", e.errno)
try:
    open(os.path.join(env, "python", "pyvenv.cfg"), "a").write("x")
    print("edit venv: allowed")
except OSError as e:
    print("edit venv: refused", e.errno)
try:
    socket.create_connection(("pypi.org", 443), timeout=3).close()
    print("network: reached")
except OSError:
    print("network: none")
"""


def _patch(old: str, new: str, path: str) -> str:
    import difflib

    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    )
    return "".join(lines)


@pytest.fixture(scope="module")
def env_suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A one-task suite whose code needs more-itertools, and a private user cache."""
    if importlib.util.find_spec("more_itertools") is not None:
        pytest.skip("more_itertools is installed for the test interpreter: the premise fails")
    base = tmp_path_factory.mktemp("envs")
    for folder in (base, *base.parents):
        if folder.stat().st_uid == os.geteuid() and str(folder).startswith("/tmp/"):
            folder.chmod(0o755)
    suite = base / "suite"
    task = suite / "py-batches-env"
    (task / "repo").mkdir(parents=True)
    (task / "heldout").mkdir()
    (task / "repo" / "batching.py").write_text(BUGGY)
    (task / "repo" / "test_batching.py").write_text(VISIBLE)
    (task / "heldout" / "test_hidden_batching.py").write_text(HIDDEN)
    (task / "solution.patch").write_text(_patch(BUGGY, FIXED, "batching.py"))
    data = {
        "id": "py-batches-env",
        "title": "Keep the last batch",
        "prompt": "batches() in batching.py drops the last, shorter batch; keep it.",
        "difficulty": "easy",
        "category": "bugfix",
        "language": "python",
        "repo": {"type": "fixture", "path": "repo"},
        "oracle": {"command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]},
        "heldout": "heldout",
        "reference": "solution.patch",
        "timeout_s": 120,
        "environment": {"python": {"requirements": [PACKAGE]}},
    }
    (task / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(base / "cache"))
        yield suite


def _builds() -> list[dict[str, object]]:
    from localagentbench.environments import BUILDS_FILE, envs_root

    path = envs_root() / BUILDS_FILE
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def _task(suite: Path):  # type: ignore[no-untyped-def]
    from localagentbench.tasks import load_tasks

    return load_tasks(suite)[0]


@pytest.mark.slow
def test_check_verify_and_scored_trials_build_the_environment_once(
    env_suite: Path, cli, tmp_path: Path
) -> None:
    code, out, err = cli("check", "--tasks", str(env_suite))
    assert code == 0, out + err
    assert "0 pass, 1 fail as expected before the fix" in out

    code, out, err = cli("verify", "--tasks", str(env_suite))
    assert code == 0, out + err
    assert "reference passes 1/1, no-op fails 1/1" in out

    for behavior, solved in (("solve", True), ("noop", False)):
        run_dir = tmp_path / behavior
        code, out, err = cli(
            "run", "--tasks", str(env_suite), "--agent", "mock", "--mock-behavior", behavior,
            "--out", str(run_dir),
        )  # fmt: skip
        assert code == 0, out + err
        (record_file,) = run_dir.glob("trials/*/record.json")
        record = json.loads(record_file.read_text())
        assert record["status"] == "completed", record.get("error")
        assert record["success"] is solved
        assert (record["correctness"] == 1.0) is solved

    built = [b for b in _builds() if b["outcome"] == "built"]
    assert len(built) == 1, f"the environment was built {len(built)} times: {_builds()}"


def test_jails_see_the_environment_read_only_and_no_network(env_suite: Path, tmp_path) -> None:
    """The grader's jail and the agent's jail import the package from the environment,
    cannot write a file into it or edit one of it, and reach no network."""
    from localagentbench.agents import AgentContext
    from localagentbench.agents._command import make_command
    from localagentbench.environments import ensure
    from localagentbench.grading import GradingJail
    from localagentbench.sandbox import SandboxUnavailableError, select

    try:
        sandbox = select("bwrap")
    except SandboxUnavailableError as e:
        pytest.skip(f"read-only mounts need bwrap: {e} (apt-get install bubblewrap)")
    task = _task(env_suite)
    view = ensure(task, sandbox)
    assert view is not None
    before = sorted(p.name for p in view.root.iterdir())

    work = tmp_path / "work"
    work.mkdir()
    jail = GradingJail(sandbox, tmp_path / "grading-home", environment=view)
    graded = jail.run(["python", "-c", PROBE], cwd=work, timeout_s=60, output_cap=100_000)

    home = tmp_path / "agent-home"
    home.mkdir()
    agent = make_command({"command": ["python", "-c", PROBE]})
    ctx = AgentContext(
        trial_id="t",
        task=task,
        workspace=work,
        home=home,
        model=None,
        timeout_s=60,
        sandbox=sandbox,
        environment=view,
    )
    acted = agent.run(ctx)

    for who, stdout in (("grader", graded.stdout), ("agent", acted.stdout)):
        assert "import ok 10.5.0" in stdout, f"{who}: {stdout}"
        assert f"python {view.root / 'python'}" in stdout, f"{who}: {stdout}"
        assert "write env: refused" in stdout, f"{who}: {stdout}"
        assert "edit venv: refused" in stdout, f"{who}: {stdout}"
        assert "network: none" in stdout, f"{who}: {stdout}"
    assert sorted(p.name for p in view.root.iterdir()) == before


def test_a_failed_build_makes_the_task_unrunnable_with_the_installer_lines(
    env_suite: Path, tmp_path: Path, monkeypatch
) -> None:
    """A requirement that cannot be installed is the task's fault here, never the model's:
    the fixture proof (check, and `run` before any trial) says env-fault with uv's words."""
    from localagentbench.grading import default_sandbox, prove_fixture

    task_file = env_suite / "py-batches-env" / "task.yaml"
    data = yaml.safe_load(task_file.read_text())
    data["environment"] = {"python": {"requirements": ["lab-no-such-package-zz==0.0.1"]}}
    other = tmp_path / "suite" / "broken-env"
    shutil.copytree(env_suite / "py-batches-env", other)
    (other / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    proof = prove_fixture(_task(other.parent), default_sandbox())
    assert proof is not None
    assert proof.outcome == "env-fault"
    assert "failed to build" in proof.reason
    assert "lab-no-such-package-zz" in proof.reason  # uv's own last lines
    assert any(b["outcome"] == "failed" for b in _builds())
