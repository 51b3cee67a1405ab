"""`prove(model)`: a real tiny completion before a lane starts; `probe(model)`: the
tool-call canary behind `doctor --probe` (native / pseudo / none)."""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Literal

import aiohttp
from pydantic import BaseModel

from localagentbench.gateway._canonical import ChatRequest, Message, Reply, ToolSpec
from localagentbench.gateway._errors import BackendHTTPError, BackendUnavailable, GatewayError
from localagentbench.gateway._redact import Redactor, redactor_for
from localagentbench.gateway.backends import Backend, CallContext, make_backend

HINTS: Mapping[str, str] = MappingProxyType(
    {
        "openai": (
            "the server is running and LAB_OPENAI_BASE_URL or OPENAI_BASE_URL points at its /v1 "
            "(llama.cpp: http://127.0.0.1:8080/v1), the model name, and LAB_OPENAI_API_KEY or "
            "OPENAI_API_KEY"
        ),
        "ollama": (
            "`ollama serve` is running at OLLAMA_HOST (default 127.0.0.1:11434) and the model is "
            "pulled (`ollama pull MODEL`)"
        ),
        "anthropic": "ANTHROPIC_API_KEY (or LAB_ANTHROPIC_API_KEY), the model name, and "
        "LAB_ANTHROPIC_BASE_URL or ANTHROPIC_BASE_URL if you use a proxy",
        "scripted": "the script path or the shipped script name",
        "replay": "the cassette path",
        "llamacpp": "the model is fetched (`localagentbench models list`) and the runtime is "
        "installed (pip install 'localagentbench[local-model]'); RUN/llamacpp/*.log has its log",
    }
)
"""What to check, per backend prefix."""

STATUS_HINTS: Mapping[int, str] = MappingProxyType(
    {
        401: "the API key is missing or wrong",
        403: "the API key lacks access to this model",
        404: "the model name, or the base URL path (OpenAI-compatible servers want .../v1)",
    }
)

PSEUDO_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE | re.DOTALL)
    for p in (
        r"<tool_call>",
        r"<function[=\s>]",
        r"\[TOOL_CALLS\]",
        r"<\|python_tag\|>",
        r"\"name\"\s*:\s*\"[\w.-]+\"\s*,\s*\"(?:arguments|parameters|args|input)\"",
        r"\"(?:function|tool)\"\s*:\s*\{?\s*\"?[\w.-]+",
        r"\bread_file\s*\(\s*(?:path\s*=\s*)?[\"']",
    )
)
"""Text shaped like a tool call (the model wrote the call instead of making it)."""

PROBE_TOOL = ToolSpec(
    "read_file",
    "Read a text file from the workspace and return its contents.",
    {
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Path relative to the workspace"}},
        "required": ["path"],
    },
)
PROBE_PROMPT = (
    "Read the file hello.py using the read_file tool. Do not answer until you have read it."
)


class ProbeResult(BaseModel):
    """What `doctor --probe MODEL` found."""

    model: str
    """The model id probed."""
    verdict: Literal["native", "pseudo", "none"]
    """native: a real tool call; pseudo: tool-call-shaped text (such a model scores 0); none:
    neither."""
    detail: str
    """One line saying what came back."""
    tool_name: str | None = None
    """Name of the tool called natively, if any."""
    text: str = ""
    """The reply text, shortened."""
    latency_s: float
    """Wall time of the probe request."""


def classify(reply: Reply) -> tuple[Literal["native", "pseudo", "none"], str]:
    """Verdict and detail for a probe reply (pure)."""
    if reply.tool_calls:
        call = reply.tool_calls[0]
        return "native", f"native tool call {call.name}({call.arguments[:80]})"
    for pattern in PSEUDO_PATTERNS:
        if pattern.search(reply.text):
            return "pseudo", "the reply text looks like a tool call but is not a native one"
    if reply.finish == "length":
        return "none", "no tool call before the output token limit (a long reasoning phase?)"
    return "none", "no tool call, native or in text"


