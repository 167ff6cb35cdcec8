"""The static HTML report of ``gdrcheck run ... --html DIR``, and the view of one
result that it shares with ``gdrcheck serve`` (:func:`result_view`).

``DIR/index.html`` is a tests x models matrix: each cell the verdict, the ``Expect=``
verdict and the time, a mismatch (an expectation not met) highlighted. Each test has
a page ``DIR/tests/N-NAME.html`` with its text, its verdicts, the explanation of each
ruled-out outcome (the cycles with their rule ids) and the picture of each result,
drawn in the browser from DOT by the vendored Viz.js (``DIR/static/viz-global.js``,
copied from ``gdrcheck/web/static/vendor/``): the report opens from the file system,
with no network and no Graphviz install. The pictures are
:mod:`gdrcheck.report.graph`'s, the ones ``--graph`` writes.
"""

from __future__ import annotations

import html
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gdrcheck.analysis.drawing import drawing_of, hang_drawing
from gdrcheck.analysis.explain import explain
from gdrcheck.analysis.models import ModelSpec, expected_verdict
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.report.explain import explanation_json, format_explanation
from gdrcheck.report.graph import drawing_dot
from gdrcheck.report.json import result_json

VENDOR = Path(__file__).resolve().parents[1] / "web" / "static" / "vendor"
"""The vendored client-side files (package data of gdrcheck.web; read as files here,
the report does not import the web face)."""
RENDERER = "viz-global.js"


def result_view(test: A.Test, spec: ModelSpec, extra: Sequence[str] = (),
                options: CheckOptions = DEFAULT_OPTIONS) -> dict[str, Any]:
    """One test under one model as the page and the report show it: ``record``, the
    ``gdrcheck.check/2`` record with its expectation (as ``check --format json``);
    ``explanation``, the ``gdrcheck.explain/1`` record (its cycles without their
    executions) and ``explanation_text``, as ``gdrcheck explain`` prints it; ``dot``, the
    picture of ``check --graph``. Raises InputError as ``check_test`` does."""
    x = explain(test, spec, extra, options)
    res = x.result
    assert res is not None
    want = expected_verdict(test, spec, extra)
    met = None if want is None else (want == res.verdict and not res.vacuous)
    record = result_json(test, res, None if want is None else {"verdict": want, "met": met})
    ex = explanation_json(x)
    for c in ex["cycles"]:
        c.pop("execution", None)
    ex.pop("witness", None)
    if ex.get("liveness"):
        ex["liveness"].pop("execution", None)
    d = drawing_of(test, spec, res, extra, "witness", options, explanation=x)
    h = None if x.hang is None else hang_drawing(test, x.hang, options)
    return {"record": record, "explanation": ex, "explanation_text": format_explanation(x),
            "dot": None if d is None else drawing_dot(d),
            "hang_dot": None if h is None else drawing_dot(h)}


