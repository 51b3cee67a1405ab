"""The `scripted/...` and `replay/...` backends: deterministic replies with no model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from localagentbench.gateway._canonical import (
    ChatRequest,
    Event,
    Finish,
    ReasoningDelta,
    Reply,
    TextDelta,
    ToolArgsDelta,
    ToolCall,
    ToolCallStart,
    ToolSpec,
    Usage,
)
from localagentbench.gateway._errors import BackendHTTPError, CassetteDiverged
from localagentbench.gateway._script import (
    CandidateCall,
    Script,
    Step,
    expand_workspace,
    load_script,
)
from localagentbench.gateway.backends._base import CallContext
from localagentbench.gateway.backends._upstream import is_rate_limited, retry_after_s


def sample_json(schema: Any, text: str) -> Any:
    """A small value that satisfies a JSON schema: strings are `text`, enums take their
    first value, objects get their required properties (or all when none are required)."""
    if not isinstance(schema, dict):
        return text
    if schema.get("enum"):
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return sample_json(schema[key][0], text)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties") or {}
        names = schema.get("required") or list(props)
        return {name: sample_json(props.get(name), text) for name in names}
    if kind == "array":
        return []
    if kind in {"integer", "number"}:
        return 0
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return text


def side_json(schema: dict[str, Any] | None, text: str) -> str:
    """Reply to a JSON-mode side request: a value matching its schema, else a small object."""
    if schema is None:
        return json.dumps({"next_speaker": "user", "reasoning": text})
    return json.dumps(sample_json(schema, text))


def choose_candidate(step: Step, tools: list[ToolSpec]) -> CandidateCall | None:
    """The first candidate whose tool the request offers with every argument it gives."""
    offered = {tool.name: tool for tool in tools}
    for candidate in step.tool_calls:
        tool = offered.get(candidate.name)
        if tool is not None and set(candidate.args) <= tool.parameter_names():
            return candidate
    return None


def _chunks(text: str, parts: int = 3) -> list[str]:
    """Split text into a few pieces on spaces so streaming is exercised."""
    words = text.split(" ")
    if len(words) < parts:
        return [text]
    size = -(-len(words) // parts)
    pieces = [" ".join(words[i : i + size]) for i in range(0, len(words), size)]
    return [piece + " " for piece in pieces[:-1]] + [pieces[-1]]


class ScriptedBackend:
    """Replays a `Script`; one instance per trial holds the step cursor.

    Steps are counted by the gateway's own replies in this trial (never by counting
    assistant messages in the prompt, which may carry few-shot examples). A retry of
    the previous request (same body) gets the same step again; side requests consume
    nothing.
    """

    def __init__(self, script: Script, endpoint: str) -> None:
        self.script = script
        self.endpoint = endpoint
        self._cursor = 0
        self._last_fingerprint: str | None = None
        self._last_index = 0

    @property
    def steps_used(self) -> int:
        """Main-loop replies given so far."""
        return self._cursor

    def answer(self, request: ChatRequest, ctx: CallContext) -> Reply:
        """The whole reply to `request` (a step's delay is applied by `stream`)."""
        return self._answer(request, ctx)[0]

    def _answer(self, request: ChatRequest, ctx: CallContext) -> tuple[Reply, float]:
        usage = self.script.usage
        reported = (
            Usage(usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens)
            if usage
            else None
        )
        if ctx.side:
            return Reply(
                side_json(request.json_schema, self.script.side_text)
                if request.json_mode
                else self.script.side_text,
                usage=reported,
            ), 0.0
        if ctx.fingerprint == self._last_fingerprint:
            index = self._last_index
        else:
            index = self._cursor
            self._cursor += 1
            self._last_fingerprint = ctx.fingerprint
            self._last_index = index
        steps = self.script.steps
        if index >= len(steps):
            return Reply(expand_workspace(steps[-1].text, ctx.workspace), usage=reported), 0.0
        step = steps[index]
        if step.error is not None:
            self._last_fingerprint = None  # the agent's retry of this request moves on
            raise BackendHTTPError(
                step.error.status,
                step.error.message,
                endpoint=self.endpoint,
                retry_after_s=(
                    step.error.retry_after_s
                    if step.error.retry_after_s is not None
                    else retry_after_s({}, step.error.message)
                ),
                rate_limited=is_rate_limited(step.error.status, step.error.message),
                scripted=True,
            )
        if self.script.strict and step.expect is not None:
            self._check(index, step, request)
        text = expand_workspace(step.text, ctx.workspace)
        candidate = choose_candidate(step, request.tools) if request.tools else None
        if candidate is None:
            return Reply(text, reasoning=step.reasoning, usage=reported), step.delay_s
        args = json.dumps(expand_workspace(candidate.args, ctx.workspace))
        call = ToolCall(f"call_{index}_{ctx.fingerprint[:8]}", candidate.name, args)
        reply = Reply(text, [call], "tool_calls", reported, reasoning=step.reasoning)
        return reply, step.delay_s

    def _check(self, index: int, step: Step, request: ChatRequest) -> None:
        expect = step.expect
        assert expect is not None
        tools = sorted(tool.name for tool in request.tools)
        last_role = request.messages[-1].role if request.messages else ""
        got = (len(request.messages), last_role, tools)
        want = (expect.messages, expect.last_role, expect.tools)
        if got != want:
            raise CassetteDiverged(
                f"cassette {self.script.name}: request {index + 1} diverged from the recording: "
                f"(messages, last role, tools) recorded {want}, got {got}"
            )

    async def stream(self, request: ChatRequest, ctx: CallContext) -> AsyncIterator[Event]:
        """Yield the reply as events: text in a few pieces, then each tool call."""
        reply, delay_s = self._answer(request, ctx)
        if delay_s:
            await asyncio.sleep(delay_s)
        if reply.reasoning:
            yield ReasoningDelta(reply.reasoning)
        for piece in _chunks(reply.text) if reply.text else []:
            yield TextDelta(piece)
        for index, call in enumerate(reply.tool_calls):
            yield ToolCallStart(index, call.id, call.name)
            yield ToolArgsDelta(index, call.arguments)
        yield Finish(reply.finish, reply.usage)


def scripted_backend(ref: str) -> ScriptedBackend:
    """`scripted/PATH.yaml` or `scripted/NAME` (shipped)."""
    return ScriptedBackend(load_script(ref), f"scripted/{ref}")


def replay_backend(ref: str) -> ScriptedBackend:
    """`replay/CASSETTE.yaml`: a recorded session, replayed strictly."""
    script = load_script(ref)
    return ScriptedBackend(script.model_copy(update={"strict": True}), f"replay/{ref}")
