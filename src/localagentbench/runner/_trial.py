"""One trial: guard, workspace, agent, capture, grade, record (SPEC section 2)."""

from __future__ import annotations

import json
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagentbench._io import atomic_write_text
from localagentbench._proc import Cancelled
from localagentbench.agents import Agent, AgentContext, AgentOutcome
from localagentbench.errors import AgentFault, LabError
from localagentbench.gateway import GatewayError, TrialRoute, TrialStats
from localagentbench.grading import (
    CommandsResult,
    GoBuildSeeds,
    PristineBaseline,
    TestReport,
    Verdict,
)
from localagentbench.records import (
    CapStop,
    Incident,
    RunDir,
    Status,
    Tokens,
    TrialRecord,
    utc_now,
)
from localagentbench.runner._config import Configuration
from localagentbench.runner._lanes import LaneGate
from localagentbench.runner._pipeline import GradeShared, fault_verdict, grade_trial
from localagentbench.runner._watch import TrialWatch
from localagentbench.sandbox import (
    TEST_INFRA_PATTERNS,
    NoneSandbox,
    ObservedSandbox,
    Sandbox,
    TamperReport,
    tamper_report,
)
from localagentbench.tasks import Task
from localagentbench.workspace import (
    Pristine,
    Reaper,
    TakenPatch,
    check_master,
    prepare_workspace,
    take_patch,
    unpack,
)

if TYPE_CHECKING:
    from localagentbench.gateway import Gateway

__all__ = ["TrialEnv", "TrialPlan", "run_trial", "trial_id"]


def trial_id(task_id: str, config_id: str, repeat: int) -> str:
    return f"{task_id}--{config_id}--r{repeat}"


@dataclass(frozen=True)
class TrialPlan:
    task: Task
    config: Configuration
    repeat: int

    @property
    def id(self) -> str:
        return trial_id(self.task.id, self.config.id, self.repeat)

    @property
    def lane(self) -> str:
        return self.config.lane


@dataclass
class TrialEnv:
    """What every trial of a run shares."""

    run_id: str
    run_dir: RunDir
    pristine: dict[str, Pristine]
    """Task key (id@version) -> its recorded pristine tree."""
    agents: dict[str, Agent]
    """Configuration id -> adapter."""
    agent_versions: dict[str, str | None]
    scratch_root: Path
    isolation: str
    cancel: threading.Event
    keep_workdir: bool = False
    guard_lock: threading.Lock | None = None
    lanes: LaneGate = field(default_factory=LaneGate)
    """Holds a lane's trials through quota windows and while its endpoint is re-proven."""
    gateway: Gateway | None = None
    """The run's gateway; None when no configuration talks to a model."""
    sandbox: Sandbox = field(default_factory=NoneSandbox)
    hide: tuple[Path, ...] = ()
    """Harness paths no agent may see (task tree, run directory)."""
    baseline: PristineBaseline[TestReport | None] = field(default_factory=PristineBaseline)
    """Pristine-tree test results, one per task version for the whole run."""
    go_seeds: GoBuildSeeds | None = None
    """Warm Go build caches for the gradings, one per task version (see `grading._gocache`)."""
    reaper: Reaper | None = None
    """Removes finished trials' folders in the background; None: each trial removes its own."""

    @property
    def grading(self) -> GradeShared:
        """What this run's gradings share, in the form the grading stage takes."""
        return GradeShared(self.sandbox, self.cancel, self.hide, self.baseline, self.go_seeds)


def _not_graded(reason: str) -> Verdict:
    nothing = CommandsResult(passed=False, exit_codes=[], reason=reason)
    return Verdict(
        success=False,
        correctness=0.0,
        overfit=False,
        claimed_done=False,
        false_success=False,
        damage=[],
        visible=nothing,
        heldout=None,
        checks=[],
    )


