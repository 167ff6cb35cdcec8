"""Third-party GIN backends written as one .cat file (issue 15 item 3, docs/backends.md).

A backend is found on the search path with ``-I DIR`` (``gdrcheck models -I DIR`` lists
it, ``--model all -I DIR`` runs it), includes the project's building blocks from
specs/, and is tested against the API contract with ``gdrcheck refines``. The shipped
example is specs/gin-efa.cat (NCCL GIN over AWS EFA); its expected verdicts below are
the library's ``Expect=`` entries, each derived from a source line cited there.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec, _load
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.cat.loader import SPECS_DIR
from gdrcheck.cli import main
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[2]
GIN = ROOT / "litmus" / "gin"
MP_STRONG = str(GIN / "01-MP+put+strongsig.litmus")

# A vendor backend written from the building blocks alone: a NIC that releases at the
# doorbell (like GDAKI), one RC queue per (context, peer), PCIe and GPUDirect as the
# project's layers say. Five lines of its own.
ACME = """"ACME RC NIC (a test backend)"
(* @accepts: PTX GIN *)
variant "acme-no-doorbell-fence" "the doorbell does not release: only the caller's fences count"
include "ptx75-defs.cat"
include "gin-base.cat"
include "gin-version.cat"
let issue-rel = issue-to-nic
if "acme-no-doorbell-fence" then
  let issue-rel = user-release; issue-to-nic
end
include "gin-impl.cat"
"""


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


@pytest.fixture
def vendor_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory outside specs/ with two backends: a copy of gin-efa.cat under another
    name, and the ACME backend above."""
    d = tmp_path / "vendor"
    d.mkdir()
    shutil.copy(SPECS_DIR / "gin-efa.cat", d / "vendor-efa.cat")
    (d / "acme-nic.cat").write_text(ACME)
    _load.cache_clear()
    yield d
    _load.cache_clear()


def _rows(out: str) -> dict[str, list[str]]:
    """model -> cells of the rows of the rich tables in ``out``."""
    rows: dict[str, list[str]] = {}
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) >= 5 and cells[0] not in ("model", ""):
            rows[cells[0]] = cells
    return rows


def test_models_lists_a_backend_from_an_include_dir(vendor_dir: Path) -> None:
    code, out, err = run("models", "--long", "-I", str(vendor_dir))
    assert code == 0, out + err
    flat = " ".join(out.split())
    assert "vendor-efa" in flat and "acme-nic" in flat
    assert "NCCL GIN over AWS EFA" in flat
    assert "acme-no-doorbell-fence" in flat
    # without -I they are not there
    code, out, _ = run("models")
    assert code == 0 and "vendor-efa" not in out and "acme-nic" not in out


def test_model_all_runs_the_backends_of_an_include_dir(vendor_dir: Path) -> None:
    code, out, err = run("check", MP_STRONG, "--model", "all", "-I", str(vendor_dir),
                         "--format", "json")
    assert code == 0, out + err
    verdicts = {r["model"]: r["verdict"] for r in json.loads(out)}
    # R-GIN-2: the signal covers its own put (every GIN model agrees, and both
    # backends of the directory take part)
    assert verdicts["vendor-efa"] == "Forbidden"
    assert verdicts["acme-nic"] == "Forbidden"
    assert verdicts["gin-api"] == "Forbidden"
    assert {"gin-efa", "gin-gdaki", "gin-proxy"} <= set(verdicts)


def test_a_vendor_variant_changes_the_verdict(vendor_dir: Path) -> None:
    """A store, then a put of it with a strong signal (given=thread): without a release
    before the doorbell the NIC may read the old value (R-GIN-13, the obligation
    gin-gdaki+gdaki-release-emulated fails the same way)."""
    f = str(GIN / "MP+store+put-sig-release-emulated.litmus")
    code, out, err = run("check", f, "-I", str(vendor_dir), "--model",
                         "acme-nic,acme-nic+acme-no-doorbell-fence", "--format", "json")
    assert code == 0, out + err
    got = {r["model"]: r["verdict"] for r in json.loads(out)}
    assert got == {"acme-nic": "Forbidden", "acme-nic+acme-no-doorbell-fence": "Allowed"}


def test_an_include_dir_shadows_specs(tmp_path: Path) -> None:
    """-I comes first: a gin-efa.cat there replaces the shipped one."""
    d = tmp_path / "shadow"
    d.mkdir()
    (d / "gin-efa.cat").write_text('"shadow"\n(* @accepts: PTX GIN *)\nacyclic po as po\n')
    test = tmp_path / "mp.litmus"  # the program of gin/01 without its Expect= lines
    test.write_text("GIN MP\n{ x = 0; buf@0 = 1; S : signal; }\n"
                    " P0@cta 0,gpu 0,node 0 | P1@cta 0,gpu 1,node 1 ;\n"
                    " gin.put c0, x@1, buf, sig=S | gin.wait_signal S, 1 ;\n"
                    " | ld.relaxed.sys r0, x ;\nexists (1:r0 = 0)\n")
    _load.cache_clear()
    code, out, err = run("check", str(test), "--model", "gin-efa", "-I", str(d),
                         "--format", "json")
    _load.cache_clear()
    assert code == 0, out + err
    assert json.loads(out)[0]["verdict"] == "Allowed"  # no GIN axiom at all


