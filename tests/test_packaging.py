"""The built package works on its own (issue 12): the sdist and the wheel carry the
models (gdrcheck/specs/*.cat) and the litmus library (gdrcheck/library/**), and a wheel
installed in a fresh virtualenv finds them from another directory, with the checkout
nowhere on its path.

The wheel is built the way ``python -m build`` builds it: an sdist first (from a copy of
the checkout, so that the checkout gets no build/ or egg-info), then the wheel from the
unpacked sdist. The build runs in this environment when it can (setuptools >= 68 with
``bdist_wheel``), else pip builds it in an isolated environment, fetching setuptools
from the configured index as ``pip install .`` does. The virtualenv sees this
environment's packages (z3, lark, click, rich, hypothesis, distributed) through a
``.pth`` file that names this environment's site-packages directories, and gets only
the wheel (``--no-deps``), so nothing is downloaded for it. Not
``--system-site-packages``: from inside a virtualenv that gives the base interpreter's
packages, not this environment's (issue 24: ``No module named 'lark'`` in a fresh
virtualenv); and a ``.pth`` line only adds a directory to the path, so the ``.pth``
files there (an editable install of the checkout) are not run. About 15-30 s on the
project machine (2 cores).
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from gdrcheck.cat.loader import available_models

ROOT = Path(__file__).resolve().parents[1]

SHIPPED_MODELS = sorted(p.stem for p in (ROOT / "specs").glob("*.cat"))
LIBRARY = sorted(p.relative_to(ROOT / "litmus").as_posix()
                 for p in (ROOT / "litmus").rglob("*.litmus"))


def _run(argv: list[str], cwd: Path, env: dict[str, str] | None = None,
         check: bool = True) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(argv)} failed ({proc.returncode}):\n{proc.stdout}\n"
                    f"{proc.stderr}")
    return proc


def _can_build_here() -> bool:
    """setuptools >= 68 (pyproject's build-system) that can make wheels."""
    try:
        version = importlib.metadata.version("setuptools")
    except importlib.metadata.PackageNotFoundError:
        return False
    major, minor = (int(x) for x in version.split(".")[:2])
    if (major, minor) < (68, 0):
        return False
    if (major, minor) >= (70, 1):  # bdist_wheel is part of setuptools since 70.1
        return True
    try:
        importlib.metadata.version("wheel")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def _clean_env() -> dict[str, str]:
    """This environment without what would point gdrcheck at the checkout."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "GDRCHECK_SPECS", "PYTHONHOME")}
    env["GDRCHECK_CACHE_DIR"] = "off"
    return env


def _site_dirs() -> list[str]:
    """This environment's site-packages directories (a virtualenv's own, else the
    interpreter's; the user's when Python reads it), where gdrcheck's dependencies
    are."""
    dirs = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"],
            *site.getsitepackages()]
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dict.fromkeys(dirs) if os.path.isdir(d)]


def _see_this_environment(python: Path) -> None:
    """Make the virtualenv of ``python`` import this environment's packages, after its
    own (the wheel's gdrcheck comes first)."""
    purelib = _run([str(python), "-c", "import sysconfig; "
                    "print(sysconfig.get_paths()['purelib'])"], cwd=python.parent,
                   env=_clean_env()).stdout.strip()
    (Path(purelib) / "gdrcheck-test-deps.pth").write_text("\n".join(_site_dirs()) + "\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The sdist, the wheel built from it, and a virtualenv with the wheel installed."""
    base = tmp_path_factory.mktemp("packaging")
    src = base / "src"
    shutil.copytree(ROOT, src, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis",
        "out", ".venv*"))
    env = _clean_env()
    dist = base / "dist"
    dist.mkdir()
    _run([sys.executable, "-c", "import sys; from setuptools import build_meta as b; "
          "print(b.build_sdist(sys.argv[1]))", str(dist)], cwd=src, env=env)
    (sdist,) = dist.glob("gdrcheck-*.tar.gz")
    no_isolation = ["--no-build-isolation"] if _can_build_here() else []
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", *no_isolation,
          "-w", str(dist), str(sdist)], cwd=base, env=env)
    (wheel,) = dist.glob("gdrcheck-*.whl")
    env_dir = base / "venv"
    venv.create(env_dir, symlinks=True)
    python = env_dir / "bin" / "python"
    _see_this_environment(python)
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--force-reinstall", "--no-index", str(wheel)], cwd=base, env=env)
    elsewhere = base / "elsewhere"
    elsewhere.mkdir()
    return {"sdist": sdist, "wheel": wheel, "python": python,
            "gdrcheck": env_dir / "bin" / "gdrcheck", "cwd": elsewhere}


