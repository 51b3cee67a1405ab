"""The trial's unit layer: its steps run with fakes (no jail, no git, no subprocess).

Each status rule of `apply_verdict` and `agent_end` is proven here through `run_trial` with
fake prepare/agent/capture/grade steps, and `regrade` is proven to go through the same
`apply_verdict`. The real end-to-end runs in this folder prove the wiring.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

import localagentbench.runner._regrade as regrade_module
from localagentbench.agents import AgentContext, AgentOutcome, BaseAgent
from localagentbench.errors import AgentFault, InfraError
from localagentbench.gateway import TrialStats
from localagentbench.grading import CommandsResult, FixtureProof, Verdict
from localagentbench.records import (
    CapStop,
    ConfigurationInfo,
    RunDir,
    RunInfo,
    TrialRecord,
    UnrunnableTask,
)
from localagentbench.runner import (
    AgentEnd,
    TrialEnv,
    TrialPlan,
    TrialSteps,
    apply_verdict,
    build_record,
    configuration_from_cli,
    regrade_run,
    run_trial,
)
from localagentbench.runner._budget import OverBudget
from localagentbench.runner._setup import provenance
from localagentbench.runner._toolchain import prove_toolchains, runnable_tasks
from localagentbench.runner._trial_agent import AgentRun
from localagentbench.runner._trial_capture import Captured
from localagentbench.runner._trial_grade import Graded
from localagentbench.runner._trial_prepare import Prepared
from localagentbench.runner._trial_verdict import agent_end
from localagentbench.runner._watch import TrialWatch
from localagentbench.sandbox import NoneSandbox, TamperReport
from localagentbench.tasks import Task, load_tasks
from localagentbench.workspace import Pristine, TrialDirs

COMMIT = "0" * 40


class Idle(BaseAgent):
    """An adapter the fakes never run: the trial's configuration needs one."""

    name = "idle"
    uses_model = False

    def run(self, ctx: AgentContext) -> AgentOutcome:  # pragma: no cover - never called
        raise AssertionError("the fake agent step runs instead")


def verdict(success: bool = True, **changes: Any) -> Verdict:
    """A grader's verdict, passing or failing, with ``changes`` on top."""
    result = CommandsResult(passed=success, exit_codes=[0 if success else 1], reason="")
    fields: dict[str, Any] = {
        "success": success,
        "correctness": 1.0 if success else 0.0,
        "overfit": False,
        "claimed_done": True,
        "false_success": not success,
        "damage": [],
        "visible": result,
        "heldout": result,
        "checks": [],
        "isolation": "none",
    }
    return Verdict(**{**fields, **changes})


def outcome(**changes: Any) -> AgentOutcome:
    fields: dict[str, Any] = {
        "exit_code": 0,
        "timed_out": False,
        "wall_s": 1.5,
        "final_answer": "done",
    }
    return AgentOutcome(**{**fields, **changes})


@dataclass
class Fakes:
    """Fake steps: each returns what the test set, or raises ``raises[step]``."""

    outcome: AgentOutcome = field(default_factory=outcome)
    traffic: TrialStats | None = None
    loop: str | None = None
    verdict: Verdict | None = field(default_factory=verdict)
    raises: dict[str, BaseException] = field(default_factory=dict)
    restored: bool = False
    """The guard found the master tree tampered with and restored it."""
    unrecordable: AgentFault | None = None
    """The capture step's patch could not be recorded."""
    ran: list[str] = field(default_factory=list)

    def _step(self, name: str) -> None:
        self.ran.append(name)
        if name in self.raises:
            raise self.raises[name]

    def guard(self, plan: TrialPlan, env: TrialEnv) -> bool:
        self._step("guard")
        return self.restored

    def prepare(self, plan: TrialPlan, env: TrialEnv, restored: bool) -> Prepared:
        self._step("prepare")
        root = env.scratch_root / plan.id
        dirs = TrialDirs(root=root, work=root / "work", home=root / "home", git_dir=root / "git")
        dirs.work.mkdir(parents=True)
        return Prepared(dirs, TrialWatch(plan.lane), budget=None, restored=restored)

    def agent(self, plan: TrialPlan, env: TrialEnv, prepared: Prepared) -> AgentRun:
        self._step("agent")
        end = agent_end(self.outcome, self.traffic, loop=self.loop)
        return AgentRun(end, False, "none", self.outcome, self.traffic, outside_writes=0)

    def capture(
        self, plan: TrialPlan, env: TrialEnv, prepared: Prepared, ran: AgentRun
    ) -> Captured:
        self._step("capture")
        patch = env.run_dir.trial(plan.id) / "patch.diff"
        patch.write_text("diff --git a/calc.py b/calc.py\n")
        return Captured(patch, TamperReport(protected=["tests/*"]), fault=self.unrecordable)

    def grade(
        self, plan: TrialPlan, env: TrialEnv, prepared: Prepared, ran: AgentRun, cap: Captured
    ) -> Graded:
        self._step("grade")
        return Graded(self.verdict if ran.end.gradable else None, 0.25)

    @property
    def steps(self) -> TrialSteps:
        return TrialSteps(self.guard, self.prepare, self.agent, self.capture, self.grade)