def _status(
    outcome: AgentOutcome, traffic: TrialStats | None, watch: TrialWatch
) -> tuple[Status, str | None]:
    if outcome.start_error:
        return "infra_error", f"agent could not start: {outcome.start_error}"
    if traffic is not None and traffic.cap_hit:
        cap = traffic.cap or "max_requests"
        return "cap_hit", f"{cap} reached ({traffic.requests} requests)"
    if watch.cap == "loop" and outcome.stopped:
        return "cap_hit", f"loop detected: {watch.detail}"
    if outcome.timed_out:
        return "timeout", None
    if outcome.exit_code != 0:
        return "agent_error", f"agent exited {outcome.exit_code}"
    return "completed", None


def run_trial(plan: TrialPlan, env: TrialEnv) -> TrialRecord:
    """Run one trial to a written record. Raises Cancelled (nothing recorded) on Ctrl-C."""
    task, config = plan.task, plan.config
    env.lanes.wait(plan.lane, env.cancel)  # LaneClosed: left for --resume, nothing written
    folder = env.run_dir.trial(plan.id)
    folder.mkdir(parents=True, exist_ok=True)
    pristine = env.pristine[task.key]
    watch = TrialWatch(plan.lane, env.lanes)
    started_at = utc_now()
    outcome: AgentOutcome | None = None
    verdict: Verdict
    status: Status
    error: str | None = None
    restored = False
    grade_s = 0.0
    patch = folder / "patch.diff"
    dirs = None
    traffic: TrialStats | None = None
    tamper: TamperReport | None = None
    cap: CapStop | None = None
    try:
        lock = env.guard_lock or threading.Lock()
        with lock:
            event = check_master(task, pristine, env.run_dir.forensics / plan.id)
        if event is not None:
            restored = True
            env.run_dir.log_incident(
                Incident(
                    time=utc_now(),
                    kind="tree_restored",
                    trial_id=plan.id,
                    detail=f"master tree of {task.id} did not match its recorded digest; "
                    f"tampered copy kept at {event.forensics}, master restored from the archive",
                    data={
                        "master": str(event.master),
                        "expected": event.expected,
                        "found": event.found,
                    },
                )
            )
        dirs = prepare_workspace(pristine, env.scratch_root)
        agent = env.agents[config.id]
        sandbox = ObservedSandbox(env.sandbox)  # this trial's jails, for their own counts
        route = _open_route(env, plan, agent, dirs.work, folder, watch)
        ctx = AgentContext(
            trial_id=plan.id,
            task=task,
            workspace=dirs.work,
            home=dirs.home,
            model=config.model,
            timeout_s=task.timeout_s,
            route=route,
            gateway_port=env.gateway.port if route and env.gateway else None,
            sandbox=sandbox,
            hide=env.hide,
            cancel=env.cancel,
            stop=watch.stop,
        )
        agent_started = time.monotonic()
        try:
            outcome = agent.run(ctx)
        finally:
            watch.close()
            if route is not None and env.gateway is not None:
                traffic = env.gateway.close_trial(plan.id)
        cap = watch.cap_stop(outcome, agent_started, task.timeout_s)
        atomic_write_text(folder / "agent.stdout", outcome.stdout)
        atomic_write_text(folder / "agent.stderr", outcome.stderr)
        if outcome.trajectory is not None:
            atomic_write_text(folder / "trajectory.json", json.dumps(outcome.trajectory, indent=2))
        tamper = _tamper(task, pristine, dirs.work, dirs.root / "pristine")
        tamper = tamper.model_copy(update={"outside_writes": sandbox.outside_writes})
        status, error = _status(outcome, traffic, watch)
        _note_skipped(folder, take_patch(dirs.git_dir, dirs.work, pristine.commit, patch))
        graded_at = time.monotonic()
        if status == "infra_error":
            verdict = _not_graded(f"not graded: {error}")
        else:
            verdict = grade_trial(
                task,
                dirs,
                commit=pristine.commit,
                patch=patch,
                log_dir=folder / "grading",
                final_answer=outcome.final_answer,
                shared=env.grading,
            )
        grade_s = time.monotonic() - graded_at
        if verdict.env_fault is not None and status != "infra_error":
            # The machine could not run the task's tests: never the model's failure.
            status, error = "infra_error", f"environment fault in grading: {verdict.env_fault}"
        if traffic is not None and not verdict.success and status != "infra_error":
            blamed = _endpoint_blame(env, plan, traffic)
            if blamed is not None:
                status, error = "infra_error", blamed
    except Cancelled:
        raise
    except AgentFault as e:  # what the agent wrote broke a harness step: scored, never rerun
        error = f"{e}; {error}" if error else str(e)
        verdict = fault_verdict(e, outcome.final_answer if outcome else None)
    except (LabError, GatewayError, OSError) as e:
        status, error = "infra_error", f"{type(e).__name__}: {e}"
        verdict = _not_graded(f"not graded: {error}")
    except Exception as e:  # a harness bug: keep the run going, the trial is rerun, the trace kept
        atomic_write_text(folder / "harness-error.txt", traceback.format_exc())
        status, error = (
            "infra_error",
            f"harness fault {type(e).__name__}: {e} (see harness-error.txt)",
        )
        verdict = _not_graded(f"not graded: {error}")
    finally:
        if dirs is not None and not env.keep_workdir:
            if env.reaper is not None:
                env.reaper.remove(dirs.root)
            else:
                dirs.remove()
    record = TrialRecord(
        run_id=env.run_id,
        trial_id=plan.id,
        task_id=task.id,
        task_version=task.version,
        config_id=config.id,
        agent=config.agent,
        model=config.model,
        repeat=plan.repeat,
        status=status,
        success=verdict.success if status != "infra_error" else False,
        correctness=verdict.correctness,
        correctness_basis=verdict.correctness_basis,
        correctness_note=verdict.correctness_note,
        task_tests=verdict.task_tests,
        agent_tests=verdict.agent_tests,
        no_change=verdict.no_change,
        overfit=verdict.overfit,
        claimed_done=verdict.claimed_done,
        false_success=verdict.false_success and status != "infra_error",
        damage=verdict.damage,
        loop_detected=traffic.loop_detected if traffic else False,
        wall_s=outcome.wall_s if outcome else 0.0,
        isolation=outcome.isolation if outcome else env.isolation,
        tokens=_tokens(traffic, _uses_model(env, config)),
        requests=traffic.requests if traffic else None,
        gateway=traffic,
        leftover_processes=outcome.leftover_processes if outcome else None,
        network_attempts=outcome.network_attempts if outcome else None,
        agent_cost_usd=_agent_cost(outcome.trajectory if outcome else None),
        tamper=tamper,
        grading_isolation=verdict.isolation,
        not_transferred=verdict.not_transferred,
        visible=verdict.visible,
        heldout=verdict.heldout,
        checks=verdict.checks,
        agent_exit_code=outcome.exit_code if outcome else None,
        agent_version=env.agent_versions.get(config.id),
        final_answer=outcome.final_answer if outcome else None,
        error=error,
        started_at=started_at,
        finished_at=utc_now(),
        grade_s=round(grade_s, 3),
        pristine_commit=pristine.commit,
        patch_bytes=patch.stat().st_size if patch.is_file() else 0,
        stdout_bytes=outcome.stdout_bytes if outcome else 0,
        stderr_bytes=outcome.stderr_bytes if outcome else 0,
        output_truncated=outcome.truncated if outcome else False,
        restored=restored,
        cap=cap if status == "cap_hit" else None,
    )
    if env.keep_workdir and dirs is not None:
        record = record.model_copy(update={"workdir": str(dirs.root)})
    env.run_dir.write_record(record)
    return record