# --------------------------------------------------------------------------
# gin-efa: verdicts with cited expectations
# --------------------------------------------------------------------------

# (test, model, verdict, source). Each is also an Expect= entry of the library file
# (checked below), whose comment gives the derivation.
CASES: list[tuple[str, str, str, str]] = [
    ("03-MP+put+put-weaksig", "gin-efa", "Forbidden",
     "aws-ofi-nccl@2daf7d30 nccl_ofi_gin_api.cpp:651 'the plugin's signals are always strong';"
     " nccl_ofi_gin.cpp:1650-1659 in-order retirement"),
    ("03-MP+put+put-weaksig", "gin-efa+ofi-weak-signal-mode", "Allowed",
     "aws-ofi-nccl 98f73fd4 (PR #1229): 'regardless of earlier traffic'"),
    ("04-MP+put+put-strongsig", "gin-efa+ofi-weak-signal-mode", "Allowed",
     "aws-ofi-nccl 98f73fd4 (PR #1229)"),
    ("04-MP+put+put-strongsig", "gin-efa+efa-gda", "Undefined",
     "NVIDIA/nccl@5067397c gin_host.cc:194-197; R-GIN-6"),
    ("08-WAW+put+put-sig", "gin-efa", "Allowed",
     "NVIDIA/nccl@6727ed4d gin_efa_gda.h 'EFA SRD is unordered'"),
    ("09-MP+put+put-flag", "gin-efa", "Allowed",
     "SRD unordered; nccl_ofi_gin.cpp:1622-1790 orders only signals"),
    ("11-MP+signal+signal-strong", "gin-efa", "Forbidden",
     "nccl_ofi_gin.cpp:1655-1659 'Strict ordering means later seq nums also have to wait'"),
    ("13-reuse+put+flush", "gin-efa", "Forbidden",
     "NVIDIA/nccl@5067397c gin_proxy.h:46-66, gin_host_proxy.cc:141-148"),
    ("get+flush_async+wait", "gin-efa", "Forbidden",
     "NVIDIA/nccl@5067397c gin_proxy.h:308-336"),
    ("get+flush_async+wait", "gin-efa+efa-gda", "Allowed",
     "NVIDIA/nccl@6727ed4d gin_efa_gda.h: 'Stub: FlushAsync, Wait.'"),
    ("MP+put-sig+flush+signal-otherctx-pr1249", "gin-efa", "Allowed",
     "aws-ofi-nccl@2daf7d30 nccl_ofi_gin_reqs.cpp:199-243"),
    ("MP+put-sig+flush+signal-otherctx-pr1249", "gin-efa+ofi-before-pr1249", "Forbidden",
     "aws-ofi-nccl 7cd04367 (PR #1249); nccl_ofi_gin_reqs.cpp:187-239 at 681f57b3"),
]


@pytest.mark.parametrize("name,model,verdict,source", CASES,
                         ids=[f"{c[0]}:{c[1]}" for c in CASES])
def test_gin_efa_verdict(name: str, model: str, verdict: str, source: str) -> None:
    test = load_litmus(str(GIN / f"{name}.litmus"))
    spec = ModelSpec.parse(model)
    listed = {(e.model, e.variants, e.verdict) for e in test.expectations}
    assert (spec.name, spec.variants, verdict) in listed, (
        f"{name}: the library does not record {model}:{verdict} ({source})")
    res = check_test(test, spec, options=CheckOptions())
    assert res.verdict == verdict, f"{name} under {model}: {res.verdict} ({source})"


# --------------------------------------------------------------------------
# gin-efa against the API contract
# --------------------------------------------------------------------------


def _refines(impl: str, spec: str, *extra: str) -> tuple[int, dict[str, Any]]:
    code, out, err = run("refines", impl, spec, str(GIN), "--format", "json", *extra)
    assert code in (0, 1), out + err
    return code, json.loads(out)


def test_gin_efa_refines_the_api_on_the_gin_library() -> None:
    code, rep = _refines("gin-efa", "gin-api", "--states")
    assert code == 0 and rep["refines"] and rep["counts"]["violations"] == 0
    assert rep["counts"]["compared"] >= 45


def test_the_weak_signal_mode_does_not_refine_the_api() -> None:
    """OFI_NCCL_GIN_STRONG_SIGNAL=0 made every signal weak: a strong signal no longer
    covers the earlier puts (R-GIN-3)."""
    code, rep = _refines("gin-efa+ofi-weak-signal-mode", "gin-api")
    assert code == 1
    hit = {v["test"] for v in rep["violations"]}
    assert {"04-MP+put+put-strongsig", "04b-MP+put+signal", "11-MP+signal+signal-strong"} <= hit


def test_efa_gda_falls_short_only_at_flush_async() -> None:
    """Under the setting NCCL requires for EFA-GDA (ginStrongSignalsRequired=false), the
    one outcome the API forbids and EFA-GDA allows is the flushAsync + wait of a get."""
    code, rep = _refines("gin-efa+efa-gda", "gin-api+strong-signals-not-required")
    assert code == 1
    assert [v["test"] for v in rep["violations"]] == ["get+flush_async+wait"]
