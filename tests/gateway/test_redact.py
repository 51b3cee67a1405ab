"""The redactor every error text, rate-limit event and gateway.jsonl line passes (issue 35)."""

from __future__ import annotations

import pytest

from localagentbench.gateway._redact import (
    REDACTED,
    UPSTREAM,
    Redactor,
    credential_values,
    redactor_for,
)
from localagentbench.gateway.backends._anthropic import AnthropicBackend
from localagentbench.gateway.backends._openai import OpenAIBackend
from localagentbench.gateway.backends._repair import RepairingBackend

KEY = "sk-proj-Zx81kQ0pLmN4rT7vWy2B"


@pytest.mark.parametrize(
    "text",
    [
        f"{{'Authorization': 'Bearer {KEY}', 'Accept': 'x'}}",
        f'{{"authorization": "Bearer {KEY}"}}',
        f"Authorization: Bearer {KEY}\r\nHost: x",
        f"x-api-key: {KEY}",
        f"'api-key': '{KEY}'",
        f"proxy-authorization: Basic {KEY}",
        f"https://api.example.com/v1?api_key={KEY}&q=1",
        f"https://me:{KEY}@api.example.com/v1",
        f"Incorrect API key provided: {KEY[:6]}**************{KEY[-4:]}",
    ],
)
def test_credential_shapes_are_removed_without_knowing_the_key(text: str) -> None:
    out = Redactor().text(text)
    assert KEY not in out
    assert KEY[-4:] not in out
    assert REDACTED in out


def test_known_secrets_and_the_upstream_address_are_replaced_literally() -> None:
    backend = OpenAIBackend("m", base_url="http://10.1.2.3:8443/v1", api_key="plainsecretvalue")
    redactor = redactor_for(backend, environ={})
    text = (
        "Cannot connect to host 10.1.2.3:8443 ssl:default "
        "[Connect call failed ('10.1.2.3', 8443)] key plainsecretvalue"
    )
    out = redactor.text(text)
    assert "8443" not in out
    assert "10.1.2.3" not in out
    assert "plainsecretvalue" not in out
    assert out.count(UPSTREAM) == 2


def test_wrapped_backends_and_the_environment_lend_their_secrets() -> None:
    inner = AnthropicBackend("claude", base_url="https://u:pw-123456789@proxy.local", api_key="")
    redactor = redactor_for(
        RepairingBackend(inner), environ={"HF_TOKEN": "hf_abcdefghijkl", "HOME": "/root"}
    )
    assert "hf_abcdefghijkl" in redactor.secrets
    assert "pw-123456789" in redactor.secrets
    assert "/root" not in redactor.secrets
    assert "proxy.local:443" in redactor.addresses


def test_short_values_are_not_secrets() -> None:
    assert credential_values({"OPENAI_API_KEY": "x", "OTHER": "y"}) == ["x"]
    redactor = redactor_for(OpenAIBackend("m", base_url="http://h:1/v1", api_key="x"), environ={})
    assert redactor.secrets == ()
    assert redactor.text("x marks the spot") == "x marks the spot"


def test_literal_leaves_code_that_merely_looks_like_a_header() -> None:
    """A model's reply `headers = {"Authorization": token}` is code, not a credential: the
    logged bodies lose only the known secrets."""
    redactor = Redactor(secrets=(KEY,))
    code = 'headers = {"Authorization": token}'
    assert redactor.literal(code) == code
    assert redactor.literal(f"use {KEY}") == f"use {REDACTED}"