@pytest.fixture
def task(make_task) -> Task:  # type: ignore[no-untyped-def]
    folder = make_task()
    [loaded] = load_tasks(folder.parent, [])
    return loaded


@pytest.fixture
def env(tmp_path: Path, task: Task) -> TrialEnv:
    config = configuration_from_cli("mock", None, mock_behavior="solve")
    (tmp_path / "scratch").mkdir()
    return TrialEnv(
        run_id="run-1",
        run_dir=RunDir(tmp_path / "run"),
        pristine={task.key: Pristine(task.id, task.version, "d", COMMIT, tmp_path / "a.tar")},
        agents={config.id: Idle()},
        agent_versions={config.id: "1.0"},
        scratch_root=tmp_path / "scratch",
        isolation="none",
        cancel=threading.Event(),
    )


@pytest.fixture
def plan(task: Task) -> TrialPlan:
    return TrialPlan(task, configuration_from_cli("mock", None, mock_behavior="solve"), 1)


def run(plan: TrialPlan, env: TrialEnv, fakes: Fakes) -> TrialRecord:
    record = run_trial(plan, env, fakes.steps)
    assert env.run_dir.records() == [record]  # written, and read back as it was built
    return record


# -- the status rules ----------------------------------------------------------------------


def test_completed_a_graded_trial_takes_every_steps_part(plan, env) -> None:
    fakes = Fakes()
    record = run(plan, env, fakes)
    assert fakes.ran == ["guard", "prepare", "agent", "capture", "grade"]
    assert (record.status, record.success, record.error) == ("completed", True, None)
    assert (record.trial_id, record.agent_version, record.pristine_commit) == (
        plan.id,
        "1.0",
        COMMIT,
    )
    assert record.wall_s == 1.5
    assert record.final_answer == "done"
    assert record.tokens.source == "none"  # the adapter uses no model
    assert record.patch_bytes > 0
    assert record.tamper is not None
    assert record.grade_s == 0.25
    assert record.grading_isolation == "none"
    assert record.cap is None
    assert not (env.scratch_root / plan.id).exists()  # the trial's folders are gone


def test_timeout_is_graded_as_it_stands(plan, env) -> None:
    record = run(plan, env, Fakes(outcome(timed_out=True, exit_code=None), verdict=verdict(False)))
    assert (record.status, record.success, record.false_success) == ("timeout", False, True)


def test_agent_error_names_the_exit_and_is_graded(plan, env) -> None:
    fakes = Fakes(outcome(exit_code=2))
    record = run(plan, env, fakes)
    assert (record.status, record.error, record.success) == ("agent_error", "agent exited 2", True)
    assert "grade" in fakes.ran


@pytest.mark.parametrize(
    ("fakes", "error"),
    [
        (Fakes(traffic=TrialStats(trial_id="t", model="m", requests=7, cap_hit=True)), "7 req"),
        (Fakes(outcome(stopped=True, exit_code=-15), loop="same call x5"), "loop detected"),
    ],
    ids=["request-cap", "loop"],
)
def test_cap_hit_at_a_gateway_cap_or_a_loop(plan, env, fakes: Fakes, error: str) -> None:
    record = run(plan, env, fakes)
    assert record.status == "cap_hit"
    assert error in (record.error or "")


def test_cap_hit_past_the_disk_budget_is_not_graded(plan, env) -> None:
    stop = CapStop(cap="disk", detail="workspace holds 2 GB", ended_by="harness")
    fakes = Fakes(raises={"capture": OverBudget(stop)})
    record = run(plan, env, fakes)
    assert "grade" not in fakes.ran
    assert (record.status, record.success, record.cap) == ("cap_hit", False, stop)
    assert record.visible.reason.startswith("not graded: ")