# --------------------------------------------------------------------------
# The static report
# --------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.mismatch { background: #fdd; font-weight: bold; }
td.met { background: #e6f6e6; }
td.error { background: #fec; }
.v-Allowed { color: #05a; } .v-Forbidden { color: #a30; } .v-Required { color: #060; }
.v-Undefined, .v-Unknown, .v-Error { color: #a60; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; }
.small { color: #666; font-size: 0.85em; }
.picture svg { max-width: 100%; height: auto; }
"""

RENDER_JS = """
window.addEventListener("load", function () {
  var pics = document.querySelectorAll("pre.dot");
  if (!pics.length) return;
  Viz.instance().then(function (viz) {
    pics.forEach(function (pre) {
      var box = document.getElementById(pre.dataset.target);
      try { box.appendChild(viz.renderSVGElement(pre.textContent)); }
      catch (e) { box.textContent = "could not draw: " + e; }
    });
  });
});
"""


def _e(s: object) -> str:
    return html.escape(str(s), quote=True)


def _page(title: str, body: str, static: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_e(title)}</title><style>{STYLE}</style>"
            f"<script src=\"{static}/{RENDERER}\"></script>"
            f"<script>{RENDER_JS}</script></head><body>\n{body}\n</body></html>\n")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_.+" else "_" for c in name)[:80]


def _cell(rec: Mapping[str, Any] | None) -> tuple[str, str]:
    """(class, html) of one matrix cell."""
    if rec is None:
        return "", ""
    verdict = str(rec.get("verdict"))
    exp = rec.get("expect")
    want = exp.get("verdict") if isinstance(exp, dict) else None
    cls = "error" if verdict == "Error" else (
        "" if want is None else "met" if exp.get("met") else "mismatch")  # type: ignore[union-attr]
    ms = rec.get("time")
    text = f"<span class=\"v-{_e(verdict)}\">{_e(verdict)}</span>"
    if want is not None:
        text += f"<br><span class=\"small\">expected {_e(want)}</span>"
    if isinstance(ms, int | float):
        text += f"<br><span class=\"small\">{ms * 1000:.1f} ms</span>"
    return cls, text


def write_html_report(records: Mapping[str, Mapping[str, Any]],
                      tests: Mapping[str, A.Test | None], out: str | Path,
                      variants: Sequence[str] = (),
                      options: CheckOptions = DEFAULT_OPTIONS) -> Path:
    """Write the report of a batch run (its records and tests by key, as
    :class:`gdrcheck.batch.summary.BatchReport` has them) to ``out``; returns
    ``out/index.html``. The pictures and explanations are made again here, one
    check per record, in this process."""
    root = Path(out)
    (root / "tests").mkdir(parents=True, exist_ok=True)
    (root / "static").mkdir(exist_ok=True)
    shutil.copyfile(VENDOR / RENDERER, root / "static" / RENDERER)
    shutil.copyfile(VENDOR / "LICENSES.md", root / "static" / "LICENSES.md")
    # rows: tests by file, in order; columns: models in order of appearance
    by_file: dict[str, dict[str, Mapping[str, Any]]] = {}
    models: list[str] = []
    test_of: dict[str, A.Test] = {}
    for key, rec in records.items():
        file = str(rec.get("file") or key.split("::", 1)[0])
        model = str(rec.get("model") or key.split("::", 1)[-1])
        by_file.setdefault(file, {})[model] = rec
        if model not in models:
            models.append(model)
        found = tests.get(key)
        if found is not None:
            test_of.setdefault(file, found)
    rows: list[str] = []
    mismatches = 0
    for n, (file, recs) in enumerate(sorted(by_file.items())):
        test = test_of.get(file)
        name = test.name if test is not None else Path(file).stem
        page = f"tests/{n:04d}-{_safe(name)}.html"
        cells = []
        for m in models:
            cls, text = _cell(recs.get(m))
            mismatches += cls == "mismatch"
            cells.append(f"<td class=\"{cls}\">{text}</td>")
        rows.append(f"<tr><th><a href=\"{_e(page)}\">{_e(name)}</a><br>"
                    f"<span class=\"small\">{_e(file)}</span></th>{''.join(cells)}</tr>")
        body = _test_page(file, test, recs, variants, options)
        (root / page).write_text(_page(name, body, "../static"), encoding="utf-8")
    head = "".join(f"<th>{_e(m)}</th>" for m in models)
    summary = (f"<p>{len(by_file)} test(s), {len(records)} result(s), "
               f"{mismatches} expectation(s) not met (highlighted).</p>")
    index = (f"<h1>gdrcheck report</h1>{summary}<table><tr><th>test</th>{head}</tr>"
             + "\n".join(rows) + "</table>")
    (root / "index.html").write_text(_page("gdrcheck report", index, "static"),
                                     encoding="utf-8")
    return root / "index.html"


def _test_page(file: str, test: A.Test | None, recs: Mapping[str, Mapping[str, Any]],
               variants: Sequence[str], options: CheckOptions) -> str:
    name = test.name if test is not None else Path(file).stem
    parts = [f"<p><a href=\"../index.html\">all tests</a></p><h1>{_e(name)}</h1>",
             f"<p class=\"small\">{_e(file)}</p>"]
    try:
        parts.append(f"<pre class=\"source\">{_e(Path(file).read_text(encoding='utf-8'))}</pre>")
    except OSError as err:
        parts.append(f"<p>the file could not be read: {_e(err)}</p>")
    rows = []
    for m, rec in recs.items():
        cls, text = _cell(rec)
        axioms = ", ".join(map(str, rec.get("axioms") or [])) or "-"
        rows.append(f"<tr><td>{_e(m)}</td><td class=\"{cls}\">{text}</td>"
                    f"<td>{_e(axioms)}</td><td>{_e(rec.get('reason') or '')}</td></tr>")
    parts.append("<h2>Verdicts</h2><table><tr><th>model</th><th>verdict</th>"
                 "<th>axioms</th><th>reason</th></tr>" + "".join(rows) + "</table>")
    if test is None:
        return "\n".join(parts)
    for i, (m, rec) in enumerate(recs.items()):
        if rec.get("verdict") in ("Error", "Unknown"):
            continue
        try:
            view = result_view(test, ModelSpec.parse(m), variants, options)
        except (InputError, RecursionError) as err:
            parts.append(f"<h2>{_e(m)}</h2><p>{_e(err)}</p>")
            continue
        parts.append(f"<h2>{_e(m)}: {_e(rec.get('verdict'))}</h2>"
                     f"<pre class=\"explanation\">{_e(view['explanation_text'])}</pre>")
        if view["dot"]:
            parts.append(f"<div class=\"picture\" id=\"pic{i}\"></div>"
                         f"<pre class=\"dot\" data-target=\"pic{i}\" hidden>"
                         f"{_e(view['dot'])}</pre>")
    return "\n".join(parts)
