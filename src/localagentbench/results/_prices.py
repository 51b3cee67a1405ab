"""The price table (``prices.yaml``): what a million tokens of each model cost, as the user
wrote it down. Nothing is fetched: a price is only what the file says, with its date and
source, and a model the file does not name has no price (never a price of 0)."""

from __future__ import annotations

import datetime as dt
import fnmatch
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from localagentbench._io import load_yaml
from localagentbench.errors import ConfigError

__all__ = ["PRICES_FILE", "Price", "PriceTable", "find_prices", "load_prices"]

PRICES_FILE = "prices.yaml"
"""Its name beside a matrix file, and in a run directory (the run keeps a copy)."""


class Price(BaseModel):
    """One model's (or a family's) price per million tokens."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(min_length=1)
    """A model id or a glob pattern over model ids (``openai/gpt-4o*``); the first entry that
    matches a configuration's model is its price."""
    input_per_million: float = Field(ge=0)
    """Price of a million prompt tokens that were not read from a cache."""
    output_per_million: float = Field(ge=0)
    """Price of a million completion tokens."""
    cached_input_per_million: float | None = Field(default=None, ge=0)
    """Price of a million prompt tokens read from the backend's cache; None: they cost the
    input price."""
    currency: str = Field(default="USD", min_length=1)
    date: dt.date
    """When the price was taken (prices change: the table says which day's it is)."""
    source: str = Field(min_length=1)
    """Where it was read (a pricing page, an invoice, 'local: electricity estimate')."""


class PriceTable(BaseModel):
    """``prices.yaml``."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    prices: list[Price] = Field(min_length=1)
    path: str = ""
    """Where the table was read from (not in the file)."""

    @model_validator(mode="after")
    def _one_currency(self) -> PriceTable:
        currencies = {p.currency for p in self.prices}
        if len(currencies) > 1:
            raise ValueError(
                f"one currency per table (found {', '.join(sorted(currencies))}): costs in "
                "different currencies cannot be added or compared"
            )
        return self

    @property
    def currency(self) -> str:
        return self.prices[0].currency

    def price_of(self, model: str | None) -> Price | None:
        """The first entry whose pattern matches ``model``; None: no price."""
        if not model:
            return None
        return next((p for p in self.prices if fnmatch.fnmatchcase(model, p.model)), None)


def load_prices(path: Path) -> PriceTable:
    """Read and validate a price table; errors are one line naming the file and field."""
    import yaml

    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"{path}: cannot read the price table: {e.strerror}") from e
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a price table is a mapping with a `prices:` list")
    try:
        table = PriceTable.model_validate(data)
    except ValidationError as e:
        first = e.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(top level)"
        raise ConfigError(
            f"{path}: {field}: {first['msg']} (each price needs model, input_per_million, "
            "output_per_million, date and source; see docs/METHODOLOGY.md, 'Cost')"
        ) from e
    return table.model_copy(update={"path": str(path)})


def find_prices(run_dir: Path, override: Path | None = None) -> PriceTable | None:
    """``override`` (``--prices FILE``) when given, else the run's own copy, else None."""
    if override is not None:
        return load_prices(override)
    kept = run_dir / PRICES_FILE
    return load_prices(kept) if kept.is_file() else None
