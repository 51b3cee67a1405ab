"""`import terminal-bench`: tasks that fit the sandbox imported, the others listed with why."""

from __future__ import annotations

import pytest
import yaml
from tests.importers._tbench import harbor_task, terminal_bench_task

from localagentbench.importers import import_terminal_bench
from localagentbench.sandbox import SandboxUnavailableError


@pytest.fixture(autouse=True)
def no_container_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the host sandbox: as on a machine without podman or docker
    (tests/importers/test_terminal_bench_container.py has the container path)."""

    def none_here(preferred: str | None = None) -> None:
        raise SandboxUnavailableError("no container engine in this test")

    monkeypatch.setattr("localagentbench.importers._terminal_bench.usable_engine", none_here)


NEEDS = {
    "apt": (
        "FROM ubuntu:24.04\nWORKDIR /app\nRUN apt-get update && apt-get install -y lab-absent\n",
        "needs Debian packages this machine lacks: lab-absent "
        "(apt-get install lab-absent, then import again)",
    ),
    "script": (
        "FROM python:3.12\nWORKDIR /app\nRUN curl -sL https://example.com/x | sh\n",
        "needs Docker image built with `RUN curl -sL https://example.com/x | sh`",
    ),
    "pip-options": (
        "FROM python:3.12\nWORKDIR /app\nRUN pip install -r requirements.txt\n",
        "pip install -r cannot be expressed in environment: (only package specifiers can)",
    ),
    "custom-image": (
        "FROM ghcr.io/someone/db-with-fixtures:3\nWORKDIR /app\n",
        "needs Docker image ghcr.io/someone/db-with-fixtures:3",
    ),
    "outside": (
        "FROM python:3.12\nWORKDIR /app\nCOPY data.json /etc/data.json\n",
        "copies files to /etc/data.json, outside /app",
    ),
}


def test_tasks_needing_a_container_are_listed_with_the_reason(tmp_path) -> None:
    for name, (dockerfile, _) in NEEDS.items():
        folder = terminal_bench_task(tmp_path / "tasks", name, dockerfile)
        (folder / "data.json").write_text("{}\n")
    result = import_terminal_bench(tmp_path / "tasks", tmp_path / "out")
    assert result.written == []
    assert {r.item: (r.reason, r.detail) for r in result.rejected} == {
        name: ("needs a container", why) for name, (_, why) in NEEDS.items()
    }


def test_a_task_folder_that_is_not_one_is_a_one_line_error(tmp_path, cli) -> None:
    code, _, err = cli("import", "terminal-bench", str(tmp_path), "--out", str(tmp_path / "o"))
    assert code == 2
    assert "no Terminal-Bench task folders" in err


@pytest.mark.slow
def test_a_harbor_task_that_fits_is_imported_and_proven(tmp_path, cli) -> None:
    harbor_task(tmp_path / "tasks")
    terminal_bench_task(tmp_path / "tasks", "apt", NEEDS["apt"][0])
    out = tmp_path / "suite"
    code, stdout, stderr = cli(
        "import", "terminal-bench", str(tmp_path / "tasks"), "--out", str(out)
    )
    assert code == 0, stderr
    assert "1 Terminal-Bench task(s) written" in stdout
    assert "rejected apt: needs a container: needs Debian packages this machine lacks" in stderr
    task = yaml.safe_load((out / "tb-word-count" / "task.yaml").read_text())
    assert task["fail_to_pass"] == [
        "tests/test_outputs.py::test_count_file_exists",
        "tests/test_outputs.py::test_count_is_the_number_of_words",
    ]
    assert "/app" not in task["prompt"].split("\n\n")[0]  # paths are the workspace's
    assert (out / "tb-word-count" / "repo" / "words.txt").is_file()  # what COPY put in /app
    heldout = (out / "tb-word-count" / "heldout" / "tests" / "test_outputs.py").read_text()
    assert 'Path("count.txt")' in heldout
    assert not (out / "tb-word-count" / "heldout" / "tests" / "test.sh").exists()
    assert task["timeout_s"] == 300


@pytest.mark.slow
def test_a_task_whose_dockerfile_only_pip_installs_gets_an_environment(
    tmp_path, cli, monkeypatch
) -> None:
    """`RUN pip install X` becomes `environment.python.requirements`; an apt install of a
    package this machine has (bash) needs nothing."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = harbor_task(tmp_path / "tasks")
    (folder / "environment" / "Dockerfile").write_text(
        "FROM python:3.13-slim-bookworm\nWORKDIR /app\n"
        "RUN apt-get update && apt-get install -y bash && rm -rf /var/lib/apt/lists/*\n"
        "RUN pip install --no-cache-dir more-itertools==10.5.0\n"
        "COPY words.txt /app/words.txt\n"
    )
    test = folder / "tests" / "test_outputs.py"
    test.write_text("import more_itertools\n" + test.read_text())
    out = tmp_path / "suite"
    code, stdout, stderr = cli(
        "import", "terminal-bench", str(tmp_path / "tasks"), "--out", str(out)
    )
    assert code == 0, stderr
    task = yaml.safe_load((out / "tb-word-count" / "task.yaml").read_text())
    assert task["environment"] == {"python": {"requirements": ["more-itertools==10.5.0"]}}
