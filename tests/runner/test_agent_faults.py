"""Issue 34, item 4: a harness step that fails because of what the agent wrote is the agent's
scored failure; only causes outside the workspace's content are infra_error."""

from __future__ import annotations

from labtest import script
from localagentbench.runner import RunOptions, configuration_from_cli, execute, regrade_run
from localagentbench.sandbox import select
from localagentbench.workspace import _patch as patch_module

CLAIM = "Done: all tests pass."


def _run(make_task, tmp_path, body: str):
    make_task()
    agent = script(tmp_path / "agent.sh", body)
    config = configuration_from_cli("command", None, agent_cmd=str(agent))
    out = tmp_path / "run"
    result = execute(
        RunOptions(tasks_dir=tmp_path / "suite", configurations=[config], out=out, sandbox="none")
    )
    [record] = result.run_dir.records()
    return record, result


def test_a_patch_over_the_cap_is_a_scored_failure_and_regrade_agrees(
    make_task, tmp_path, monkeypatch
):
    """Threat: a workspace whose patch cannot be recorded (here: over the size cap) became an
    unscored infra_error, removing the trial from every denominator."""
    monkeypatch.setattr(patch_module, "PATCH_CAP", 4000)
    record, result = _run(
        make_task,
        tmp_path,
        f"""\
        printf 'def add(a, b):\\n    return a + b\\n' > calc.py
        seq 1 5000 > padding.txt
        echo "{CLAIM}"
        """,
    )
    assert record.status == "completed"
    assert record.success is False
    assert record.correctness == 0.0
    assert record.error is not None
    assert record.error.startswith("unrecordable_patch: the patch is ")
    assert record.claimed_done is True
    assert record.false_success is True
    assert result.infra_errors == 0
    assert [i for i in result.run_dir.incidents() if i.kind == "rerun"] == []
    patch = result.run_dir.trial(record.trial_id) / "patch.diff"
    assert b"[... localagentbench: patch cut at the cap" in patch.read_bytes()
    assert record.patch_bytes == patch.stat().st_size

    regraded = regrade_run(tmp_path / "run", sandbox=select("none"))
    assert regraded.regraded == 1
    assert regraded.changed == 0
    [again] = regraded.records
    assert (again.success, again.correctness) == (False, 0.0)
