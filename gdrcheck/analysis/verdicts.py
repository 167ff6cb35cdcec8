"""Every library test under every model of its ``Expect=`` line, family by family
(the data of ``gdrcheck verdicts``; :mod:`gdrcheck.report.verdicts` writes the page).

Each ``.litmus`` file of a directory (walked recursively) runs under each
``model+variants`` named in its ``Expect=`` entries; a family is one directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gdrcheck.analysis.check import check_test
from gdrcheck.analysis.models import ModelSpec
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions
from gdrcheck.errors import InputError
from gdrcheck.litmus import load_litmus


@dataclass(frozen=True)
class Cell:
    """One test under one model: the verdict (or ``Error``) and the expected one."""

    verdict: str
    expected: str
    error: str | None = None

    @property
    def met(self) -> bool:
        return self.verdict == self.expected


@dataclass
class VerdictRow:
    name: str
    path: Path
    cells: dict[str, Cell] = field(default_factory=dict)  # column (model+variants) -> cell


@dataclass
class Family:
    """The tests of one directory."""

    name: str
    path: Path
    rows: list[VerdictRow] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)  # unreadable files

    @property
    def cells(self) -> list[Cell]:
        return [c for r in self.rows for c in r.cells.values()]


def families_of(dirs: Sequence[Path]) -> list[tuple[str, Path, list[Path]]]:
    """(name, directory, files) per directory holding ``.litmus`` files, in order.
    A family is named by its path below the DIR it was found in (the DIR's own name
    for files directly in it)."""
    out: dict[Path, tuple[str, list[Path]]] = {}
    for root in dirs:
        for f in sorted(root.rglob("*.litmus") if root.is_dir() else [root]):
            rel = f.parent.relative_to(root) if root.is_dir() else Path(".")
            name = root.name if str(rel) == "." else rel.as_posix()
            out.setdefault(f.parent, (name, []))[1].append(f)
    return [(name, d, files) for d, (name, files) in out.items()]


def run_family(name: str, path: Path, files: Sequence[Path],
               options: CheckOptions = DEFAULT_OPTIONS) -> Family:
    fam = Family(name, path)
    for f in files:
        try:
            test = load_litmus(f)
        except InputError as err:
            fam.errors.append((f, err.render()))
            continue
        row = VerdictRow(test.name, f)
        for exp in test.expectations:
            spec = ModelSpec(exp.model, exp.variants)
            col = str(spec)
            if col not in fam.columns:
                fam.columns.append(col)
            try:
                verdict = check_test(test, spec, options=options).verdict
                row.cells[col] = Cell(verdict, exp.verdict)
            except InputError as err:
                row.cells[col] = Cell("Error", exp.verdict, err.message)
            except RecursionError:
                row.cells[col] = Cell("Error", exp.verdict, "recursion limit")
        fam.rows.append(row)
    return fam
