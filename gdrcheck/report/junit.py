"""The JUnit XML report of ``gdrcheck run --junit``."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from gdrcheck.batch.summary import BatchReport


def write_junit(report: BatchReport, path: Path) -> None:
    """JUnit XML: one testcase per job (classname: the file, name: test name and model);
    a failure when an Expect= or Liveness= entry is not met, an error for an Error line."""
    mismatches: dict[str, list[str]] = {}
    for m in report.mismatches():
        what = "Liveness" if m.kind == "liveness" else "Expect"
        mismatches.setdefault(m.key, []).append(f"{what} {m.want}, got {m.got}")
    suite = ET.Element("testsuite", name="gdrcheck", tests=str(len(report.records)),
                       failures=str(len(mismatches)), errors=str(len(report.errors)),
                       skipped="0", time=f"{report.seconds:.3f}")
    for key in sorted(report.records):
        rec = report.records[key]
        case = ET.SubElement(suite, "testcase", classname=str(rec.get("file")),
                             name=f"{rec.get('test') or '?'} {rec.get('model')}",
                             time=f"{float(rec.get('time') or 0):.6f}")
        if rec.get("verdict") == "Error":
            err = ET.SubElement(case, "error", message=str(rec.get("reason") or "")
                                .splitlines()[0] if rec.get("reason") else "error")
            err.text = str(rec.get("reason") or "")
        elif key in mismatches:
            fail = ET.SubElement(case, "failure", message="; ".join(mismatches[key]))
            detail = [f"verdict {rec.get('verdict')}"]
            if rec.get("axioms"):
                detail.append("axioms: " + ", ".join(rec["axioms"]))
            if rec.get("flags"):
                detail.append("flags: " + ", ".join(rec["flags"]))
            if rec.get("liveness"):
                detail.append("liveness: " + ", ".join(rec["liveness"]))
            if rec.get("reason"):
                detail.append(f"reason: {rec['reason']}")
            fail.text = "\n".join(detail)
    root = ET.Element("testsuites", tests=suite.get("tests", "0"),
                      failures=suite.get("failures", "0"), errors=suite.get("errors", "0"),
                      time=suite.get("time", "0"))
    root.append(suite)
    ET.indent(root)
    path.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
