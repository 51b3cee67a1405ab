"""Setting a run up: adapters, the run-directory lock, task provenance, the proven gateway."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from localagentbench import _platform
from localagentbench import gateway as gw
from localagentbench.agents import Agent, make_agent
from localagentbench.errors import ConfigError, InfraError, RunDirError
from localagentbench.gateway import BackendUnavailable
from localagentbench.gateway.llamacpp import SERVERS, resolve
from localagentbench.records import RunDir, TaskProvenance
from localagentbench.runner._config import Configuration
from localagentbench.runner._lanes import LaneGate
from localagentbench.tasks import Task
from localagentbench.workspace import Pristine

if TYPE_CHECKING:
    from localagentbench.gateway import Gateway

__all__ = ["build_agents", "gateway_for", "locked", "provenance", "reprove"]


def build_agents(configs: Sequence[Configuration]) -> dict[str, Agent]:
    """One adapter per configuration, each checked to be runnable here (else a clear error)."""
    agents = {}
    for config in configs:
        agent = make_agent(config.agent, config.agent_settings())
        problem = agent.available()
        if problem:
            raise ConfigError(f"configuration {config.id!r}: {problem}")
        agents[config.id] = agent
    return agents


@contextlib.contextmanager
def locked(run_dir: RunDir) -> Iterator[None]:
    """Hold the run directory exclusively: two processes never run trials into one run."""
    run_dir.path.mkdir(parents=True, exist_ok=True)
    with open(run_dir.path / ".lock", "w") as handle:
        if not _platform.lock_exclusive(handle):
            raise RunDirError(f"{run_dir.path} is in use by another localagentbench process")
        yield


def provenance(task: Task, pristine: Pristine) -> TaskProvenance:
    """What run.json records of a task version."""
    return TaskProvenance(
        id=task.id,
        version=task.version,
        digest=pristine.digest,
        commit=pristine.commit,
        source=str(task.file),
        project=task.cluster,
        language=task.language,
        category=task.category,
        difficulty=task.difficulty,
        tier=task.tier,
    )


@contextlib.contextmanager
def gateway_for(
    configs: Sequence[Configuration],
    agents: dict[str, Agent],
    gate: LaneGate,
    run_path: Path | None = None,
) -> Iterator[Gateway | None]:
    """Start the run's gateway when some configuration talks to a model, after proving each model.

    A backend that does not answer a real tiny completion stops the run before any trial:
    an endpoint problem must never be recorded as failed trials. Local model servers
    (`llamacpp/...`) start during that proof, log to RUN/llamacpp/ and stop with the run.
    """
    models = sorted({c.model for c in configs if c.model and agents[c.id].uses_model})
    if not models:
        yield None
        return
    with SERVERS.scope(run_path / "llamacpp" if run_path is not None else None):
        yield from _proven_gateway(models, configs, gate)


def _proven_gateway(
    models: list[str], configs: Sequence[Configuration], gate: LaneGate
) -> Iterator[Gateway]:
    for model in models:
        try:
            gw.prove(model)
        except BackendUnavailable as e:
            if not e.rate_limited:
                raise InfraError(f"model {model}: {e}; no trial was run") from e
            # Alive but out of quota: the endpoint answered; its lanes wait for the reset.
            reply = {"endpoint": e.endpoint, "message": e.detail, "retry_after_s": e.retry_after_s}
            for lane in sorted({c.lane for c in configs if c.model == model}):
                gate.quota(lane, e.retry_after_s, reply)
    gateway = gw.Gateway()  # aiohttp loads here, when a run talks to a model
    gateway.start()
    try:
        yield gateway
    finally:
        gateway.stop()


def reprove(model: str) -> None:
    """Prove ``model`` answers a real completion again (the lane gate's re-proof); raise
    `BackendUnavailable` while it does not. A local model server this run started that is
    alive but not answering is stopped, so the next attempt starts it afresh (one that died
    is restarted by the proof itself)."""
    try:
        gw.prove(model)
    except BackendUnavailable as e:
        if e.rate_limited:
            return  # it answers; the quota pause is the lane gate's business
        prefix, _, ref = model.partition("/")
        if prefix == "llamacpp":
            SERVERS.stop_model(resolve(ref).path)
        raise
