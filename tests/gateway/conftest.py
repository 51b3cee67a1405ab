"""Fixtures: a started gateway and a helper to open trials on it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from localagentbench.gateway import Gateway, TrialRoute

OpenTrial = Callable[..., TrialRoute]


@pytest.fixture
def gateway() -> Iterator[Gateway]:
    gw = Gateway()
    gw.start()
    try:
        yield gw
    finally:
        gw.stop()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws


@pytest.fixture
def open_trial(gateway: Gateway, workspace: Path, tmp_path: Path) -> OpenTrial:
    def _open(
        trial_id: str = "t1", model: str = "scripted/fix-greeting", **kw: object
    ) -> TrialRoute:
        log = tmp_path / "trials" / trial_id / "gateway.jsonl"
        return gateway.open_trial(trial_id, model=model, workspace=workspace, log_path=log, **kw)  # type: ignore[arg-type]

    return _open
