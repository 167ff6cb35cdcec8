"""The fuzz targets in the default suite (issue 25 item 9): every seed of the corpus
replayed through its target, and a short coverage-guided run of each target under
atheris (skipped, with the reason, where atheris is not installed). The long run is
documented in docs/fuzzing.md."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.targets import TARGETS, corpus

ROOT = Path(__file__).parents[2]
RUN = Path(__file__).with_name("run.py")
SHORT_RUN_S = 4
"""Seconds of fuzzing per target in the default suite."""


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_the_corpus_replays(name: str) -> None:
    if name == "web":
        pytest.importorskip("starlette", reason="the web target needs the web extra")
    seeds = corpus(name)
    assert seeds, f"tests/fuzz/corpus/{name} is empty"
    for seed in seeds:
        TARGETS[name](seed.read_bytes())


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_a_short_fuzz_run(name: str, tmp_path: Path) -> None:
    if importlib.util.find_spec("atheris") is None:
        pytest.skip("atheris is not installed (pip install -e '.[fuzz]')")
    if name == "web":
        pytest.importorskip("starlette", reason="the web target needs the web extra")
    r = subprocess.run([sys.executable, str(RUN), name, "--work", str(tmp_path),
                        f"-max_total_time={SHORT_RUN_S}", "-print_final_stats=1"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    found = sorted(p.name for p in tmp_path.iterdir() if p.name.split("-")[0] in
                   ("crash", "timeout", "oom", "leak"))
    assert r.returncode == 0 and not found, (found, r.stderr[-3000:])
    assert "stat::number_of_executed_units" in r.stderr
