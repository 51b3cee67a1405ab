"""Costs from a price table on a scripted-backend run equal a hand computation; a model
without a price shows "no price"; cached input is priced apart; tables gain the columns."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from localagentbench.cli import app
from localagentbench.errors import ConfigError
from localagentbench.records import RunDir, TrialRecord
from localagentbench.results import config_spend, load_prices, trial_audit, trial_cost
from localagentbench.runner import RunOptions, configuration_from_cli, execute

CLIENT = """\
import json, os, urllib.request
for i in range(2):
    body = json.dumps({"model": os.environ["LAB_MODEL"],
                       "messages": [{"role": "user", "content": f"turn {i}"}]}).encode()
    req = urllib.request.Request(os.environ["LAB_BASE_URL"] + "/chat/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        print(json.load(r)["choices"][0]["message"]["content"])
"""

PRICES = {
    "prices": [
        {
            "model": "scripted/*priced*",
            "input_per_million": 3.0,
            "output_per_million": 15.0,
            "cached_input_per_million": 0.3,
            "currency": "USD",
            "date": "2026-12-01",
            "source": "test table",
        }
    ]
}


def _model(tmp_path: Path, name: str) -> str:
    path = tmp_path / f"{name}.yaml"
    usage = {"prompt_tokens": 1000, "completion_tokens": 200, "cached_prompt_tokens": 400}
    steps = [{"text": "Looking."}, {"text": "Done: fixed."}]
    path.write_text(yaml.safe_dump({"name": name, "usage": usage, "steps": steps}))
    return f"scripted/{path}"


@pytest.fixture
def priced_run(make_task, tmp_path: Path) -> Path:
    """One task, two configurations of a two-request agent: one model priced, one not."""
    make_task()
    agent = tmp_path / "agent.py"
    agent.write_text(f"#!{sys.executable}\n" + CLIENT)
    agent.chmod(0o755)
    configs = []
    for name in ("priced", "free"):
        config = configuration_from_cli("command", _model(tmp_path, name), agent_cmd=str(agent))
        configs.append(config.model_copy(update={"id": name}))
    options = RunOptions(
        tasks_dir=tmp_path / "suite", configurations=configs, out=tmp_path / "run", sandbox="none"
    )
    execute(options)
    (tmp_path / "prices.yaml").write_text(yaml.safe_dump(PRICES))
    return tmp_path / "run"


def test_scripted_run_cost_equals_the_hand_computation_and_tables_show_it(
    priced_run: Path, tmp_path: Path
) -> None:
    records = {r.config_id: r for r in RunDir(priced_run).records()}
    priced = records["priced"]
    assert priced.tokens.input == 2000
    assert priced.tokens.cached == 800
    assert priced.tokens.output == 400
    assert priced.gateway is not None
    assert (priced.gateway.prompt_max_tokens, priced.gateway.prompt_p50_tokens) == (1000, 1000)
    lines = (RunDir(priced_run).trial(priced.trial_id) / "gateway.jsonl").read_text().splitlines()
    assert [json.loads(line)["usage"]["cached"] for line in lines] == [400, 400]

    table = load_prices(tmp_path / "prices.yaml")
    per_request = (600 * 3.0 + 400 * 0.3 + 200 * 15.0) / 1_000_000
    cost = trial_cost(priced, table)
    assert cost.state == "priced"
    assert cost.cost == pytest.approx(2 * per_request)
    spend = config_spend("priced", records.values(), table)
    assert spend.cost_total == pytest.approx(2 * per_request)
    assert spend.currency == "USD"
    assert not priced.success  # the agent changes nothing: spent, and nothing solved
    assert spend.cost_per_solved is not None
    assert math.isinf(spend.cost_per_solved.value)

    free = config_spend("free", records.values(), table)
    assert free.cost_state == "no price"
    assert free.cost_total is None
    assert trial_cost(records["free"], table).state == "no price"
    assert trial_audit(priced).observable is False  # no request declared a tool

    # the same run through `tables`: one run serves both checks (a run costs CI time)
    prices = str(tmp_path / "prices.yaml")
    runner = CliRunner()
    full = runner.invoke(app, ["tables", str(priced_run), "--format", "json", "--prices", prices])
    assert full.exit_code == 0, full.output
    rows = {c["configuration"]: c for c in json.loads(full.output)["configurations"]}
    assert rows["priced"]["cost"] == pytest.approx(2 * per_request)
    assert rows["free"]["cost"] == "no price"
    assert rows["priced"]["tokens_cached"] == 800
    assert rows["priced"]["prompt_max_tokens"] == 1000
    assert rows["priced"]["tool_use_observable_trials"] == 0
    assert "seed 0" in rows["priced"]["bootstrap"]

    alone = runner.invoke(
        app,
        ["tables", str(priced_run), "--agents", "priced", "--format", "json", "--prices", prices],
    )
    [only] = json.loads(alone.output)["configurations"]
    marks = {"frontier_cost", "frontier_time"}  # relative to the configurations shown
    assert {k: v for k, v in only.items() if k not in marks} == {
        k: v for k, v in rows["priced"].items() if k not in marks
    }

    md = runner.invoke(app, ["tables", str(priced_run), "--prices", prices])
    assert "## Cost, context and tool use" in md.output
    assert "| free | no price |" in md.output
    assert "tool use not observable" in md.output
    assert "inf (nothing solved)" in md.output


def test_a_bad_price_table_names_the_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "prices.yaml"
    bad.write_text(yaml.safe_dump({"prices": [{"model": "x", "input_per_million": 1}]}))
    with pytest.raises(ConfigError, match=r"prices\.yaml: prices\.0\.output_per_million"):
        load_prices(bad)


def test_an_old_record_keeps_unknown_as_unknown() -> None:
    golden = Path(__file__).parent / "golden"
    old = golden / "record-v1.json"
    record = TrialRecord.model_validate_json(old.read_text())
    assert record.agent_cost_usd is None
    if record.gateway is not None:
        assert record.gateway.tool_requests is None
        assert trial_audit(record).observable is False