def _endpoint_blame(env: TrialEnv, plan: TrialPlan, traffic: TrialStats) -> str | None:
    """Why a failed trial is the backend's fault, not the model's (None: it is not).

    A rate limit or quota refusal pauses the lane for the backend's reset; an endpoint that
    stopped answering (refused connections, 5xx, empty completions) stops the lane until it
    is re-proven. Either way the trial is an infra_error, run again, never scored.
    """
    if traffic.rate_limited:
        last = traffic.rate_limited[-1]
        waits = [e.retry_after_s for e in traffic.rate_limited if e.retry_after_s is not None]
        longest = max(waits) if waits else None
        reply = {
            "status": last.status,
            "endpoint": last.endpoint,
            "message": last.message,
            "retry_after_s": longest,
        }
        wait = env.lanes.quota(plan.lane, longest, reply)
        return (
            f"rate limited by the backend {len(traffic.rate_limited)} time(s) "
            f"({last.status}); lane {plan.lane} waits {wait:.0f}s"
        )
    if traffic.endpoint_failures:
        why = f"{traffic.endpoint_failures} request(s) unanswered by the endpoint"
        if plan.config.model:
            env.lanes.down(plan.lane, plan.config.model, why)
        return f"the model endpoint stopped answering: {why}; rerun once it is re-proven"
    return None


