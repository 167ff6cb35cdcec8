"""``gdrcheck run ... --html DIR`` (gdrcheck/report/html.py): a static report that
opens from the file system."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from gdrcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_html_report(tmp_path: Path) -> None:
    sb = tmp_path / "SB.litmus"
    # one Expect= entry that is wrong on purpose (SB is Allowed under x86-TSO: Intel SDM
    # 8.2.3.4), so the matrix has a mismatch to highlight
    sb.write_text((ROOT / "litmus/classic/SB.litmus").read_text().replace(
        "Expect=x86tso:Allowed,sc:Forbidden", "Expect=x86tso:Forbidden,sc:Forbidden"))
    gin = ROOT / "litmus/gin/09-MP+put+put-flag.litmus"
    out = tmp_path / "report"
    r = CliRunner().invoke(main, ["run", str(sb), str(gin),
                                  "-o", str(tmp_path / "r.jsonl"), "-j", "0",
                                  "--html", str(out)])
    assert r.exit_code == 1, r.output  # the wrong entry is not met
    index = (out / "index.html").read_text()
    assert index.count("<tr>") == 3  # the header and two tests
    assert '<td class="mismatch">' in index and "expected Forbidden" in index
    assert '<td class="met">' in index
    assert re.search(r"\d+\.\d ms", index)
    assert "1 expectation(s) not met" in index
    pages = sorted((out / "tests").iterdir())
    assert len(pages) == 2
    gin_page = next(p for p in pages if "09-MP" in p.name).read_text()
    assert "gin.put c0, x@1, a" in gin_page  # the test's text
    assert "gin-gdaki+pcie-ro: Allowed" in gin_page
    assert 'class="dot"' in gin_page and "digraph G {" in gin_page
    assert "may overtake: Relaxed Ordering" in gin_page
    sb_page = next(p for p in pages if "SB" in p.name).read_text()
    assert "rejected by" in sb_page  # sc's explanation: the cycle
    # relative paths only: the renderer is next to the pages
    assert '<script src="../static/viz-global.js">' in gin_page
    assert (out / "static" / "viz-global.js").stat().st_size > 1_000_000
    assert "http://" not in gin_page and "https://" not in gin_page
