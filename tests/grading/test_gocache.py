"""A Go task's gradings start from a copy of a build cache warmed once on the pristine tree."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from localagentbench.grading import GoBuildSeeds
from localagentbench.grading._gocache import runs_go
from localagentbench.grading._jail import GO_BUILD_CACHE
from localagentbench.tasks import load_tasks

from ._helpers import grading_task

needs_go = pytest.mark.skipif(shutil.which("go") is None, reason="go is not installed")

GO_ENV = ["env", "GOTOOLCHAIN=local", "GOPROXY=off", "GOFLAGS=-mod=readonly"]
GO_CMD = [*GO_ENV, "go", "test", "-count=1", "./..."]
GO_MOD = "module ex\n\ngo 1.18\n"
GO_SRC = "package ex\n\nfunc Half(x int) int { return x / 3 }\n"
GO_TEST = """\
package ex

import "testing"

func TestHalf(t *testing.T) { if Half(4) != 2 { t.Fatal("half") } }
"""
# The agent's own test: writes a file into the Go build cache its run was given.
GO_PLANT = """\
package ex

import (
\t"os"
\t"path/filepath"
\t"testing"
)

func TestPlant(t *testing.T) {
\tdir, err := os.UserCacheDir()
\tif err != nil { t.Fatal(err) }
\tplanted := filepath.Join(dir, "go-build", "planted")
\tif err := os.WriteFile(planted, []byte("x"), 0o644); err != nil { t.Fatal(err) }
}
"""


def _go_task(tmp_path: Path) -> Path:
    visible = GO_TEST.replace("TestHalf", "TestVisibleHalf")
    repo = {"go.mod": GO_MOD, "ex.go": GO_SRC, "visible_test.go": visible}
    return grading_task(tmp_path, repo, {"ex_test.go": GO_TEST}, GO_CMD, language="go")


def _fix(work: Path) -> None:
    (work / "ex.go").write_text(GO_SRC.replace("/ 3", "/ 2"))


@needs_go
def test_the_seed_is_made_once_and_every_grading_starts_from_a_copy(
    tmp_path: Path, graded: Any
) -> None:
    seeds = GoBuildSeeds(tmp_path / "seeds")
    task = _go_task(tmp_path)
    first = graded(task, _fix, go_seeds=seeds)
    second = graded(task, _fix, go_seeds=seeds)
    assert first.success
    assert second.success
    assert seeds.made == 1
    [seed] = list((tmp_path / "seeds").glob(f"*/home/{GO_BUILD_CACHE}"))
    assert any(p.is_file() for p in seed.rglob("*"))
    note = (tmp_path / "trial" / "logs" / "go-build-seed.txt").read_text()
    assert str(seed) in note
    # the held-out run's HOME started with a copy of its own
    assert (tmp_path / "trial" / "grade" / "home-hidden" / GO_BUILD_CACHE).is_dir()


@needs_go
def test_what_the_agents_code_writes_into_its_cache_stays_in_that_home(
    tmp_path: Path, graded: Any
) -> None:
    seeds = GoBuildSeeds(tmp_path / "seeds")

    def plant(work: Path) -> None:
        _fix(work)
        (work / "plant_test.go").write_text(GO_PLANT)

    verdict = graded(_go_task(tmp_path), plant, go_seeds=seeds)
    assert verdict.visible.passed  # the planting test ran, and wrote into its HOME's cache
    assert (tmp_path / "trial" / "grade" / "home" / GO_BUILD_CACHE / "planted").is_file()
    assert not list((tmp_path / "seeds").rglob("planted"))


def test_a_task_without_go_test_gets_no_seed(tmp_path: Path, graded: Any) -> None:
    task_dir = grading_task(tmp_path, {"a.txt": "x"}, None, ["true"])
    [task] = load_tasks(task_dir.parent, [task_dir.name])
    assert not runs_go(task)
    seeds = GoBuildSeeds(tmp_path / "seeds")
    assert graded(task_dir, go_seeds=seeds).visible.passed
    assert seeds.made == 0
    assert not (tmp_path / "seeds").exists()
