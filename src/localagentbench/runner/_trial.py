"""One trial: guard, workspace, agent, capture, grade, record (SPEC section 2)."""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localagentbench._io import atomic_write_text, no_space
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
    suspicious_patch,
)
from localagentbench.records import (
    CapStop,
    Incident,
    RunDir,
    RunDirFull,
    Status,
    Tokens,
    TrialRecord,
    utc_now,
)
from localagentbench.runner._budget import BudgetWatch, DiskAlarm, Limits, OverBudget
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
from localagentbench.trajectory import TRAJECTORY_FILE, build_trajectory
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
    min_free_mb: float = 0
    """Free space the run directory's and the workspaces' disks must keep while agents run
    (``--min-free-mb``); 0: not watched."""
    disk_alarm: DiskAlarm = field(default_factory=DiskAlarm)
    """Sounded once a disk ran low: no further trial starts (`runner._budget`)."""

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
    env.disk_alarm.check()  # DiskLow (a LaneClosed): a disk ran low, the run starts no trial
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
    budget: BudgetWatch | None = None
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
        budget = BudgetWatch(
            (dirs.work, dirs.home),
            Limits.of(task),
            watch.stop,
            disks=(env.scratch_root, env.run_dir.path),
            min_free_mb=env.min_free_mb,
            alarm=env.disk_alarm,
            trial_id=plan.id,
        )
        agent_started = time.monotonic()
        try:
            budget.start()
            outcome = agent.run(ctx)
        finally:
            budget.close()
            watch.close()
            if route is not None and env.gateway is not None:
                traffic = env.gateway.close_trial(plan.id)
        cap = watch.cap_stop(outcome, agent_started, task.timeout_s)
        atomic_write_text(folder / "agent.stdout", outcome.stdout)
        atomic_write_text(folder / "agent.stderr", outcome.stderr)
        _write_trajectory(folder, outcome, config.agent)
        budget.enforce(outcome, agent_started, task.timeout_s)  # OverBudget, DiskLow: not graded
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
        if verdict.tampered:
            env.run_dir.log_incident(
                Incident(
                    time=utc_now(),
                    kind="tampered",
                    trial_id=plan.id,
                    detail="the graded run's results were forged in-process; scored as a "
                    "failure: " + "; ".join(verdict.tampered[:3]),
                    data={"evidence": verdict.tampered},
                )
            )
        elif verdict.env_fault is not None and status != "infra_error":
            # The machine could not run the task's tests: never the model's failure.
            status, error = "infra_error", f"environment fault in grading: {verdict.env_fault}"
        if (
            traffic is not None
            and not verdict.success
            and not verdict.tampered
            and status != "infra_error"
        ):
            blamed = _endpoint_blame(env, plan, traffic)
            if blamed is not None:
                status, error = "infra_error", blamed
    except Cancelled:
        raise
    except OverBudget as e:  # the agent's folders passed their budget: a scored failure
        status, error, cap = "cap_hit", str(e), e.stop
        verdict = _not_graded(f"not graded: {error}")
    except AgentFault as e:  # what the agent wrote broke a harness step: scored, never rerun
        error = f"{e}; {error}" if error else str(e)
        verdict = fault_verdict(e, outcome.final_answer if outcome else None)
    except (LabError, GatewayError, OSError) as e:
        status, error, cap = _harness_failed(env, plan, budget, e)
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
            if env.reaper is not None and not _short_of_space(env, budget):
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
        tampered=verdict.tampered,
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
        suspicious=suspicious_patch(patch.read_text(errors="replace")) if patch.is_file() else [],
        stdout_bytes=outcome.stdout_bytes if outcome else 0,
        stderr_bytes=outcome.stderr_bytes if outcome else 0,
        output_truncated=outcome.truncated if outcome else False,
        restored=restored,
        cap=cap if status == "cap_hit" else None,
        workspace_use=budget.use() if budget is not None else None,
    )
    if env.keep_workdir and dirs is not None:
        record = record.model_copy(update={"workdir": str(dirs.root)})
    try:
        env.run_dir.write_record(record)
    except RunDirFull as e:  # the trial is left for --resume, and so is every later one
        raise env.disk_alarm.sound(str(e), plan.id) from e
    return record


