"""One trial, start to record, as typed steps (SPEC section 2):
guard + prepare -> agent -> capture -> grade -> verdict -> record.

Each step returns a typed result that contributes its own part of the record
(`_trial_prepare`, `_trial_agent`, `_trial_capture`, `_trial_grade`, `_trial_verdict`);
`build_record` merges them. This module only sequences the steps and says what each
failure of a harness step means for the trial. `TrialSteps` holds the steps that touch the
machine, so a test can run a trial with fakes.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass

from localagentbench._io import atomic_write_text, no_space
from localagentbench._proc import Cancelled
from localagentbench.errors import AgentFault, LabError
from localagentbench.gateway import GatewayError, TrialStats
from localagentbench.grading import Verdict
from localagentbench.records import Incident, RunDirFull, TrialRecord, WorkspaceUse, utc_now
from localagentbench.runner._budget import BudgetWatch, OverBudget
from localagentbench.runner._pipeline import fault_verdict
from localagentbench.runner._trial_agent import AgentRun, run_agent
from localagentbench.runner._trial_capture import Captured, capture_trial
from localagentbench.runner._trial_env import TrialEnv, TrialPlan, trial_id
from localagentbench.runner._trial_grade import Graded, grade_step
from localagentbench.runner._trial_prepare import Prepared, guard_master, prepare_trial
from localagentbench.runner._trial_record import build_record
from localagentbench.runner._trial_verdict import AgentEnd, apply_verdict

__all__ = ["TrialEnv", "TrialPlan", "TrialSteps", "endpoint_blame", "run_trial", "trial_id"]


@dataclass(frozen=True)
class TrialSteps:
    """The steps of a trial that touch the machine (workspace, jail, git, subprocesses)."""

    guard: Callable[[TrialPlan, TrialEnv], bool] = guard_master
    prepare: Callable[[TrialPlan, TrialEnv, bool], Prepared] = prepare_trial
    agent: Callable[[TrialPlan, TrialEnv, Prepared], AgentRun] = run_agent
    capture: Callable[[TrialPlan, TrialEnv, Prepared, AgentRun], Captured] = capture_trial
    grade: Callable[[TrialPlan, TrialEnv, Prepared, AgentRun, Captured], Graded] = grade_step


STEPS = TrialSteps()


def run_trial(plan: TrialPlan, env: TrialEnv, steps: TrialSteps = STEPS) -> TrialRecord:
    """Run one trial to a written record. Raises Cancelled (nothing recorded) on Ctrl-C."""
    env.lanes.wait(plan.lane, env.cancel)  # LaneClosed: left for --resume, nothing written
    env.disk_alarm.check()  # DiskLow (a LaneClosed): a disk ran low, the run starts no trial
    folder = env.run_dir.trial(plan.id)
    folder.mkdir(parents=True, exist_ok=True)
    started_at = utc_now()
    prepared: Prepared | None = None
    restored = False
    ran = AgentRun.never_ran(plan, env, "the agent never ran")
    captured = Captured(folder / "patch.diff")
    graded = Graded()
    try:
        restored = steps.guard(plan, env)
        prepared = steps.prepare(plan, env, restored)
        ran = steps.agent(plan, env, prepared)
        captured = steps.capture(plan, env, prepared, ran)
        if captured.fault is not None:
            raise captured.fault
        graded = steps.grade(plan, env, prepared, ran, captured)
        decision = apply_verdict(
            ran.end,
            graded.verdict,
            blame=_blame(env, plan, ran.traffic),
            pristine_fault=prepared.limiter.pristine_fault() if prepared.limiter else None,
        )
        if decision.tampered:
            _log_tampered(env, plan, decision.verdict)
    except Cancelled:
        raise
    except OverBudget as e:  # the agent's folders passed their budget: a scored failure
        decision = apply_verdict(AgentEnd("cap_hit", str(e), e.stop), None)
    except AgentFault as e:  # what the agent wrote broke a harness step: scored, never rerun
        decision = apply_verdict(ran.end, fault_verdict(e, ran.final_answer), fault=str(e))
    except (LabError, GatewayError, OSError) as e:
        decision = apply_verdict(_harness_failed(env, plan, prepared, e), None)
    except Exception as e:  # a harness bug: keep the run going, the trial is rerun, the trace kept
        atomic_write_text(folder / "harness-error.txt", traceback.format_exc())
        why = f"harness fault {type(e).__name__}: {e} (see harness-error.txt)"
        decision = apply_verdict(AgentEnd("infra_error", why), None)
    finally:
        limits = prepared.limiter.close() if prepared and prepared.limiter else None
        if prepared is not None and not env.keep_workdir:
            if env.reaper is not None and not _short_of_space(env, prepared.budget):
                env.reaper.remove(prepared.dirs.root)
            else:
                prepared.dirs.remove()
    kept = {"workdir": str(prepared.dirs.root)} if env.keep_workdir and prepared else {}
    record = build_record(
        plan.part(env),
        {"started_at": started_at, "finished_at": utc_now(), **kept},
        prepared or {"restored": restored},
        ran,
        captured,
        graded,
        decision,
        {"workspace_use": _use(prepared), "limits": limits},
    )
    try:
        env.run_dir.write_record(record)
    except RunDirFull as e:  # the trial is left for --resume, and so is every later one
        raise env.disk_alarm.sound(str(e), plan.id) from e
    return record


def _use(prepared: Prepared | None) -> WorkspaceUse | None:
    """What the agent's folders held when it ended (None: never measured)."""
    budget = prepared.budget if prepared is not None else None
    return budget.use() if budget is not None else None


def _log_tampered(env: TrialEnv, plan: TrialPlan, verdict: Verdict) -> None:
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


def _harness_failed(
    env: TrialEnv, plan: TrialPlan, prepared: Prepared | None, e: Exception
) -> AgentEnd:
    """A harness step failed: the agent's failure (cap_hit) when its folders are past their
    budget, for a disk it filled breaks git, copies and writes; else infra_error. No room on
    a disk within budget sounds the run's disk alarm: no further trial starts."""
    error = f"{type(e).__name__}: {e}"
    budget = prepared.budget if prepared is not None else None
    over = budget.blame() if budget is not None else None
    if over is not None:
        return AgentEnd("cap_hit", f"{over.detail} ({error})", over)
    if no_space(e):
        env.disk_alarm.sound(f"no space left on a disk of the run: {e}", plan.id)
    return AgentEnd("infra_error", error)


def _short_of_space(env: TrialEnv, budget: BudgetWatch | None) -> bool:
    """The trial's folders must go before its record is written: they are past their budget,
    or a disk ran low."""
    return (budget is not None and budget.tripped) or env.disk_alarm.reason is not None


def _blame(
    env: TrialEnv, plan: TrialPlan, traffic: TrialStats | None
) -> Callable[[], str | None] | None:
    """The endpoint-blame rule's question for a trial that talked to the gateway."""
    if traffic is None:
        return None
    return lambda: endpoint_blame(env, plan, traffic)


def endpoint_blame(env: TrialEnv, plan: TrialPlan, traffic: TrialStats) -> str | None:
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
