"""The harness as an ACP client over the agent's stdio (one session, one prompt turn).

Built on the `agent-client-protocol` package (`acp`): its `ClientSideConnection` does the
JSON-RPC bookkeeping and validates every message against the protocol's schema. We give it
our own message transport (`_Lines`) because the package's stdio framing skips lines it
cannot parse, and here a line that is not JSON-RPC, a method the client does not have or an
answer to no request ends the trial as the agent's error, naming the line, at once.

File access is the harness's: `fs/read_text_file` and `fs/write_text_file` are served inside
the workspace only (the path resolved, then the opened file checked again by its path as the
platform layer reads it, so a link swapped in between is caught); anything else is refused and
kept as an outside-access attempt. Permission requests are answered by `PermissionPolicy`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from acp import PROTOCOL_VERSION, RequestError, connect_to_agent
from acp.meta import CLIENT_METHODS
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallUpdate,
    WriteTextFileResponse,
)
from pydantic import ValidationError

from localagentbench import _platform
from localagentbench._proc import Conversation
from localagentbench.agents._acp_events import EventLog

if TYPE_CHECKING:
    from acp import ClientSideConnection

__all__ = ["AcpSession", "PermissionPolicy"]

PermissionPolicy = Literal["workspace", "allow", "deny"]
"""How permission requests are answered: ``workspace`` allows a call whose files are all
inside the workspace and denies the rest; ``allow`` and ``deny`` answer every one alike."""

LINE_LIMIT = 64 * 1024 * 1024
"""Longest message line read from the agent (a whole file may travel in one)."""
SHOWN = 200
"""Characters of an offending line quoted in an error."""
SERVED = {"session/update", "session/request_permission", "fs/read_text_file", "fs/write_text_file"}
"""The client methods the harness serves (it offers no terminal, no MCP, no elicitation)."""


class ProtocolError(Exception):
    """The agent broke the protocol; the message names the line."""


@dataclass
class AcpSession:
    """One trial's ACP session: call it with the agent's stdio (``run_process(converse=...)``).

    Afterwards ``error`` says why the agent failed the protocol (None: it did not),
    ``stop_reason`` how its prompt turn ended, ``cancelled`` why the harness cancelled it.
    """

    workspace: Path
    prompt: str
    deadline: float
    """``time.monotonic()`` at which the turn is cancelled (the trial's timeout)."""
    stop: threading.Event
    """Set by the runner at a cap: the turn is cancelled."""
    policy: PermissionPolicy = "workspace"
    handshake_s: float = 60.0
    """How long initialize and session/new may take before the agent is called unresponsive."""
    cancel_grace_s: float = 10.0
    """How long the agent has to end its turn after session/cancel."""
    max_file_bytes: int | None = None
    """Largest file the agent may write through the client."""
    version: str = "0"
    """The harness's version, sent as clientInfo."""
    auth_method: str | None = None
    """The authentication method to select before session/new when the agent offers it
    (key auth: the key is the gateway's unused one)."""
    events: EventLog = field(default_factory=lambda: EventLog("acp"))
    error: str | None = None
    stop_reason: str | None = None
    cancelled: str | None = None
    """``timeout`` or ``cap`` when the harness cancelled the turn."""
    outside: list[str] = field(default_factory=list)
    """Refused accesses outside the workspace, one line each (method and path)."""
    info: dict[str, Any] = field(default_factory=dict)
    """The negotiated protocol version, the agent's name, version and capabilities."""

    def __call__(self, pipes: Conversation) -> None:
        try:
            asyncio.run(self._main(pipes))
        except Exception as e:  # never lose why: the trial's error names it
            self.error = self.error or f"ACP client failed: {type(e).__name__}: {e}"

    def session_record(self) -> dict[str, Any]:
        """What trajectory.json's ``session`` keeps of this session."""
        return {
            "protocol": "acp",
            **self.info,
            "stop_reason": self.stop_reason,
            "cancelled": self.cancelled,
            "permission_policy": self.policy,
            "outside_access": list(self.outside),
            "updates": self.events.updates,
            "error": self.error,
        }

    async def _main(self, pipes: Conversation) -> None:
        lines = await _Lines.open(pipes, self.events.update)
        # _Client serves only the methods the harness offers (the rest are refused)
        conn = connect_to_agent(_Client(self), lines)  # type: ignore[arg-type]
        try:
            await self._talk(conn, lines)
        except ProtocolError as e:
            self.error = str(e)
        finally:
            if lines.unserved:
                self.events.trajectory.notes.append(
                    "methods the client does not offer, refused: " + ", ".join(lines.unserved[:20])
                )
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2)

    async def _request(self, lines: _Lines, coro: Any, what: str, limit: float) -> Any:
        """Await one request, failing at once on a protocol error and after ``limit`` seconds."""
        task = asyncio.ensure_future(coro)
        broken = asyncio.ensure_future(lines.broken.wait())
        done, _ = await asyncio.wait({task, broken}, timeout=limit, return_when="FIRST_COMPLETED")
        broken.cancel()
        if task in done:
            try:
                return task.result()
            except ValidationError as e:
                raise ProtocolError(
                    f"{lines.answer_line(what)}: invalid answer: {_first(e)}"
                ) from e
            except RequestError as e:
                raise ProtocolError(f"the agent refused {what}: {e}") from e
            except ConnectionError as e:
                raise ProtocolError(
                    lines.problem or f"the agent left before answering {what}"
                ) from e
        task.cancel()
        if lines.problem:
            raise ProtocolError(lines.problem)
        raise ProtocolError(f"the agent did not answer {what} within {limit:.0f}s")

    async def _talk(self, conn: ClientSideConnection, lines: _Lines) -> None:
        init = await self._request(
            lines,
            conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                    terminal=False,
                ),
                client_info=Implementation(name="localagentbench", version=self.version),
            ),
            "initialize",
            self.handshake_s,
        )
        agent = init.agent_info
        self.info = {
            "protocol_version": init.protocol_version,
            "agent_name": agent.name if agent else None,
            "agent_version": agent.version if agent else None,
            "agent_capabilities": (
                init.agent_capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
                if init.agent_capabilities
                else {}
            ),
        }
        if init.protocol_version != PROTOCOL_VERSION:
            raise ProtocolError(
                f"{lines.answer_line('initialize')}: the agent speaks ACP version "
                f"{init.protocol_version}; the harness speaks {PROTOCOL_VERSION}"
            )
        offered = {m.id for m in init.auth_methods or [] if getattr(m, "id", None)}
        if self.auth_method is not None and self.auth_method in offered:
            await self._request(
                lines,
                conn.authenticate(method_id=self.auth_method),
                "authenticate",
                self.handshake_s,
            )
            self.info["auth_method"] = self.auth_method
        session = await self._request(
            lines,
            conn.new_session(cwd=str(self.workspace), mcp_servers=[]),
            "session/new",
            self.handshake_s,
        )
        session_id = session.session_id
        turn = asyncio.ensure_future(
            conn.prompt(
                session_id=session_id, prompt=[TextContentBlock(type="text", text=self.prompt)]
            )
        )
        while not turn.done():
            if lines.problem:
                turn.cancel()
                raise ProtocolError(lines.problem)
            if self.stop.is_set() or time.monotonic() >= self.deadline:
                self.cancelled = "cap" if self.stop.is_set() else "timeout"
                with contextlib.suppress(Exception):
                    await conn.cancel(session_id=session_id)
                with contextlib.suppress(Exception):
                    await asyncio.wait({turn}, timeout=self.cancel_grace_s)
                break
            await asyncio.wait({turn}, timeout=0.1)
        if not turn.done():
            turn.cancel()
            return
        if lines.problem:
            raise ProtocolError(lines.problem)
        try:
            answer = turn.result()
        except ValidationError as e:
            raise ProtocolError(
                f"{lines.answer_line('session/prompt')}: invalid answer: {_first(e)}"
            ) from e
        except RequestError as e:
            raise ProtocolError(f"the agent failed session/prompt: {e}") from e
        except ConnectionError as e:
            raise ProtocolError(lines.problem or "the agent left before ending its turn") from e
        self.stop_reason = answer.stop_reason

    # --- the client methods -------------------------------------------------------------

    def inside(self, path: str) -> Path | None:
        """``path`` resolved, when it is absolute and inside the workspace; else None."""
        if not os.path.isabs(path):
            return None
        root = self.workspace.resolve()
        resolved = Path(os.path.realpath(path))
        return resolved if resolved == root or root in resolved.parents else None

    def _opened_inside(self, fd: int, resolved: Path) -> bool:
        """The file behind ``fd`` is inside the workspace (checked after opening: no race).
        Where the system cannot name an open file's path, the opened file must be the very
        file ``resolved`` (inside the workspace) is: same device and inode."""
        root = self.workspace.resolve()
        real = _platform.fd_path(fd)
        if real is not None:
            return root in real.parents
        try:
            opened, there = os.fstat(fd), os.stat(resolved, follow_symlinks=False)
        except OSError:
            return False
        return (opened.st_dev, opened.st_ino) == (there.st_dev, there.st_ino)

    def refuse(self, method: str, path: str, call_id: str | None = None) -> RequestError:
        line = f"{method} {path}"
        self.outside.append(line)
        self.events.refused(call_id, f"refused outside the workspace: {line}")
        return RequestError(-32602, f"refused: {path} is outside the workspace {self.workspace}")

    def read(self, path: str, line: int | None, limit: int | None) -> str:
        target = self.inside(path)
        if target is None:
            raise self.refuse("fs/read_text_file", path)
        try:
            fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError as e:
            raise RequestError.resource_not_found(path) from e
        except OSError as e:
            raise RequestError(-32603, f"cannot read {path}: {e.strerror}") from e
        with os.fdopen(fd, "rb") as f:
            if not self._opened_inside(fd, target):
                raise self.refuse("fs/read_text_file", path)
            text = f.read().decode("utf-8", errors="replace")
        if line is None and limit is None:
            return text
        rows = text.splitlines(keepends=True)
        start = max((line or 1) - 1, 0)
        return "".join(rows[start : start + limit if limit is not None else None])

    def write(self, path: str, content: str) -> None:
        try:
            self._write(path, content)
        except OSError as e:
            raise RequestError(-32603, f"cannot write {path}: {e.strerror}") from e

    def _write(self, path: str, content: str) -> None:
        target = self.inside(path)
        if target is None:
            raise self.refuse("fs/write_text_file", path)
        data = content.encode("utf-8")
        if self.max_file_bytes is not None and len(data) > self.max_file_bytes:
            raise RequestError(-32602, f"refused: {len(data)} bytes is over the file size cap")
        owner = self.workspace.stat()
        made = []
        folder = target.parent
        while not folder.exists():
            made.append(folder)
            folder = folder.parent
        for new in reversed(made):
            new.mkdir()
            os.lchown(new, owner.st_uid, owner.st_gid)
        existed = target.exists()
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            raise RequestError(-32603, f"cannot write {path}: {e.strerror}") from e
        with os.fdopen(fd, "wb") as f:
            if not self._opened_inside(fd, target):
                if not existed:
                    with contextlib.suppress(OSError):
                        os.unlink(target)
                raise self.refuse("fs/write_text_file", path)
            if not existed:
                os.fchown(fd, owner.st_uid, owner.st_gid)
            os.ftruncate(fd, 0)
            f.write(data)

    def permit(
        self, call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse:
        paths = [loc.path for loc in call.locations or []]
        paths += [c.path for c in call.content or [] if getattr(c, "type", None) == "diff"]
        outside = [p for p in paths if self.inside(p) is None]
        allow = self.policy == "allow" or (self.policy == "workspace" and not outside)
        if allow:
            self.events.allowed(call.tool_call_id)
        else:
            why = f"outside the workspace: {', '.join(outside)}" if outside else "policy deny"
            if outside:
                self.outside.extend(f"session/request_permission {p}" for p in outside)
            self.events.refused(
                call.tool_call_id, f"permission denied ({why}): {call.title or call.tool_call_id}"
            )
        kinds = ("allow_once", "allow_always") if allow else ("reject_once", "reject_always")
        for kind in kinds:
            for option in options:
                if option.kind == kind:
                    return RequestPermissionResponse(
                        outcome=AllowedOutcome(outcome="selected", option_id=option.option_id)
                    )
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


class _Client:
    """The `acp.Client` the connection calls: the requests the harness serves (session
    updates never reach it: `_Lines` folds them into the trajectory as they come, whatever
    their kind, so an update kind newer than the package is kept rather than refused)."""

    def __init__(self, session: AcpSession) -> None:
        self.session = session

    async def request_permission(
        self,
        options: list[PermissionOption],
        session_id: str,
        tool_call: ToolCallUpdate,
        **kwargs: Any,
    ) -> RequestPermissionResponse:
        return self.session.permit(tool_call, options)

    async def read_text_file(
        self,
        path: str,
        session_id: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=self.session.read(path, line, limit))

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.session.write(path, content)
        return WriteTextFileResponse()


class _Lines:
    """Newline-delimited JSON-RPC over the agent's stdio, strict: a line that is not a
    JSON-RPC object, a method the client does not have, or an answer to no request sets
    ``problem`` (naming the line) and ends the stream."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.WriteTransport,
        on_update: Callable[[dict[str, Any]], None],
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.on_update = on_update
        self.problem: str | None = None
        self.broken = asyncio.Event()
        self.number = 0
        self.sent: dict[Any, str] = {}
        """Our request ids and their methods."""
        self.answers: dict[str, tuple[int, str]] = {}
        """Method -> the line number and text of the agent's answer to it."""
        self.unserved: list[str] = []
        """Methods the agent called that the client does not offer (answered with an error)."""

    @classmethod
    async def open(cls, pipes: Conversation, on_update: Callable[[dict[str, Any]], None]) -> _Lines:
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=LINE_LIMIT)
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(os.dup(pipes.stdout), "rb")
        )
        writer, _ = await loop.connect_write_pipe(
            asyncio.Protocol, os.fdopen(os.dup(pipes.stdin), "wb")
        )
        return cls(reader, writer, on_update)

    def answer_line(self, method: str) -> str:
        number, text = self.answers.get(method, (self.number, ""))
        return f"line {number} ({_quote(text)})" if text else f"line {number}"

    def fail(self, problem: str) -> None:
        if self.problem is None:
            self.problem = problem
        self.broken.set()

    async def send(self, message: dict[str, Any]) -> None:
        if "method" in message and "id" in message:
            self.sent[message["id"]] = message["method"]
        if self.writer.is_closing():
            raise ConnectionError("the agent's stdin is closed")
        self.writer.write(json.dumps(message, ensure_ascii=False).encode() + b"\n")

    async def receive(self) -> dict[str, Any] | None:
        if self.problem:
            return None
        while True:
            try:
                raw = await self.reader.readline()
            except ValueError:  # longer than LINE_LIMIT
                self.fail(f"line {self.number + 1}: longer than {LINE_LIMIT} bytes")
                return None
            if not raw:
                return None
            self.number += 1
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            problem = self._check(text)
            if problem is not None:
                self.fail(f"line {self.number}: {problem}: {_quote(text)}")
                return None
            message: dict[str, Any] = json.loads(text)
            if message.get("method") == "session/update" and "id" not in message:
                params = message.get("params")
                update = params.get("update") if isinstance(params, dict) else None
                if not isinstance(update, dict):
                    self.fail(
                        f"line {self.number}: session/update without an update: {_quote(text)}"
                    )
                    return None
                self.on_update(update)
                continue
            method = message.get("method")
            if method is not None and method not in SERVED:
                # Offered by no capability of ours (terminals, MCP, elicitation, extensions):
                # refused here, so no handler the package lacks can answer it with a null.
                if "id" in message:
                    error = {"code": -32601, "message": f"{method} is not offered by this client"}
                    await self.send({"jsonrpc": "2.0", "id": message["id"], "error": error})
                self.unserved.append(str(method))
                continue
            return message

    def _check(self, text: str) -> str | None:
        try:
            message = json.loads(text)
        except ValueError:
            return "not JSON"
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return "not a JSON-RPC 2.0 message"
        method = message.get("method")
        if method is not None:
            if not isinstance(method, str):
                return "method is not a string"
            if (
                method not in SERVED
                and method not in CLIENT_METHODS.values()
                and not method.startswith("_")
            ):
                return f"unknown method {method!r}"
            return None
        if "id" not in message or ("result" not in message and "error" not in message):
            return "neither a request, a notification nor an answer"
        asked = self.sent.get(message["id"])
        if asked is None:
            return f"answer to no request (id {message['id']!r})"
        self.answers[asked] = (self.number, text)
        return None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


def _quote(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "...")


def _first(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])
