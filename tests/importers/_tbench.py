"""Terminal-Bench-shaped task folders in a test's tmp_path: one Harbor task that fits the
sandbox (a stock image, a copied data file) and Terminal-Bench ones that need a container."""

from __future__ import annotations

from pathlib import Path

COUNT_TEST = """\
from pathlib import Path


def test_count_file_exists():
    assert Path("/app/count.txt").is_file()


def test_count_is_the_number_of_words():
    words = Path("/app/words.txt").read_text().split()
    assert Path("/app/count.txt").read_text().strip() == str(len(words))
"""


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def harbor_task(root: Path) -> Path:
    """``word-count``: count the words of /app/words.txt into /app/count.txt."""
    folder = root / "word-count"
    _write(
        folder,
        {
            "task.toml": 'version = "1.0"\n\n[metadata]\ndifficulty = "easy"\n'
            'category = "file-operations"\n\n[verifier]\ntimeout_sec = 60.0\n\n'
            "[agent]\ntimeout_sec = 300.0\n",
            "instruction.md": "Count the words in /app/words.txt and write the number, alone, "
            "to /app/count.txt.\n",
            "environment/Dockerfile": "FROM python:3.13-slim-bookworm\n\nWORKDIR /app\n\n"
            "COPY words.txt /app/words.txt\n",
            "environment/words.txt": "one two three\nfour five\n",
            "solution/solve.sh": "#!/bin/bash\n"
            "wc -w < /app/words.txt | tr -d ' ' > /app/count.txt\n",
            "tests/test.sh": "#!/bin/bash\nuvx pytest /tests/test_outputs.py\n",
            "tests/test_outputs.py": COUNT_TEST,
        },
    )
    return folder


def terminal_bench_task(root: Path, name: str, dockerfile: str) -> Path:
    """A Terminal-Bench (task.yaml) folder whose environment is ``dockerfile``."""
    folder = root / name
    _write(
        folder,
        {
            "task.yaml": "instruction: |\n  Parse /app/data.json with jq.\ndifficulty: medium\n"
            "category: data\nmax_agent_timeout_sec: 300\n",
            "Dockerfile": dockerfile,
            "docker-compose.yaml": "services:\n  client:\n    build: .\n",
            "solution.sh": "jq . /app/data.json > /app/out.json\n",
            "run-tests.sh": "pip install pytest && pytest tests\n",
            "tests/test_outputs.py": "def test_out():\n    assert open('/app/out.json')\n",
        },
    )
    return folder


CHEAP_REJECTS: dict[str, tuple[str, dict[str, str]]] = {
    "no instruction": ("no instruction", {"task.yaml": "difficulty: easy\n"}),
    "custom image": (
        "needs a container",
        {
            "task.yaml": "instruction: Do it.\n",
            "Dockerfile": "FROM ghcr.io/someone/db-with-fixtures:3\nWORKDIR /app\n",
            "solution.sh": "true\n",
        },
    ),
    "prebuilt image": (
        "needs a container",
        {
            "task.toml": '[environment]\ndocker_image = "ghcr.io/someone/prebuilt:1"\n',
            "instruction.md": "Do it.\n",
        },
    ),
    "no tests": (
        "no pytest tests",
        {
            "task.yaml": "instruction: Do it.\n",
            "Dockerfile": "FROM python:3.12-slim\nWORKDIR /app\n",
            "solution.sh": "true\n",
            "tests/test.sh": "bash check.sh\n",
        },
    ),
    "broken yaml": ("unreadable config", {"task.yaml": "instruction: [unclosed\n"}),
}
"""Folders rejected by reading their files alone (nothing runs): kind -> (reason, files)."""


def many_folders(root: Path, count: int, *, real: int = 0) -> dict[str, int]:
    """``count`` task folders under ``root``: ``real`` copies of `harbor_task` (importable,
    spread over the range) and cheap rejects of every `CHEAP_REJECTS` kind in turn; the
    expected count of each reason."""
    expected: dict[str, int] = {}
    kinds = list(CHEAP_REJECTS.values())
    real_at = {round((i + 1) * count / (real + 1)) for i in range(real)}
    for i in range(count):
        name = f"task-{i:04d}"
        if i in real_at:
            harbor_task(root).rename(root / name)
            continue
        reason, files = kinds[i % len(kinds)]
        _write(root / name, files)
        expected[reason] = expected.get(reason, 0) + 1
    return expected
