"""A built wheel carries the documents and the litmus library, and a user of the wheel
alone reaches them: ``gdrcheck docs tutorial``, ``gdrcheck library``, ``gdrcheck check
lib:gin/01-MP+put+strongsig.litmus``, from a directory that is not the checkout.

The wheel is built from a copy of the checkout (``pip wheel .``, as ``pip install .``
builds it: in this environment when its setuptools can, else in pip's isolated build
environment, which fetches setuptools from the configured index), unpacked, and run
with only the unpacked wheel on ``PYTHONPATH`` (its dependencies are this
environment's), so that nothing of the checkout is importable. About 30-60 s on the
project machine.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = sorted(p.relative_to(ROOT / "litmus").as_posix()
                 for p in (ROOT / "litmus").rglob("*.litmus"))
DOCS = sorted(p.name for p in (ROOT / "docs").glob("*.md"))


def _can_build_here() -> bool:
    """setuptools >= 70.1 (or >= 68 with wheel): the wheel builds here, without pip's
    isolated build environment."""
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    major, minor = (int(x) for x in version.split(".")[:2])
    if (major, minor) >= (70, 1):
        return True
    try:
        importlib.metadata.version("wheel")
    except importlib.metadata.PackageNotFoundError:
        return False
    return (major, minor) >= (68, 0)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("wheel-docs")
    src = base / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
        "out", ".venv*"))
    dist = base / "dist"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GDRCHECK_SPECS")}
    no_isolation = ["--no-build-isolation"] if _can_build_here() else []
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", *no_isolation,
                           "-q", "-w", str(dist), str(src)],
                          cwd=base, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (whl,) = dist.glob("gdrcheck-*.whl")
    unpacked = base / "site"
    zipfile.ZipFile(whl).extractall(unpacked)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return {"wheel": whl, "site": unpacked, "cwd": elsewhere}


def _gdrcheck(w: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GDRCHECK_SPECS", "PYTHONHOME")}
    env["PYTHONPATH"] = str(w["site"])
    env["GDRCHECK_CACHE_DIR"] = "off"
    return subprocess.run([sys.executable, "-m", "gdrcheck", *args], cwd=w["cwd"], env=env,
                          capture_output=True, text=True, timeout=300)


def test_the_wheel_carries_the_documents_and_the_library(wheel: dict[str, Path]) -> None:
    names = set(zipfile.ZipFile(wheel["wheel"]).namelist())
    assert {"gdrcheck/docs/tutorial.md", "gdrcheck/docs/litmus-format.md"} <= names
    assert {f"gdrcheck/docs/{n}" for n in DOCS} <= names
    assert {f"gdrcheck/library/{rel}" for rel in LIBRARY} <= names


def test_the_unpacked_wheel_is_what_runs(wheel: dict[str, Path]) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHOME"}
    env["PYTHONPATH"] = str(wheel["site"])
    out = subprocess.run([sys.executable, "-c", "import gdrcheck; print(gdrcheck.__file__)"],
                         cwd=wheel["cwd"], env=env, capture_output=True, text=True,
                         timeout=60).stdout.strip()
    assert Path(out).resolve().is_relative_to(wheel["site"].resolve()), out


def test_docs_lists_and_prints_the_shipped_documents(wheel: dict[str, Path]) -> None:
    listing = _gdrcheck(wheel, "docs")
    assert listing.returncode == 0, listing.stderr
    first = [line.split()[0] for line in listing.stdout.splitlines()[:2]]
    assert first == ["tutorial", "litmus-format"], listing.stdout
    page = _gdrcheck(wheel, "docs", "litmus-format")
    assert page.returncode == 0, page.stderr
    assert page.stdout == (ROOT / "docs" / "litmus-format.md").read_text(encoding="utf-8")
    tutorial = _gdrcheck(wheel, "docs", "tutorial.md")
    assert tutorial.stdout.startswith("# Tutorial"), tutorial.stdout[:200]


def test_the_readme_command_works_from_the_wheel(wheel: dict[str, Path]) -> None:
    listed = _gdrcheck(wheel, "library", "gin/01-")
    assert listed.stdout.split() == ["lib:gin/01-MP+put+strongsig.litmus"], listed.stdout
    # Expect=gin-api:Forbidden,gin-gdaki:Forbidden,... (R-GIN-2, R-GIN-10): exit 0 when
    # every entry is met
    proc = _gdrcheck(wheel, "check", "lib:gin/01-MP+put+strongsig.litmus", "--model", "all")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in proc.stdout.splitlines() if line.startswith("│")}
    assert rows["gin-api"] == rows["gin-gdaki"] == rows["gin-proxy"] == "Forbidden", rows