def test_the_sdist_carries_the_models_and_the_library(built: dict[str, Path]) -> None:
    with tarfile.open(built["sdist"]) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
    for name in SHIPPED_MODELS:
        assert members[f"gdrcheck/specs/{name}.cat"].isfile(), name
    for rel in LIBRARY:
        assert members[f"gdrcheck/library/{rel}"].isfile(), rel


def test_the_wheel_carries_the_models_and_the_library(built: dict[str, Path]) -> None:
    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    assert {f"gdrcheck/specs/{n}.cat" for n in SHIPPED_MODELS} <= names
    assert {f"gdrcheck/library/{rel}" for rel in LIBRARY} <= names
    assert {"gdrcheck/litmus/litmus.lark", "gdrcheck/cat/cat.lark"} <= names
    # the kernel front end's headers (docs/kernels.md)
    headers = ROOT / "gdrcheck" / "kernel" / "include"
    assert {f"gdrcheck/kernel/include/{p.relative_to(headers).as_posix()}"
            for p in headers.rglob("*") if p.is_file()} <= names


def test_the_installed_package_is_the_wheel_not_the_checkout(built: dict[str, Path]) -> None:
    out = _run([str(built["python"]), "-c", "import gdrcheck, sys; print(gdrcheck.__file__); "
                "from gdrcheck.cat.loader import SPECS_DIR; print(SPECS_DIR); "
                "from gdrcheck.analysis.suite import LIBRARY_DIR; print(LIBRARY_DIR); "
                "print(sys.path)"], cwd=built["cwd"], env=_clean_env()).stdout.splitlines()
    venv_dir = built["python"].parent.parent.resolve()
    for line in out[:3]:
        assert Path(line).resolve().is_relative_to(venv_dir), out
    paths = [Path(p).resolve() for p in ast.literal_eval(out[3]) if p]
    assert not any(p == ROOT or p.is_relative_to(ROOT) for p in paths), out[3]
    assert (Path(out[1]) / "x86tso.cat").is_file()
    assert (Path(out[2]) / "classic" / "SB.litmus").is_file()


def test_models_are_found_from_another_directory(built: dict[str, Path]) -> None:
    out = _run([str(built["gdrcheck"]), "models", "--long"], cwd=built["cwd"],
               env=_clean_env()).stdout
    listed = {cells[1].strip() for line in out.splitlines()
              if line.startswith("│") and len(cells := line.split("│")) > 2} - {""}
    assert listed == set(available_models()), out  # the checkout's models, every one
    assert {"sc", "x86tso", "ptx", "lsa", "gin-api", "gin-gdaki", "nvshmem-ibgda"} <= listed


def test_check_gives_the_library_verdicts(built: dict[str, Path]) -> None:
    # the installed library's copies, by the path importlib.resources gives
    library = Path(_run([str(built["python"]), "-c", "from gdrcheck.analysis.suite import "
                         "LIBRARY_DIR; print(LIBRARY_DIR)"], cwd=built["cwd"],
                        env=_clean_env()).stdout.strip())
    sb = library / "classic" / "SB.litmus"
    # Expect=x86tso:Allowed,sc:Forbidden (Intel SDM Vol.3A §8.2.3.4 Example 8-3; Lamport 1979)
    for model, verdict in (("x86tso", "Allowed"), ("sc", "Forbidden")):
        proc = _run([str(built["gdrcheck"]), "check", str(sb), "-m", model],
                    cwd=built["cwd"], env=_clean_env())
        assert f"Verdict SB {model} {verdict}" in proc.stdout, proc.stdout
        assert f"Expect SB {model}: {verdict} -> {verdict} ok" in proc.stdout
    # a GIN test, every model of its Expect= line (R-GIN-2, R-GIN-10: Forbidden; exit 0 means
    # every entry met)
    gin = library / "gin" / "01-MP+put+strongsig.litmus"
    proc = _run([str(built["gdrcheck"]), "check", str(gin)], cwd=built["cwd"],
                env=_clean_env(), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Verdict 01-MP+put+strongsig gin-api Forbidden" in proc.stdout
