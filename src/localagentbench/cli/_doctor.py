"""`doctor` (prerequisites, sandbox, endpoints, the tool-call canary) and `gateway`."""

from __future__ import annotations

import json
import os
import shutil
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from localagentbench.cli._common import console, err_console
from localagentbench.cli._models import model_lines
from localagentbench.errors import InfraError
from localagentbench.sandbox import BackendStatus, SelfTestStep

_CODING_HINTS = (
    "coder",
    "code",
    "deepseek",
    "qwen",
    "starcoder",
    "codestral",
    "devstral",
    "granite",
)


def _ollama_models(host: str) -> tuple[list[str] | None, str]:
    url = (host if "://" in host else f"http://{host}").rstrip("/") + "/api/tags"
    try:
        with urllib.request.urlopen(url, timeout=3) as reply:  # noqa: S310 - a local URL
            models = [m["name"] for m in json.load(reply).get("models", [])]
    except (OSError, ValueError, urllib.error.URLError) as e:
        return None, f"not reachable at {url} ({getattr(e, 'reason', e)})"
    return models, url


def doctor(
    probe_model: Annotated[
        str | None,
        typer.Option("--probe", metavar="MODEL", help="Tool-call canary: native, pseudo or none."),
    ] = None,
) -> None:
    """Check prerequisites (Python, git, sandbox, disk, Ollama) or probe a model's tool calls.

    Exit 1 when something required is missing, or when --probe finds no native tool call.

    Examples:
      localagentbench doctor
      localagentbench doctor --probe ollama/qwen2.5-coder:7b
      localagentbench doctor --probe llamacpp/qwen2.5-coder-0.5b
    """
    from localagentbench.agents import agent_statuses
    from localagentbench.gateway import BackendUnavailable, probe
    from localagentbench.gateway.llamacpp import INSTALL_HINT, models_dir, runtime_version
    from localagentbench.runner import host_info
    from localagentbench.sandbox import (
        ENGINES,
        SandboxUnavailableError,
        available_backends,
        find_engine,
    )

    out = console()
    if probe_model is not None:
        try:
            result = probe(probe_model)
        except BackendUnavailable as e:
            raise InfraError(f"model {probe_model}: {e}") from e
        out.print(f"{result.verdict}: {result.detail} ({result.latency_s:.2f}s)", markup=False)
        if result.verdict != "native":
            shown = result.text.strip().replace("\n", "\\n")[:300]
            out.print(f"evidence: the reply text was: {shown or '(empty)'}", markup=False)
            if result.verdict == "pseudo":
                out.print(
                    "hint: agents that need native tool calls will score 0 with this model; "
                    "try a text-format agent (aider) or `run --tool-call-repair`",
                    markup=False,
                )
            raise typer.Exit(1)
        return
    host = host_info()
    rows: list[tuple[str, str, str, str]] = []
    """(section, mark, name, detail)."""

    def line(ok: bool | None | str, what: str, detail: str, section: str) -> None:
        """ok: True ok, False FAIL (a run could not work), None warn, "-" a plain fact."""
        mark = "-" if isinstance(ok, str) else {True: "ok", False: "FAIL", None: "warn"}[ok]
        rows.append((section, mark, what, detail))

    line(sys.version_info >= (3, 11), "python", f"{host['python']} ({sys.executable})", "required")
    line(
        host["git"] is not None, "git", host["git"] or "not found: apt-get install git", "required"
    )
    free = shutil.disk_usage(Path.cwd()).free / 1e9
    line(free >= 1, "disk", f"{free:.1f} GB free in {Path.cwd()}", "required")
    statuses = available_backends()
    best = next(s for s in statuses if s.available)
    best_works = True
    for status in statuses:
        if status.name == "none":
            continue  # always there; the isolation line says when runs would use it
        if not status.available:
            line("-", f"sandbox:{status.name}", status.reason, "sandbox")
            continue
        steps = _prove(status)
        failed = next((s for s in steps if not s.ok), None)
        if failed is None:
            detail = f"{status.reason}; proven: {_summary(steps)}"
            line(True, f"sandbox:{status.name}", detail, "sandbox")
        else:
            # Only the backend runs will use makes doctor fail; a broken spare is a warning.
            best_works = best_works and status is not best
            line(
                False if status is best else None,
                f"sandbox:{status.name}",
                f"{status.reason}, but a real jail failed at step {failed.name!r}: {failed.detail}",
                "sandbox",
            )
    for engine in ENGINES:
        try:
            found = find_engine(engine)
        except SandboxUnavailableError as e:
            line(
                "-",
                f"container:{engine}",
                f"{e} (tasks that ship a Dockerfile need one)",
                "sandbox",
            )
        else:
            flags = f", {' '.join(found.flags)}" if found.flags else ""
            detail = f"{found.binary} {found.version}{flags}: runs tasks that ship a Dockerfile"
            line(True, f"container:{engine}", detail, "sandbox")
    if not best_works:
        line(False, "isolation", f"runs would use {best.name}, which does not work here", "sandbox")
    elif best.name == "none":
        line(None, "isolation", "runs will use none: agents run unjailed", "sandbox")
    else:
        line(True, "isolation", f"runs will use {best.name}", "sandbox")
    line(
        None if host["node"] is None else True,
        "node",
        host["node"] or "not found (Node tasks are skipped): apt-get install nodejs",
        "toolchains",
    )
    line(
        None if host["go"] is None else True,
        "go",
        host["go"] or "not found (Go tasks are skipped): apt-get install golang-go",
        "toolchains",
    )
    absent = []
    installed = 0
    for agent in agent_statuses():
        if agent.install is None:
            continue  # built in
        if not agent.found:
            absent.append(agent.name)
            continue
        installed += 1
        detail = agent.version or "found"
        line(
            True,
            f"agent:{agent.name}",
            detail + (f" ({agent.note})" if agent.note else ""),
            "agents",
        )
    if absent:
        shown = f"{', '.join(absent)} (install commands: localagentbench agents)"
        line("-", "missing", shown, "agents")
    line(*_environments(), "toolchains")
    runtime = runtime_version()
    line(
        True if runtime else "-",
        "llamacpp",
        f"xllamacpp {runtime}; models in {models_dir()}"
        if runtime
        else f"not installed: {INSTALL_HINT}",
        "models",
    )
    for ok, name, detail in model_lines():
        line("-" if ok is None else ok, f"model:{name}", detail, "models")
    models, where = _ollama_models(os.environ.get("OLLAMA_HOST", "127.0.0.1:11434"))
    if models is None:
        line("-", "ollama", where, "models")
    else:
        listed = "; ".join(
            name
            + ("" if any(h in name.lower() for h in _CODING_HINTS) else " (not a coding model?)")
            for name in models
        )
        line(
            True,
            "ollama",
            f"{len(models)} models at {where}" + (f": {listed}" if listed else ""),
            "models",
        )
    _print_grouped(out, rows)
    failed_names = [name for _, mark, name, _ in rows if mark == "FAIL"]
    warned = sum(mark == "warn" for _, mark, _, _ in rows)
    if failed_names:
        out.print(
            f"not ready: {', '.join(failed_names)} failed (see above); a run could not work",
            markup=False,
        )
        raise typer.Exit(1)
    out.print(
        f"ready: runs will use {best.name}; {installed} agent(s) installed"
        + (f"; {warned} warning(s) above" if warned else ""),
        markup=False,
    )