def _harness_failed(
    env: TrialEnv, plan: TrialPlan, budget: BudgetWatch | None, e: Exception
) -> tuple[Status, str, CapStop | None]:
    """A harness step failed: the agent's failure (cap_hit) when its folders are past their
    budget, for a disk it filled breaks git, copies and writes; else infra_error. No room on
    a disk within budget sounds the run's disk alarm: no further trial starts."""
    error = f"{type(e).__name__}: {e}"
    over = budget.blame() if budget is not None else None
    if over is not None:
        return "cap_hit", f"{over.detail} ({error})", over
    if no_space(e):
        env.disk_alarm.sound(f"no space left on a disk of the run: {e}", plan.id)
    return "infra_error", error, None


def _short_of_space(env: TrialEnv, budget: BudgetWatch | None) -> bool:
    """The trial's folders must go before its record is written: they are past their budget,
    or a disk ran low."""
    return (budget is not None and budget.tripped) or env.disk_alarm.reason is not None


def _endpoint_blame(env: TrialEnv, plan: TrialPlan, traffic: TrialStats) -> str | None:
    """Why a failed trial is the backend's fault, not the model's (None: it is not).

    A rate limit or quota refusal pauses the lane for the backend's reset; an endpoint that
    stopped answering (refused connections, 5xx, empty completions) stops the lane until it
    is re-proven. Either way the trial is an infra_error, run again, never scored.

    Only failures the agent cannot provoke count (`gateway.FAILURES`, fault
    "endpoint"): a request the upstream rejected, an oversized or malformed body and the
    agent's own hang-ups are the agent's, and leave the trial scored.
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
        kinds = ", ".join(f"{k}: {n}" for k, n in traffic.endpoint_failure_kinds().items())
        why = f"{traffic.endpoint_failures} request(s) unanswered by the endpoint"
        why += f" ({kinds})" if kinds else ""
        if plan.config.model:
            env.lanes.down(plan.lane, plan.config.model, why)
        return f"the model endpoint stopped answering: {why}; rerun once it is re-proven"
    return None


def _uses_model(env: TrialEnv, config: Configuration) -> bool:
    return bool(getattr(env.agents[config.id], "uses_model", True))


def _open_route(
    env: TrialEnv, plan: TrialPlan, agent: Agent, workspace: Path, folder: Path, watch: TrialWatch
) -> TrialRoute | None:
    """Open the trial's gateway route when its agent talks to a model. The configuration's
    output cap (settings `max_output_tokens`) bounds what a request reserves of max_tokens."""
    if env.gateway is None or not plan.config.model or not getattr(agent, "uses_model", True):
        return None
    cap = plan.config.settings.get("max_output_tokens")
    return env.gateway.open_trial(
        plan.id,
        model=plan.config.model,
        workspace=workspace,
        log_path=folder / "gateway.jsonl",
        max_requests=plan.task.max_requests,
        max_tokens=plan.task.max_tokens,
        tool_call_repair=plan.config.tool_call_repair,
        notify=watch,
        output_cap=cap if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0 else None,
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


def _write_trajectory(folder: Path, outcome: AgentOutcome, agent: str) -> None:
    """trajectory.json: the gateway's exchanges merged with the agent's own log (only the
    agent's log when it made no request through the gateway; nothing when neither exists)."""
    trajectory = build_trajectory(folder, outcome.trajectory, agent)
    if trajectory.steps or outcome.trajectory is not None:
        text = trajectory.model_dump_json(indent=2, exclude_defaults=False)
        atomic_write_text(folder / TRAJECTORY_FILE, text)


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
