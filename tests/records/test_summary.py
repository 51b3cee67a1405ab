"""summary.json version 2: intervals, pass^k, false success both ways, composite without quality."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from labtest import trial_record
from localagentbench.grading import CheckResult
from localagentbench.records import QUALITY_NOTE, SUMMARY_VERSION, Summary, TrialRecord
from localagentbench.results import summarise
from localagentbench.stats import clustered_se, composite_score, pass_hat_k, wilson_interval

GOLDEN = Path(__file__).parent / "golden"


def _rec(
    task: str,
    repeat: int,
    success: bool,
    *,
    config: str = "x",
    status: str = "completed",
    claimed: bool = True,
    correctness: float | None = None,
    wall_s: float = 10.0,
    compliance: list[bool] | None = None,
    damage: bool = False,
) -> TrialRecord:
    checks = [
        CheckResult(kind="tests-preserved", name=f"c{i}", passed=ok, reason="r", compliance=True)
        for i, ok in enumerate(compliance or [])
    ]
    return trial_record(
        task,
        config,
        repeat,
        success,
        status=status,
        correctness=float(success) if correctness is None else correctness,
        claimed_done=claimed,
        false_success=claimed and not success,
        damage=["deleted tracked file: x"] if damage else [],
        wall_s=wall_s,
        checks=checks,
    )


def test_golden_version_1_summary_still_loads():
    """A summary.json written before version 2 must keep loading (new fields are absent)."""
    old = Summary.model_validate_json((GOLDEN / "summary-v1.json").read_text())
    assert old.version == 1
    config = old.configurations["x"]
    assert config.success_interval == pytest.approx((0.2077, 0.9385), abs=1e-4)
    assert config.pass_hat_k == {}
    assert config.composite is None


def test_new_summaries_carry_the_version_and_refuse_newer():
    summary = summarise("r", [_rec("a", 1, True)], "now")
    assert summary.version == SUMMARY_VERSION == 2
    data = json.loads(summary.model_dump_json())
    data["version"] = 99
    with pytest.raises(ValueError, match="newer than this harness reads"):
        Summary.model_validate(data)


def test_spec_worked_example_wilson_12_of_24_and_0_of_24():
    half = [_rec(f"t{i}", 1, i < 12) for i in range(24)]
    low, high = summarise("r", half, "now").configurations["x"].success_interval
    assert (round(low, 2), round(high, 2)) == (0.31, 0.69)
    none = [_rec(f"t{i}", 1, False) for i in range(24)]
    low, high = summarise("r", none, "now").configurations["x"].success_interval
    assert low == 0.0
    assert high == pytest.approx(0.14, abs=0.005)


def test_spec_worked_example_penalty_half_a_point():
    """Median 114 s and 2 timeouts in 40 trials: penalty 0.5."""
    records = [_rec(f"t{i}", 1, True, wall_s=114.0) for i in range(38)]
    records += [_rec(f"t{i}", 1, False, wall_s=114.0, status="timeout") for i in (38, 39)]
    config = summarise("r", records, "now").configurations["x"]
    assert config.timeout_fraction == pytest.approx(0.05)
    assert config.composite is not None
    assert config.composite.penalty == pytest.approx(0.5)


def test_pass_hat_k_per_cell_and_mean_over_tasks():
    records = [_rec("a", r, r <= 2) for r in (1, 2, 3)] + [_rec("b", r, True) for r in (1, 2, 3)]
    summary = summarise("r", records, "now")
    config = summary.configurations["x"]
    for k in (1, 2, 3):
        assert config.pass_hat_k[str(k)] == pytest.approx((pass_hat_k(3, 2, k) + 1.0) / 2)
    cell = next(c for c in summary.cells if c.task_id == "a")
    assert cell.pass_hat_k["3"] == 0.0
    assert cell.pass_hat_k["2"] == pytest.approx(1 / 3)


def test_false_success_among_claimed_and_among_all_with_counts_and_intervals():
    records = [
        _rec("a", 1, True),
        _rec("b", 1, False),
        _rec("c", 1, False),
        _rec("d", 1, False, claimed=False),
        _rec("e", 1, True, claimed=False),
    ]
    config = summarise("r", records, "now").configurations["x"]
    claimed, everyone = config.false_success_among_claimed, config.false_success_among_all
    assert claimed is not None
    assert everyone is not None
    assert (claimed.count, claimed.n) == (2, 3)
    assert claimed.interval == wilson_interval(2, 3)
    assert (everyone.count, everyone.n) == (2, 5)
    assert everyone.rate == pytest.approx(0.4)


def test_correctness_mean_with_task_clustered_interval():
    values = {"a": [1.0, 0.8, 0.9], "b": [0.2, 0.0, 0.1], "c": [0.5, 0.5, 0.6]}
    records = [
        _rec(t, i + 1, v == 1.0, correctness=v)
        for t, vs in values.items()
        for i, v in enumerate(vs)
    ]
    config = summarise("r", records, "now").configurations["x"]
    flat = [v for vs in values.values() for v in vs]
    se = clustered_se(flat, [t for t, vs in values.items() for _ in vs])
    assert config.correctness_mean == pytest.approx(sum(flat) / len(flat))
    assert config.correctness_se == pytest.approx(se)
    assert config.correctness_interval is not None
    low, high = config.correctness_interval
    assert low == pytest.approx(max(0.0, sum(flat) / 9 - 1.96 * se))
    assert high == pytest.approx(min(1.0, sum(flat) / 9 + 1.96 * se))


def test_composite_without_quality_is_marked_and_rescaled():
    records = [_rec("a", 1, True, compliance=[True, False]), _rec("b", 1, False, compliance=[True])]
    summary = summarise("r", records, "now")
    config = summary.configurations["x"]
    assert config.compliance == pytest.approx(0.75)
    assert config.composite is not None
    assert config.composite.quality is None
    assert config.composite.parts == ["correctness", "compliance"]
    assert config.composite.rescaled is True
    assert config.composite.score == pytest.approx(composite_score(0.5, 0.75, None, 10.0, 0.0)[0])
    assert summary.quality == QUALITY_NOTE
    assert "quality is absent" in summary.model_dump_json()


def test_rates_and_stability():
    records = [
        _rec("a", 1, True),
        _rec("a", 2, False, damage=True),
        _rec("b", 1, False, status="cap_hit"),
        _rec("b", 2, False),
    ]
    config = summarise("r", records, "now").configurations["x"]
    assert config.damage_rate is not None
    assert (config.damage_rate.count, config.damage_rate.n) == (1, 4)
    assert config.cap_hit_rate is not None
    assert config.cap_hit_rate.count == 1
    assert config.stability == pytest.approx(0.25)  # task a spreads 0.5, task b 0


def test_single_repeat_has_no_stability_and_no_nan_in_json():
    summary = summarise("r", [_rec("a", 1, True)], "now")
    config = summary.configurations["x"]
    assert config.stability is None
    assert config.correctness_interval is None
    text = summary.model_dump_json()
    assert "NaN" not in text
    assert not any(
        isinstance(v, float) and math.isnan(v)
        for v in json.loads(text)["configurations"]["x"].values()
    )


def test_infra_errors_never_enter_rates():
    records = [_rec("a", 1, True), _rec("a", 2, False, status="infra_error")]
    config = summarise("r", records, "now").configurations["x"]
    assert config.false_success_among_all is not None
    assert config.false_success_among_all.n == 1
    assert config.timeout_fraction == 0.0
    assert config.infra_errors == 1


def test_suspicious_trials_and_notices_are_counted_per_configuration():
    """Any tamper flag makes a suspicious trial (infra errors included: the attempt shows
    whatever the verdict); a trial with notices only is counted apart."""
    from localagentbench.records._parts import SuspiciousFlag

    tamper = SuspiciousFlag(rule="runner-shadow", severity="tamper", path="pytest.py", detail="d")
    notice = SuspiciousFlag(rule="test-changed", severity="notice", path="test_a.py", detail="d")
    records = [
        trial_record("a", "x", 1, False, suspicious=[tamper, notice]),
        trial_record("a", "x", 2, True, suspicious=[notice]),
        trial_record("b", "x", 1, True),
        trial_record("b", "x", 2, False, status="infra_error", suspicious=[tamper]),
        trial_record("a", "y", 1, True),
    ]
    summary = summarise("r", records, "now")
    x, y = summary.configurations["x"], summary.configurations["y"]
    assert (x.suspicious_trials, x.suspicious_notices) == (2, 1)
    assert (y.suspicious_trials, y.suspicious_notices) == (0, 0)
    from localagentbench.records import trial_row

    assert summarise("r", [trial_row(r) for r in records], "now") == summary
    old = Summary.model_validate_json((GOLDEN / "summary-v1.json").read_text())
    assert old.configurations["x"].suspicious_trials == 0