def test_infra_error_when_the_agent_cannot_start_is_never_graded(plan, env) -> None:
    fakes = Fakes(outcome(start_error="no such binary", exit_code=None))
    record = run(plan, env, fakes)
    assert (record.status, record.success, record.false_success) == ("infra_error", False, False)
    assert record.error == "agent could not start: no such binary"
    assert fakes.ran[-1] == "grade"
    assert record.visible.reason.startswith("not graded")


def test_a_workspace_that_cannot_be_made_keeps_the_guards_finding(plan, env) -> None:
    fakes = Fakes(restored=True, raises={"prepare": InfraError("git init failed")})
    record = run(plan, env, fakes)
    assert (record.status, record.restored) == ("infra_error", True)
    assert record.error == "InfraError: git init failed"


def test_infra_error_when_a_harness_step_fails_for_the_machine(plan, env) -> None:
    """Git failing for the harness (not for anything the agent wrote): rerun, never scored."""
    fakes = Fakes(raises={"capture": InfraError("git write-tree failed: No space left")})
    record = run(plan, env, fakes)
    assert record.status == "infra_error"
    assert "No space left" in (record.error or "")
    assert record.wall_s == 1.5  # the agent's part is kept


def test_infra_error_with_its_traceback_on_a_harness_bug(plan, env) -> None:
    fakes = Fakes(raises={"capture": TypeError("simulated harness bug")})
    record = run(plan, env, fakes)
    assert record.status == "infra_error"
    assert "harness fault TypeError: simulated harness bug" in (record.error or "")
    trace = env.run_dir.trial(plan.id) / "harness-error.txt"
    assert "simulated harness bug" in trace.read_text()


def test_an_agent_fault_is_scored_and_keeps_the_agents_status(plan, env) -> None:
    fault = AgentFault("unappliable_patch", "patch.diff does not apply")
    fakes = Fakes(outcome(exit_code=3), raises={"grade": fault})
    record = run(plan, env, fakes)
    assert (record.status, record.success) == ("agent_error", False)
    assert record.error == f"{fault}; agent exited 3"
    assert record.false_success  # its final answer claimed success
    assert "unappliable_patch" in record.visible.reason


def test_an_unrecordable_patch_is_scored_and_keeps_what_capture_took(plan, env) -> None:
    fault = AgentFault("unrecordable_patch", "the patch is over its size cap")
    fakes = Fakes(unrecordable=fault)
    record = run(plan, env, fakes)
    assert "grade" not in fakes.ran
    assert (record.status, record.success, record.error) == ("completed", False, str(fault))
    assert record.tamper is not None


def test_tampered_is_scored_as_a_failure_and_logged(plan, env) -> None:
    forged = verdict(True, tampered=["sentinel test_must_fail reported passing"])
    record = run(plan, env, Fakes(verdict=forged))
    assert (record.status, record.success, record.correctness) == ("completed", False, 0.0)
    assert record.tampered == ["sentinel test_must_fail reported passing"]
    [incident] = [i for i in env.run_dir.incidents() if i.kind == "tampered"]
    assert incident.trial_id == plan.id


def test_an_environment_fault_in_grading_is_an_infra_error(plan, env) -> None:
    faulty = verdict(False, env_fault="`go`: not found on PATH")
    record = run(plan, env, Fakes(verdict=faulty))
    assert (record.status, record.success, record.false_success) == ("infra_error", False, False)
    assert record.error == "environment fault in grading: `go`: not found on PATH"


def test_a_failed_trial_the_endpoint_failed_is_an_infra_error(plan, env) -> None:
    traffic = TrialStats(trial_id="t", model="m", requests=3, endpoint_failures=2)
    record = run(plan, env, Fakes(traffic=traffic, verdict=verdict(False)))
    assert record.status == "infra_error"
    assert "the model endpoint stopped answering" in (record.error or "")


def test_a_passing_trial_is_never_blamed_on_the_endpoint(plan, env) -> None:
    traffic = TrialStats(trial_id="t", model="m", requests=3, endpoint_failures=2)
    record = run(plan, env, Fakes(traffic=traffic))
    assert (record.status, record.success) == ("completed", True)


