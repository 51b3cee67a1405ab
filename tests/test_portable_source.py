"""Linux-only interfaces stay in their place: ``/proc`` is read only by the platform layer's
Linux branches and by the Linux sandboxes (bwrap mounts a /proc in its jails, landlock grants
it, the in-jail launcher and the kernel helpers run only under them; the per-trial cgroups are
Linux's too). Anything else asks
``localagentbench._platform``, so macOS and Windows get an answer instead of silence."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import localagentbench

pytestmark = pytest.mark.portable  # it reads source text only

SOURCE = Path(localagentbench.__file__).parent
PLATFORM_LAYER = SOURCE / "_platform.py"
LINUX_SANDBOXES = {
    SOURCE / "sandbox" / "_bwrap.py",
    SOURCE / "sandbox" / "_landlock.py",
    SOURCE / "sandbox" / "_launcher.py",
    SOURCE / "sandbox" / "_kernel.py",
    SOURCE / "sandbox" / "_cgroup.py",  # cgroups: a Linux kernel interface, found via /proc
    SOURCE / "sandbox" / "_container.py",  # containers run on Linux only (find_engine says so)
    SOURCE / "sandbox" / "_netns.py",  # a network namespace: /proc/<pid>/ns/net
}
LINUX_TESTS = {"system() == 'linux'", "kind == 'linux'"}


def _hits() -> dict[Path, list[int]]:
    """``grep -rn /proc src/``: file -> line numbers, over every text file of the package
    (links not followed, as grep -r: the package's docs/ links to the METHODOLOGY, which
    describes the Linux sandboxes)."""
    found: dict[Path, list[int]] = {}
    for path in sorted(SOURCE.rglob("*")):
        if path.is_symlink() or not path.is_file() or "__pycache__" in path.parts:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        lines = [n for n, line in enumerate(text.splitlines(), 1) if "/proc" in line]
        if lines:
            found[path] = lines
    return found


def _allowed_lines(path: Path) -> set[int]:
    """Lines of the platform layer inside an ``if`` on Linux, or inside a docstring."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    allowed: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in LINUX_TESTS:
            end = node.body[-1].end_lineno or node.lineno
            allowed |= set(range(node.lineno, end + 1))
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef):
            doc = node.body[0] if node.body else None
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
                allowed |= set(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
    return allowed


def test_proc_is_read_only_by_the_platform_layers_linux_branch_and_the_linux_sandboxes():
    hits = _hits()
    strays = {
        str(path.relative_to(SOURCE.parent)): lines
        for path, lines in hits.items()
        if path != PLATFORM_LAYER and path not in LINUX_SANDBOXES
    }
    assert not strays, f"/proc outside the platform layer; ask localagentbench._platform: {strays}"
    outside_linux = sorted(set(hits.get(PLATFORM_LAYER, [])) - _allowed_lines(PLATFORM_LAYER))
    assert not outside_linux, f"_platform.py reads /proc outside a Linux branch: {outside_linux}"


def test_the_check_sees_what_it_guards():
    hits = _hits()
    assert PLATFORM_LAYER in hits
    assert SOURCE / "sandbox" / "_bwrap.py" in hits
    code = [n for n in hits[PLATFORM_LAYER] if n not in _docstring_lines(PLATFORM_LAYER)]
    assert code, "the Linux branches read /proc: the check must see those lines"
    assert set(code) <= _allowed_lines(PLATFORM_LAYER)


def _docstring_lines(path: Path) -> set[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and node.body:
            doc = node.body[0]
            if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant):
                lines |= set(range(doc.lineno, (doc.end_lineno or doc.lineno) + 1))
    return lines
