"""`compare` on real runs of the bundled suite: mock solve vs noop, and noop vs noop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from localagentbench.runner import RunOptions, configuration_from_cli, execute
from localagentbench.tasks import bundled_suite

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("suite-runs")
    made = {}
    for name, behavior in (("solve", "solve"), ("noop", "noop"), ("noop2", "noop")):
        config = configuration_from_cli("mock", None, mock_behavior=behavior)
        execute(
            RunOptions(
                tasks_dir=bundled_suite(), configurations=[config], concurrency=8, out=root / name
            )
        )
        made[name] = root / name
    return made


def test_solve_vs_noop_is_a_significant_difference(runs, cli):
    code, out, _ = cli(
        "compare", "--base", str(runs["noop"]), "--other", str(runs["solve"]), "--json"
    )
    assert code == 0
    result = json.loads(out)
    assert result["significant"] is True
    assert result["difference"] == 1.0
    assert result["p_value"] < 0.001
    assert "significantly better" in result["verdict"]


def test_fail_if_worse_exits_1_only_for_the_regression(runs, cli):
    worse = cli(
        "compare", "--base", str(runs["solve"]), "--other", str(runs["noop"]), "--fail-if-worse"
    )
    assert worse[0] == 1
    assert "significantly worse" in worse[1]
    better = cli(
        "compare", "--base", str(runs["noop"]), "--other", str(runs["solve"]), "--fail-if-worse"
    )
    assert better[0] == 0


def test_two_runs_of_the_same_behaviour_show_no_difference(runs, cli):
    code, out, _ = cli(
        "compare", "--base", str(runs["noop"]), "--other", str(runs["noop2"]), "--fail-if-worse"
    )
    assert code == 0
    assert "inside the noise" in out
    assert "no significant difference" in out