def test_unrunnable_tasks_get_no_trial(tmp_path, make_task, monkeypatch) -> None:
    """A task whose fixture proof shows an environment fault is set aside before any trial;
    when every task is, or --require-all, the run refuses in one line."""
    make_task("calc-a")
    make_task("calc-b")
    tasks = load_tasks(tmp_path / "suite", [])
    faulted = FixtureProof("env-fault", "`go`: not found", "none", "install go")

    def proofs(todo: list[Task], sandbox: object, workers: int) -> list[FixtureProof | None]:
        return [faulted if t.id == "calc-a" else None for t in todo]

    monkeypatch.setattr("localagentbench.runner._toolchain.prove_fixtures", proofs)
    tags = {t.key: "tag" for t in tasks}
    cache = tmp_path / "proofs.json"
    unrunnable = prove_toolchains(tasks, NoneSandbox(), cache_file=cache, tags=tags)
    assert [(u.id, u.hint) for u in unrunnable] == [("calc-a", "install go")]
    assert [t.id for t in runnable_tasks(tasks, unrunnable)] == ["calc-b"]
    with pytest.raises(Exception, match="--require-all: skipped 1 unrunnable task"):
        runnable_tasks(tasks, unrunnable, require_all=True)
    every = [UnrunnableTask(id=t.id, version=t.version, reason="r", hint="") for t in tasks]
    with pytest.raises(Exception, match="no selected task can run here"):
        runnable_tasks(tasks, every)


# -- the record's parts --------------------------------------------------------------------


def test_the_steps_parts_cover_the_record(plan, env) -> None:
    """Every field of the record is some step's part (left to their defaults: only the
    version, and fields other stages fill in), and no two steps give the same field."""
    record = run(plan, env, Fakes())
    unset = set(TrialRecord.model_fields) - record.model_fields_set
    assert unset == {"version", "worker"}


def test_two_steps_naming_one_field_is_refused() -> None:
    with pytest.raises(ValueError, match="given by two steps: status"):
        build_record({"status": "completed"}, {"status": "timeout"})


def test_apply_verdict_keeps_the_cap_only_for_cap_hit() -> None:
    stop = CapStop(cap="max_requests", detail="7 requests", ended_by="agent")
    assert apply_verdict(AgentEnd("cap_hit", "cap", stop), verdict()).part()["cap"] == stop
    faulty = verdict(False, env_fault="no go")
    assert apply_verdict(AgentEnd("cap_hit", "cap", stop), faulty).part()["cap"] is None


# -- regrade goes through the same rules ---------------------------------------------------


def test_regrade_applies_the_same_verdict_rules(plan, env, task, monkeypatch) -> None:
    """A regrade whose new grading hits an environment fault makes the trial an infra_error
    (the rule regrade used to miss), through the very `apply_verdict` a run uses."""
    config = plan.config
    env.run_dir.write_info(
        RunInfo(
            run_id="run-1",
            created_at="2026-12-07T00:00:00Z",
            harness={},
            host={},
            tasks_dir=str(task.file.parent.parent),
            tasks=[provenance(task, env.pristine[task.key])],
            configurations=[
                ConfigurationInfo(id=config.id, agent=config.agent, model=None, settings={})
            ],
            repeats=1,
            concurrency=1,
            isolation="none",
        )
    )
    before = run(plan, env, Fakes())
    assert before.status == "completed"

    calls: list[AgentEnd] = []

    def spy(end: AgentEnd, graded: Verdict | None, **kwargs: Any) -> Any:
        calls.append(end)
        return apply_verdict(end, graded, **kwargs)

    faulty = verdict(False, env_fault="`python3`: cannot start")
    monkeypatch.setattr(regrade_module, "regrade_trial", lambda *args: faulty)
    monkeypatch.setattr(regrade_module, "apply_verdict", spy)
    result = regrade_run(env.run_dir.path, sandbox=NoneSandbox())

    assert calls == [AgentEnd.recorded(before)]
    assert (result.regraded, result.changed) == (1, 1)
    [after] = result.records
    assert (after.status, after.success) == ("infra_error", False)
    assert after.error == "environment fault in grading: `python3`: cannot start"
    [incident] = [i for i in env.run_dir.incidents() if i.kind == "regrade"]
    assert incident.data["changed"]["status"] == ["completed", "infra_error"]
