"""The one step every outgoing text passes: credentials and the upstream's address removed.

The gateway holds the user's keys (for hosted backends) and knows where the upstream lives;
an agent is not to learn either. Exception reprs from the HTTP client carry request headers,
upstream error bodies may echo them, and both used to reach the agent's reply and
gateway.jsonl. A `Redactor` is built per trial from its backend and the harness's
environment; `Redactor.text` scrubs any text, `Redactor.address` names the upstream
without saying where it is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["REDACTED", "UPSTREAM", "Redactor", "credential_values", "redactor_for"]

REDACTED = "[redacted]"
"""What a credential is replaced with."""

UPSTREAM = "[upstream]"
"""What the upstream's host:port is replaced with."""

SECRET_NAME = re.compile(r"(API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIALS?)$", re.I)
"""Environment variable names whose values are credentials the gateway may hold."""

MIN_SECRET = 8
"""Values shorter than this are not treated as secrets (replacing `1` everywhere would
destroy every text while hiding nothing)."""

PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # header values in any spelling: `Authorization: Bearer x`, `'x-api-key': 'x'`, JSON
    (
        re.compile(
            r"""(?ix)
            (["']?(?:proxy-)?(?:authorization|x-api-key|api-key|x-goog-api-key|cookie)["']?
             \s*[:=]\s*["']?)
            (?:(?:bearer|basic|token)\s+)?[^\s"',;}\]]+
            """
        ),
        rf"\1{REDACTED}",
    ),
    # URL userinfo: scheme://user:pass@host
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@:]*:[^/\s@]*@"), rf"\1{REDACTED}@"),
    # key-like query parameters
    (
        re.compile(
            r"(?i)([?&](?:api[_-]?key|key|token|access_token|auth|sig|signature|password)=)"
            r"[^&\s\"'#]+"
        ),
        rf"\1{REDACTED}",
    ),
    # key-shaped strings, masked or not: sk-..., sk-ant-..., AIza...
    (re.compile(r"\bsk-[A-Za-z0-9_*.\-]{4,}"), REDACTED),
    (re.compile(r"\bAIza[0-9A-Za-z_\-]{20,}"), REDACTED),
)
"""Credential shapes removed whatever their value (the table the tests read)."""


@dataclass(frozen=True, slots=True)
class Redactor:
    """Scrubs known secrets, credential shapes and the upstream's address from text."""

    secrets: tuple[str, ...] = ()
    """Literal values to remove, longest first (keys, passwords)."""
    addresses: tuple[str, ...] = ()
    """Literal upstream addresses to replace (`host:port`, `('host', port)`, the host)."""

    def text(self, value: str) -> str:
        """`value` with every secret, credential shape and upstream address replaced."""
        if not value:
            return value
        value = self.literal(value)
        for pattern, replacement in PATTERNS:
            value = pattern.sub(replacement, value)
        return value

    def literal(self, value: str) -> str:
        """`value` with the known secrets and addresses replaced, shapes left alone: for
        logged request and reply bodies, where a model's `"Authorization": token` is code."""
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        for address in self.addresses:
            if address in value:
                value = value.replace(address, UPSTREAM)
        return value


def credential_values(environ: Mapping[str, str] | None = None) -> list[str]:
    """Values of credential-named variables in the (harness's) environment."""
    env = os.environ if environ is None else environ
    return [value for name, value in env.items() if SECRET_NAME.search(name) and value]


def _addresses(url: str) -> list[str]:
    """The forms a URL's address takes in texts: netloc, host:port, ('host', port)."""
    parts = urlsplit(url)
    if not parts.netloc:
        return []
    out = [parts.netloc]
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = {"http": 80, "https": 443}.get(parts.scheme)
    if host and port is not None:
        out += [f"{host}:{port}", f"('{host}', {port})", f"[{host}]:{port}"]
    return out


def _walk(backend: object) -> Iterable[object]:
    """The backend and every backend it wraps (`inner`, `upstream`)."""
    seen: set[int] = set()
    todo = [backend]
    while todo:
        item = todo.pop()
        if item is None or id(item) in seen:
            continue
        seen.add(id(item))
        yield item
        todo += [getattr(item, name, None) for name in ("inner", "upstream", "_upstream")]


def redactor_for(backend: object, environ: Mapping[str, str] | None = None) -> Redactor:
    """The redactor of a trial: its backend's keys and address, and every credential-named
    variable of the environment the gateway runs in."""
    secrets = set(credential_values(environ))
    addresses: set[str] = set()
    for item in _walk(backend):
        key = getattr(item, "api_key", None)
        if isinstance(key, str) and key:
            secrets.add(key)
        for name in ("endpoint", "base_url", "host"):
            url = getattr(item, name, None)
            if isinstance(url, str):
                addresses.update(_addresses(url))
                password = urlsplit(url).password
                if password:
                    secrets.add(password)
    addresses.discard("")
    return Redactor(
        secrets=tuple(sorted((s for s in secrets if len(s) >= MIN_SECRET), key=len, reverse=True)),
        addresses=tuple(sorted(addresses, key=len, reverse=True)),
    )
