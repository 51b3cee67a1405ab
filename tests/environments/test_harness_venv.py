"""A harness running in a venv: a task's Python environment sees the venv's packages
(pytest, which grading runs), which `--system-site-packages` alone would not reach."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

import pytest

from localagentbench.environments._build import HARNESS_PTH, _see_harness_packages


def test_a_venv_harness_lists_its_site_packages_in_the_environment(tmp_path: Path, monkeypatch):
    site = tmp_path / "python" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "harness-venv"))
    _see_harness_packages(tmp_path / "python")
    listed = (site / HARNESS_PTH).read_text().split()
    assert sysconfig.get_paths()["purelib"] in listed


def test_a_harness_outside_a_venv_adds_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = tmp_path / "python" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", sys.base_prefix)
    _see_harness_packages(tmp_path / "python")
    assert not (site / HARNESS_PTH).exists()
