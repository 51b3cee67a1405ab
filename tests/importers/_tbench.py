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