SECTIONS = ("required", "sandbox", "toolchains", "agents", "models")
"""Doctor's sections, in the order printed (agents: those found here)."""


def _print_grouped(out: Console, rows: list[tuple[str, str, str, str]]) -> None:
    """Each section under its name, marks and names in aligned columns."""
    width = max(len(name) for _, _, name, _ in rows)
    for section in SECTIONS:
        mine = [r for r in rows if r[0] == section]
        if not mine:
            continue
        out.print(section if section != "agents" else "agents found", style="bold", markup=False)
        for _, mark, name, detail in mine:
            out.print(f"{mark:<4} {name:<{width}}  {detail}", markup=False)


def _environments() -> tuple[bool | None, str, str]:
    """The task environments' installer and cache, as one doctor line."""
    from localagentbench.environments import envs_root, list_envs, uv_binary

    uv = uv_binary()
    built = list_envs()
    size = sum(env.size for env in built) / 1e6
    cache = f"{len(built)} built, {size:.0f} MB in {envs_root()} (`localagentbench env list`)"
    if uv is None:
        missing = "uv missing (Python task environments cannot build: pip install uv)"
        return None, "envs", f"{missing}; {cache}"
    return True, "envs", f"uv at {uv}; {cache}"


def _prove(status: BackendStatus) -> list[SelfTestStep]:
    """The backend's self-test in a scratch root made as runs make theirs."""
    from localagentbench.sandbox import SandboxError, select, self_test
    from localagentbench.workspace import make_scratch_root

    root = make_scratch_root(None, [])
    try:
        return self_test(select(status.name), root)
    except SandboxError as e:
        return [SelfTestStep("start", False, str(e))]
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _summary(steps: list[SelfTestStep]) -> str:
    return ", ".join(step.name for step in steps)


def gateway(
    model: Annotated[
        str, typer.Option("--model", help="Backend model id, e.g. scripted/fix-greeting.")
    ],
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")
    ] = 0,
) -> None:
    """Serve one model backend through the recording gateway, for trying an agent by hand.

    Prints the base URL of every protocol, then serves until Ctrl-C.

    Example: localagentbench gateway --model scripted/fix-greeting --port 8400
    """
    from localagentbench.gateway import TrialRoute, serve

    err = err_console()

    def ready(route: TrialRoute) -> None:
        err.print(f"serving {model}", markup=False)
        err.print(f"  OpenAI chat/Responses: {route.openai_base_url}", markup=False)
        err.print(f"  Anthropic:             {route.anthropic_base_url}", markup=False)
        err.print(f"  Ollama:                {route.ollama_host}", markup=False)
        err.print(f"  Gemini:                {route.gemini_base_url}", markup=False)
        err.print("Ctrl-C to stop", markup=False)

    serve(model, port, on_ready=ready)
