"""The GitHub Actions workflows parse, and say what the README promises: a three-system
matrix (Linux runs .ci/run, macOS and Windows the portable tier, macOS the Seatbelt tests),
and a Pages site built from the runs in leaderboard/."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

pytestmark = pytest.mark.portable

WORKFLOWS = Path(__file__).resolve().parent.parent / ".github" / "workflows"


def _load(name: str) -> dict[Any, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads the bare key `on` as true.
    return workflow.get("on", workflow.get(True))


def _applies(condition: str, os_name: str) -> bool:
    """Whether a step's `if` (``runner.os == 'X'`` or ``!=``) lets it run on `os_name`."""
    if not condition:
        return True
    match = re.fullmatch(r"runner\.os (==|!=) '(\w+)'", condition.strip())
    assert match, f"a condition this test does not read: {condition}"
    return (match[2] == os_name) == (match[1] == "==")


def _runs(job: dict[str, Any], os_name: str) -> list[str]:
    """The commands a job runs on one runner.os, in order."""
    return [
        " ".join(step["run"].split())
        for step in job["steps"]
        if "run" in step and _applies(step.get("if", ""), os_name)
    ]


def test_ci_matrix_has_the_three_systems():
    ci = _load("ci.yml")
    assert {"push", "pull_request"} <= set(_triggers(ci))
    [job] = ci["jobs"].values()
    systems = [entry["os"] for entry in job["strategy"]["matrix"]["include"]]
    assert [s.split("-")[0] for s in systems] == ["ubuntu", "macos", "windows"]
    assert job["runs-on"] == "${{ matrix.os }}"
    assert job["strategy"]["fail-fast"] is False
    assert job["timeout-minutes"] <= 60


def test_linux_runs_ci_run_and_the_others_the_portable_tier():
    [job] = _load("ci.yml")["jobs"].values()
    linux, macos, windows = (_runs(job, name) for name in ("Linux", "macOS", "Windows"))
    assert "bash .ci/run" in linux
    assert not any("-m portable" in cmd for cmd in linux)
    for other in (macos, windows):
        assert any("pip install -e" in cmd for cmd in other)
        assert any("pytest -m portable" in cmd for cmd in other)
        assert ".ci/run" not in " ".join(other)
    assert any("test_seatbelt_macos.py" in cmd for cmd in macos)
    assert not any("test_seatbelt_macos.py tests" in cmd for cmd in windows)


def test_macos_and_windows_are_experimental_until_green():
    [job] = _load("ci.yml")["jobs"].values()
    flags = {e["os"].split("-")[0]: e["experimental"] for e in job["strategy"]["matrix"]["include"]}
    assert flags == {"ubuntu": False, "macos": True, "windows": True}
    assert job["continue-on-error"] == "${{ matrix.experimental }}"


def test_the_portable_marker_is_registered():
    pyproject = (WORKFLOWS.parent.parent / "pyproject.toml").read_text(encoding="utf-8")
    assert '"portable:' in pyproject


def test_pages_publishes_the_site_built_from_leaderboard():
    pages = _load("pages.yml")
    assert "workflow_dispatch" in _triggers(pages)
    assert pages["permissions"]["pages"] == "write"
    build, deploy = pages["jobs"]["build"], pages["jobs"]["deploy"]
    script = " ".join(step.get("run", "") for step in build["steps"])
    assert "leaderboard/*/" in script
    assert "localagentbench report" in script
    assert "--out _site" in script
    [upload] = [s for s in build["steps"] if "upload-pages-artifact" in s.get("uses", "")]
    assert upload["with"]["path"] == "_site"
    assert deploy["needs"] == "build"
    assert any("deploy-pages" in s.get("uses", "") for s in deploy["steps"])
