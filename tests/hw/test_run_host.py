"""The host side of ``gdrcheck hw run`` on the CPU, with tests/hw/fakecupy.py standing in
for CuPy: memory per GPU, each location's initial value in the memory of the GPU that owns
it, one launch per GPU with its own groups, the outputs of the GPUs added up, the final
values read from their owners, and the one-GPU path as before (issue 7)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import gdrcheck.hw.run as hwrun
from gdrcheck.cli import main
from gdrcheck.errors import UnsupportedError
from gdrcheck.hw.codegen import generate
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import load_litmus, parse_litmus
from hw import fakecupy
from hw.fakecupy import FakeCupy

ROOT = Path(__file__).resolve().parents[2]
LSA01 = ROOT / "litmus" / "lsa" / "01-MP+st+rel.sys.litmus"


def fake_for(test: A.Test, devices: int, value: int = 7, stand_in: bool = False,
             writers: dict[str, int] | None = None) -> FakeCupy:
    """A fake CuPy for ``test``; ``writers``: location -> the thread the fake kernel makes
    store 1000 + its device there."""
    k = generate(test, stand_in=stand_in, multi_gpu=not stand_in)
    group_of = {t: g for g, members in enumerate(k.groups) for t in members}
    by_index = {k.locations.index(loc): th for loc, th in (writers or {}).items()}
    return FakeCupy(devices, [t for t, _ in k.regs], group_of, value, k.owners, by_index)


def test_two_gpus_one_launch_each_outputs_added_up(monkeypatch: pytest.MonkeyPatch) -> None:
    test = load_litmus(str(LSA01))
    fake = fake_for(test, devices=2)
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    res = hwrun.run_test(test, iterations=1000, config=hwrun.Config(batch=400))
    # P1 (the reader, group 1) runs on GPU 1 only: its registers come from GPU 1's output
    assert res.histogram == {"1:r1=7; 1:r0=7": 1000} and res.iterations == 1000
    assert res.gpus == 2 and not res.one_device and not res.stand_in
    assert sorted(fake.runtime.peers_enabled) == [(0, 1), (1, 0)]
    per_batch = [(x.device, x.group_first, x.group_count) for x in fake.launches]
    assert per_batch == [(0, 0, 1), (1, 1, 1)] * 3  # 400 + 400 + 200 instances
    for x in fake.launches:
        assert x.locs_device == x.device and len(set(x.lbase)) == 2
        assert x.stream.non_blocking is False  # each GPU's default stream
    # each batch: both GPUs synchronized before the launches (memory ready) and after
    assert fakecupy.syncs.count(0) >= 6 and fakecupy.syncs.count(1) >= 6


def test_initial_and_final_values_live_on_the_owner(monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("GIN T\n{ x@1 = 5; y@0 = 3; }\n P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 0 ;\n"
            " st.relaxed.sys x@1, 1 | ld.relaxed.sys r0, y@0 ;\n"
            "exists (x@1 = 5 /\\ y@0 = 3 /\\ 1:r0 = 0)\n")
    test = parse_litmus(text, "t.litmus")
    fake = fake_for(test, devices=2, value=0)
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    res = hwrun.run_test(test, iterations=50, config=hwrun.Config(batch=50))
    # nothing stored here: the final values are the initial ones, written into and read
    # back from the memory of the GPU each location lives on
    assert res.histogram == {"x@1=5; y@0=3; 1:r0=0": 50}, res.histogram
    for layout in (0, 1):
        # P0, on GPU 0, stores to x@1: through lbase, into GPU 1's memory, read back there
        fake = fake_for(test, devices=2, value=0, writers={"x@1": 0})
        monkeypatch.setattr(hwrun, "_cupy", lambda f=fake: f)
        res = hwrun.run_test(test, iterations=30, config=hwrun.Config(batch=30, layout=layout))
        assert res.histogram == {"x@1=1000; y@0=3; 1:r0=0": 30}, res.histogram


def test_one_device_runs_every_launch_on_gpu_0(monkeypatch: pytest.MonkeyPatch) -> None:
    test = load_litmus(str(LSA01))
    fake = fake_for(test, devices=1)
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    res = hwrun.run_test(test, iterations=100, one_device=True,
                         config=hwrun.Config(batch=100))
    assert res.histogram == {"1:r1=7; 1:r0=7": 100} and res.one_device and res.gpus == 2
    assert [(x.device, x.group_first) for x in fake.launches] == [(0, 0), (0, 1)]
    assert all(x.stream.non_blocking for x in fake.launches)  # streams of their own
    assert len(set(fake.launches[0].lbase)) == 2  # each GPU of the test its own memory
    assert fake.runtime.peers_enabled == []


def test_too_few_gpus_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    test = load_litmus(str(LSA01))
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake_for(test, devices=1))
    with pytest.raises(UnsupportedError, match="runs on 2 GPUs and this machine has 1"):
        hwrun.run_test(test, iterations=10)


def test_one_gpu_and_the_stand_in_keep_one_launch(monkeypatch: pytest.MonkeyPatch) -> None:
    ptx = load_litmus(str(ROOT / "litmus" / "ptx" / "MP+weaks.litmus"))
    fake = fake_for(ptx, devices=1)
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    res = hwrun.run_test(ptx, iterations=64, config=hwrun.Config(batch=64))
    assert res.gpus == 1 and len(fake.launches) == 1 and fake.launches[0].group_count == 2
    assert fake.launches[0].stream.non_blocking is False
    assert res.histogram == {"1:r1=7; 1:r2=7": 64}
    lsa = load_litmus(str(LSA01))
    fake2 = fake_for(lsa, devices=1, stand_in=True)
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake2)
    res2 = hwrun.run_test(lsa, iterations=64, stand_in=True, config=hwrun.Config(batch=64))
    assert res2.stand_in and res2.gpus == 1 and len(fake2.launches) == 1


def test_cli_one_device_run_is_marked(monkeypatch: pytest.MonkeyPatch,
                                      tmp_path: Path) -> None:
    test = load_litmus(str(LSA01))
    fake = fake_for(test, devices=1, value=1)  # r1 = r0 = 1: a state lsa allows
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    out = tmp_path / "r.jsonl"
    r = CliRunner().invoke(main, ["hw", "run", str(LSA01), "--one-device", "--model", "lsa",
                                  "--iterations", "100", "--batch", "100",
                                  "--results", str(out)])
    assert r.exit_code == 0, r.output
    assert "ONE DEVICE" in r.output and "consistent with lsa" in r.output
    report = CliRunner().invoke(main, ["hw", "report", str(out), "--model", "lsa"])
    assert "2 launches on one GPU" in report.output


def test_a_ptx_test_on_two_gpus_run_as_a_stand_in_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = ("PTX T\n{ x=0; }\n P0@cta 0,gpu 0 | P1@cta 0,gpu 1 ;\n st.relaxed.sys x, 1 | "
            "ld.relaxed.sys r0, x ;\nexists (1:r0 = 1)\n")
    test = parse_litmus(text, "t.litmus")
    fake = fake_for(test, devices=1, stand_in=True)
    monkeypatch.setattr(hwrun, "_cupy", lambda: fake)
    res = hwrun.run_test(test, iterations=10, stand_in=True, config=hwrun.Config(batch=10))
    assert res.stand_in and res.gpus == 1
