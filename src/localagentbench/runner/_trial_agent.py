"""The agent step: open the trial's gateway route, run the adapter under its watches, and
close the route to read the trial's traffic."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from localagentbench.agents import Agent, AgentContext, AgentOutcome
from localagentbench.environments import ensure, task_sandbox
from localagentbench.gateway import TrialRoute, TrialStats
from localagentbench.records import Tokens
from localagentbench.runner._trial_env import TrialEnv, TrialPlan
from localagentbench.runner._trial_prepare import Prepared
from localagentbench.runner._trial_verdict import AgentEnd, agent_end
from localagentbench.sandbox import ObservedSandbox, store_profile

__all__ = ["AgentRun", "run_agent"]


@dataclass(frozen=True)
class AgentRun:
    """What the agent did, as the harness saw it; ``outcome`` None: it never ran."""

    end: AgentEnd
    """Its status before grading (`runner._trial_verdict.agent_end`)."""
    uses_model: bool
    isolation: str
    """The sandbox level enforced for it (the run's, when it never ran)."""
    outcome: AgentOutcome | None = None
    traffic: TrialStats | None = None
    """The gateway's figures for the trial; None when no route was opened."""
    outside_writes: int | None = None
    """Writes its jails saw outside the workspace (for the tamper report)."""
    started: float = 0.0
    """Monotonic time the agent started."""

    @classmethod
    def never_ran(cls, plan: TrialPlan, env: TrialEnv, why: str) -> AgentRun:
        """The part of a trial whose agent never ran (a harness step before it failed)."""
        uses_model = env.agents[plan.config.id].uses_model
        return cls(AgentEnd("infra_error", why), uses_model, env.isolation)

    @property
    def final_answer(self) -> str | None:
        return self.outcome.final_answer if self.outcome else None

    def part(self) -> dict[str, Any]:
        """The record's agent part: its exit, output sizes, time, tokens and traffic."""
        out, traffic = self.outcome, self.traffic
        return {
            "wall_s": out.wall_s if out else 0.0,
            "isolation": out.isolation if out else self.isolation,
            "agent_exit_code": out.exit_code if out else None,
            "final_answer": out.final_answer if out else None,
            "stdout_bytes": out.stdout_bytes if out else 0,
            "stderr_bytes": out.stderr_bytes if out else 0,
            "output_truncated": out.truncated if out else False,
            "leftover_processes": out.leftover_processes if out else None,
            "network_attempts": out.network_attempts if out else None,
            "outside_access": list(out.outside_access) if out else [],
            "agent_cost_usd": agent_cost(out.trajectory if out else None),
            "tokens": tokens(traffic, self.uses_model),
            "requests": traffic.requests if traffic else None,
            "gateway": traffic,
            "loop_detected": traffic.loop_detected if traffic else False,
        }


def run_agent(plan: TrialPlan, env: TrialEnv, prepared: Prepared) -> AgentRun:
    """Run the configuration's adapter on the prepared workspace until it ends, is stopped
    at a cap, or times out; its disk budget watched the whole time."""
    task, agent = plan.task, env.agents[plan.config.id]
    dirs, watch, budget = prepared.dirs, prepared.watch, prepared.budget
    own = task_sandbox(task, env.sandbox, env.cancel)  # a container task's container
    limited = prepared.limiter.agent_sandbox(own) if prepared.limiter else own
    sandbox = ObservedSandbox(limited)  # this trial's jails, for their own counts
    route = _open_route(env, plan, agent, prepared)
    ctx = AgentContext(
        trial_id=plan.id,
        task=task,
        workspace=dirs.work,
        home=dirs.home,
        model=plan.config.model,
        timeout_s=task.timeout_s,
        route=route,
        gateway_port=env.gateway.port if route and env.gateway else None,
        sandbox=sandbox,
        hide=env.hide,
        cancel=env.cancel,
        stop=watch.stop,
        environment=ensure(task, own, cancel=env.cancel),
    )
    traffic: TrialStats | None = None
    started = time.monotonic()
    try:
        if budget is not None:
            budget.start()
        outcome = agent.run(ctx)
    finally:
        if budget is not None:
            budget.close()
        watch.close()
        if route is not None and env.gateway is not None:
            traffic = env.gateway.close_trial(plan.id)
    for profile in sandbox.profiles:  # what confined the agent (Seatbelt), kept with it
        store_profile(env.run_dir.trial(plan.id), profile)
    loop = watch.detail if watch.cap == "loop" else None
    cap = watch.cap_stop(outcome, started, task.timeout_s)
    return AgentRun(
        end=agent_end(outcome, traffic, loop=loop, cap=cap),
        uses_model=agent.uses_model,
        isolation=env.isolation,
        outcome=outcome,
        traffic=traffic,
        outside_writes=sandbox.outside_writes,
        started=started,
    )


def _open_route(
    env: TrialEnv, plan: TrialPlan, agent: Agent, prepared: Prepared
) -> TrialRoute | None:
    """Open the trial's gateway route when its agent talks to a model. The configuration's
    output cap (settings `max_output_tokens`) bounds what a request reserves of max_tokens."""
    if env.gateway is None or not plan.config.model or not agent.uses_model:
        return None
    cap = plan.config.settings.get("max_output_tokens")
    return env.gateway.open_trial(
        plan.id,
        model=plan.config.model,
        workspace=prepared.dirs.work,
        log_path=env.run_dir.trial(plan.id) / "gateway.jsonl",
        max_requests=plan.task.max_requests,
        max_tokens=plan.task.max_tokens,
        tool_call_repair=plan.config.tool_call_repair,
        notify=prepared.watch,
        output_cap=cap if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0 else None,
    )


def agent_cost(trajectory: dict[str, Any] | None) -> float | None:
    """The cost the agent printed itself (its trajectory's ``tokens.cost``), else None."""
    found = (trajectory or {}).get("tokens") or {}
    cost = found.get("cost") if isinstance(found, dict) else None
    return float(cost) if isinstance(cost, int | float) else None


def tokens(traffic: TrialStats | None, uses_model: bool) -> Tokens:
    """The trial's tokens: the gateway's count; unknown without one; none for no model."""
    if traffic is not None:
        return Tokens(
            input=traffic.input_tokens,
            output=traffic.output_tokens,
            cached=traffic.cached_input_tokens,
            source="gateway",
            counting=traffic.token_source,
        )
    return Tokens() if uses_model else Tokens(input=0, output=0, source="none")
