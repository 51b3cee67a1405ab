"""The adversarial suite with the harness itself running as an ordinary user (issue 5).

As root, `test_attacks.py` proves the jail with the agent dropped to uid 65534. A laptop runs
the harness as its owner: no uid to drop to, bwrap in an unprivileged user namespace, the
workspace owned by the agent's own uid. This test re-runs every attack that way: it creates
the user ``labuser``, installs the package (not editable: the dev interpreter under /root is
not readable by other users) into a venv from the system Python, cached in
/opt/labuser-venv by a digest of the sources, and runs ``tests/adversarial/test_attacks.py``
through ``runuser`` from a copy that user can read.
"""

from __future__ import annotations

import hashlib
import os
import pwd
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from localagentbench._proc import ProcessResult, run_process

pytestmark = pytest.mark.slow

USER = "labuser"
VENV = Path("/opt/labuser-venv")
SYSTEM_PYTHON = Path("/usr/bin/python3")
REPO = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parents[1]
_DIGEST_FILE = ".lab-source-digest"


def _source_digest() -> str:
    """sha256 over the package sources and pyproject.toml: the venv is rebuilt when it changes."""
    digest = hashlib.sha256()
    files = [REPO / "pyproject.toml", *sorted((REPO / "src").rglob("*"))]
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _run(argv: list[str], timeout_s: float = 900, **kwargs: object) -> ProcessResult:
    result = run_process(argv, timeout_s=timeout_s, **kwargs)  # type: ignore[arg-type]
    if not result.ok:
        tail = (result.start_error or result.stderr or result.stdout)[-2000:]
        pytest.fail(f"{' '.join(argv[:4])} ... failed (exit {result.exit_code}): {tail}")
    return result


def _ensure_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(USER)
    except KeyError:
        pass
    created = run_process(["useradd", "--no-create-home", "--shell", "/bin/sh", USER])
    if not created.ok:
        pytest.skip(f"useradd {USER} failed: {created.stderr.strip()}")
    return pwd.getpwnam(USER)


def _ensure_venv() -> Path:
    """The venv with this checkout installed (non-editable), rebuilt when the sources changed."""
    digest = _source_digest()
    stamp = VENV / _DIGEST_FILE
    python = VENV / "bin" / "python"
    if python.exists() and stamp.is_file() and stamp.read_text().strip() == digest:
        return python
    shutil.rmtree(VENV, ignore_errors=True)
    _run([str(SYSTEM_PYTHON), "-m", "venv", str(VENV)])
    with tempfile.TemporaryDirectory(prefix="lab-user-src-") as tmp:
        # Built from a copy: an in-tree build would leave build/ and *.egg-info in the checkout.
        src = Path(tmp)
        shutil.copytree(REPO / "src", src / "src", ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("pyproject.toml", "README.md", "LICENSE"):
            if (REPO / name).exists():
                shutil.copy2(REPO / name, src / name)
        _run([str(python), "-m", "pip", "install", "--quiet", str(src)], timeout_s=1800)
    stamp.write_text(digest + "\n")
    _run(["chmod", "-R", "a+rX", str(VENV)])
    return python


ATTACK_FILES = ("test_attacks.py", "test_runner_tampering.py", "test_workspace_faults.py")
"""The attack files run again as the ordinary user (from a venv of the system Python, so the
landlock variants run with no stand-in interpreter). The workspace-fault attacks are here
because as an ordinary user the agent's uid is the harness's own: permissions it takes from
itself are taken from the harness too. The patch-integrity and scratch-crossing attacks,
whose defences do not depend on who runs the harness, run as root only: each file here
costs CI minutes."""


def _copy_tests(dest: Path) -> list[Path]:
    """The attack suite and its helpers, where the user can read them."""
    (dest / "adversarial").mkdir(parents=True)
    for name in ("conftest.py", "labtest.py", "portable_tier.py"):
        shutil.copy2(TESTS / name, dest / name)
    (dest / "sandbox").mkdir()
    for name in ("__init__.py", "_helpers.py"):  # reachable_python, which some attacks import
        shutil.copy2(TESTS / "sandbox" / name, dest / "sandbox" / name)
    for name in ("__init__.py", "conftest.py", *ATTACK_FILES):
        shutil.copy2(TESTS / "adversarial" / name, dest / "adversarial" / name)
    return [dest / "adversarial" / name for name in ATTACK_FILES]


def test_the_attacks_fail_with_the_harness_as_an_ordinary_user(tmp_path: Path):
    """Threat: isolation that holds only because the harness is root (the uid drop, lending
    the workspace to 65534) and gives way on a laptop, where harness and agent share a uid."""
    if os.geteuid() != 0:
        pytest.skip("the harness is not root: tests/adversarial already runs as an ordinary user")
    missing = [t for t in ("useradd", "runuser", "bwrap") if shutil.which(t) is None]
    if missing or not SYSTEM_PYTHON.exists():
        pytest.skip(f"needs useradd, runuser, bwrap and {SYSTEM_PYTHON}; missing: {missing}")
    runuser = shutil.which("runuser") or "runuser"  # /usr/sbin: not on the user's PATH
    user = _ensure_user()
    probe = run_process(
        [
            runuser,
            "-u",
            USER,
            "--",
            "bwrap",
            "--ro-bind",
            "/",
            "/",
            "--unshare-user",
            "--unshare-pid",
            "--",
            "/bin/true",
        ],
        timeout_s=30,
    )
    if not probe.ok:
        pytest.skip(f"{USER} cannot create user namespaces here: {probe.stderr.strip()}")
    if not run_process([str(SYSTEM_PYTHON), "-c", "import ensurepip, venv"]).ok:
        pytest.skip(f"{SYSTEM_PYTHON} cannot make venvs: apt-get install python3-venv")
    python = _ensure_venv()
    work = Path(tempfile.mkdtemp(prefix="lab-as-user-", dir="/tmp"))
    try:
        suites = _copy_tests(work / "tests")
        report = work / "report.xml"
        _run(["chown", "-R", f"{user.pw_uid}:{user.pw_gid}", str(work)])
        pytest_argv = ["-q", "-p", "no:cacheprovider", "--full", f"--junitxml={report}"]
        pytest_argv += ["--basetemp", str(work / "tmp"), *map(str, suites)]
        result = run_process(
            [runuser, "-u", USER, "--", str(python), "-m", "pytest", *pytest_argv],
            cwd=work,
            env={"PATH": f"{python.parent}:/usr/bin:/bin", "HOME": str(work), "LANG": "C.UTF-8"},
            timeout_s=1800,
        )
        output = f"{result.start_error or ''}{result.stdout[-3000:]}{result.stderr[-2000:]}"
        assert report.is_file(), output
        suite_xml = ET.parse(report).getroot()
        counts = suite_xml if suite_xml.tag == "testsuite" else suite_xml[0]
        defined = sum(
            len(re.findall(r"^def test_\w+\(", suite.read_text(), re.MULTILINE)) for suite in suites
        )
        outcome = {k: int(counts.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")}
        assert outcome["tests"] >= defined, output  # parametrised ones count once a sandbox
        # An attack kept as a strict xfail (a known limit) is reported skipped by JUnit; any
        # other skip means the attack did not run as the ordinary user.
        xfailed = sum(1 for s in suite_xml.iter("skipped") if s.get("type") == "pytest.xfail")
        skipped = outcome["skipped"] - xfailed
        assert (outcome["failures"], outcome["errors"], skipped) == (0, 0, 0), output
        assert result.exit_code == 0
    finally:
        shutil.rmtree(work, ignore_errors=True)