def _unavailable(model: str, backend: Backend, error: Exception) -> BackendUnavailable:
    """The user-facing refusal: it names the endpoint (the user's own setting, shown to the
    user) but carries no credential: exception texts and upstream bodies are redacted."""
    credentials = Redactor(secrets=redactor_for(backend).secrets)
    endpoint = credentials.text(backend.endpoint)
    prefix = model.partition("/")[0]
    hint = HINTS.get(prefix, "the endpoint")
    if isinstance(error, BackendHTTPError):
        status_hint = (
            "it is rate limited; wait and retry"
            if error.rate_limited
            else STATUS_HINTS.get(error.status)
        )
        if status_hint:
            hint = f"{status_hint}; {hint}"
        return BackendUnavailable(
            endpoint,
            f"HTTP {error.status}: {credentials.text(error.message)[:300]}",
            hint,
            rate_limited=error.rate_limited,
            retry_after_s=error.retry_after_s,
        )
    if isinstance(error, TimeoutError):
        return BackendUnavailable(endpoint, "no answer in time", hint)
    return BackendUnavailable(
        endpoint, credentials.text(f"{type(error).__name__}: {error}")[:500], hint
    )


async def _complete(
    backend: Backend, request: ChatRequest, timeout_s: float, workspace: str
) -> Reply:
    async with aiohttp.ClientSession() as session:
        ctx = CallContext(
            workspace=workspace, side=False, fingerprint="probe", http=lambda: session
        )

        async def run() -> Reply:
            reply = Reply()
            async for event in backend.stream(request, ctx):
                reply.add(event)
            return reply

        return await asyncio.wait_for(run(), timeout_s)


def _run(
    model: str, request: ChatRequest, timeout_s: float, workspace: Path | None
) -> tuple[Reply, float]:
    backend = make_backend(model)
    started = time.perf_counter()
    try:
        reply = asyncio.run(_complete(backend, request, timeout_s, str(workspace or Path.cwd())))
    except GatewayError as e:
        if isinstance(e, BackendHTTPError):
            raise _unavailable(model, backend, e) from e
        raise
    except (aiohttp.ClientError, OSError, TimeoutError, ValueError) as e:
        raise _unavailable(model, backend, e) from e
    return reply, time.perf_counter() - started


LOCAL_PREFIXES = frozenset({"llamacpp"})
"""Backends that may first load a model into RAM and run on a CPU: slower to answer."""


def _timeout(model: str, given: float | None, remote_s: float) -> float:
    if given is not None:
        return given
    return 600.0 if model.partition("/")[0] in LOCAL_PREFIXES else remote_s


def prove(model: str, *, timeout_s: float | None = None, workspace: Path | None = None) -> None:
    """Prove the backend answers a real tiny completion; raise `BackendUnavailable` naming
    the endpoint and what to check. Call from a thread without a running event loop."""
    request = ChatRequest(
        model=model, messages=[Message("user", "Reply with the single word OK.")], max_tokens=64
    )
    _run(model, request, _timeout(model, timeout_s, 60.0), workspace)


def probe(
    model: str, *, timeout_s: float | None = None, workspace: Path | None = None
) -> ProbeResult:
    """Send one request offering a `read_file` tool and say how the model answered."""
    request = ChatRequest(
        model=model,
        messages=[
            Message("system", "You are a coding agent. Act by calling the tools you are given."),
            Message("user", PROBE_PROMPT),
        ],
        tools=[PROBE_TOOL],
        max_tokens=1024,
    )
    reply, took = _run(model, request, _timeout(model, timeout_s, 30.0), workspace)
    verdict, detail = classify(reply)
    return ProbeResult(
        model=model,
        verdict=verdict,
        detail=detail,
        tool_name=reply.tool_calls[0].name if reply.tool_calls else None,
        text=reply.text[:500],
        latency_s=took,
    )