def _uses_model(env: TrialEnv, config: Configuration) -> bool:
    return bool(getattr(env.agents[config.id], "uses_model", True))


def _open_route(
    env: TrialEnv, plan: TrialPlan, agent: Agent, workspace: Path, folder: Path, watch: TrialWatch
) -> TrialRoute | None:
    """Open the trial's gateway route when its agent talks to a model."""
    if env.gateway is None or not plan.config.model or not getattr(agent, "uses_model", True):
        return None
    return env.gateway.open_trial(
        plan.id,
        model=plan.config.model,
        workspace=workspace,
        log_path=folder / "gateway.jsonl",
        max_requests=plan.task.max_requests,
        max_tokens=plan.task.max_tokens,
        tool_call_repair=plan.config.tool_call_repair,
        notify=watch,
    )


TEST_FILE_PATTERNS = tuple(
    f"{prefix}{name}"
    for name in ("test_*.py", "*_test.py", "*_test.go", "*.test.js", "*.test.ts", "*.spec.js")
    for prefix in ("", "*/")
)
"""Files treated as visible tests wherever they are, beside the oracle's own paths."""


def _tamper(task: Task, pristine: Pristine, work: Path, scratch: Path) -> TamperReport:
    """Edits to visible tests, oracle files and test configuration, as data for the record."""
    unpack(pristine, scratch, with_git=False)
    named = {arg for argv in task.oracle.command for arg in argv[1:] if (scratch / arg).exists()}
    protected = sorted({*TEST_INFRA_PATTERNS, *TEST_FILE_PATTERNS, *named})
    return tamper_report(scratch, work, protected)


def _note_skipped(folder: Path, taken: TakenPatch) -> None:
    """Name the workspace entries the patch left out (nested ``.git`` folders, fifos, paths
    git refuses) beside it, so a reader of the trial sees why they are not graded."""
    if taken.skipped:
        atomic_write_text(folder / "patch-skipped.txt", "\n".join(taken.skipped) + "\n")


def _agent_cost(trajectory: dict[str, Any] | None) -> float | None:
    """The cost the agent printed itself (its trajectory's ``tokens.cost``), else None."""
    tokens = (trajectory or {}).get("tokens") or {}
    cost = tokens.get("cost") if isinstance(tokens, dict) else None
    return float(cost) if isinstance(cost, int | float) else None


def _tokens(traffic: TrialStats | None, uses_model: bool) -> Tokens:
    if traffic is not None:
        return Tokens(
            input=traffic.input_tokens,
            output=traffic.output_tokens,
            cached=traffic.cached_input_tokens,
            source="gateway",
            counting=traffic.token_source,
        )
    return Tokens() if uses_model else Tokens(input=0, output=0, source="none")
