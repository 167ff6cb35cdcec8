"""pytest plugin: litmus files as tests (registered as the ``gdrcheck`` pytest11 plugin).

Each ``Expect=model{+variant}*:Verdict`` entry of a ``.litmus`` file becomes one test
item, ``FILE.litmus::MODEL+VARIANTS``, that checks the test under that model and fails
when the verdict differs (the message gives both verdicts, the axioms that rule the
outcome out, or the witness execution that reaches it). Each ``Liveness=`` entry becomes
an item ``FILE.litmus::liveness:MODEL+VARIANTS`` (``Hang`` when a blocking wait may block
forever under the model, else ``Live``). A file without such lines gives no item; a
file that does not parse is a collection error (``file:line:col: message``).

A CUDA file (``.cu``) with ``// gdrcheck:`` configuration lines (docs/kernels.md) is
collected by the same rules: each configuration is compiled and extracted, and each of its
``--expect`` and ``--liveness`` entries is an item ``FILE.cu::CONFIG::MODEL+VARIANTS``.

Collection is opt-in, so that installing gdrcheck does not change what an existing
test run collects:

- ``.litmus`` files named on the command line are always collected
  (``pytest litmus/gin/01-MP+put+strongsig.litmus``; a test of the shipped library by
  its ``lib:`` name, ``pytest lib:gin/01-MP+put+strongsig.litmus``);
- in directories (``testpaths``, or a directory on the command line), ``.litmus`` files
  are collected only with ``--litmus`` or the ini setting ``gdrcheck_litmus = true``;
- ``--no-litmus`` (or ``-p no:gdrcheck``) turns collection off altogether.

Options: ``--gdrcheck-engine auto|smt|explicit`` (default auto), ``--gdrcheck-timeout
SECONDS`` (an expired timeout gives Unknown: a failure), ``--gdrcheck-include DIR``
(``-I``: extra model directories); the ini settings ``gdrcheck_engine``, ``gdrcheck_timeout`` and
``gdrcheck_include`` are their defaults.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from gdrcheck.errors import InputError

if TYPE_CHECKING:
    from gdrcheck.analysis.models import ModelSpec
    from gdrcheck.analysis.options import CheckOptions
    from gdrcheck.engine.result import Result
    from gdrcheck.litmus import ast as A

# gdrcheck.analysis.options.ENGINES, repeated so that loading the plugin (in every pytest
# session of an environment where gdrcheck is installed) imports nothing of gdrcheck's
# layers (a test checks that the two agree)
ENGINES = ("smt", "explicit", "auto")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gdrcheck", "gdrcheck litmus tests")
    group.addoption("--litmus", action="store_true", dest="gdrcheck_litmus", default=None,
                    help="Collect the .litmus files of directories as tests (one per "
                    "Expect= entry).")
    group.addoption("--no-litmus", action="store_false", dest="gdrcheck_litmus", default=None,
                    help="Collect no .litmus file, not even those named on the command line.")
    group.addoption("--gdrcheck-engine", choices=ENGINES, default=None,
                    help="Engine for the litmus tests (default: auto).")
    group.addoption("--gdrcheck-timeout", type=float, default=None, metavar="SECONDS",
                    help="Solver timeout per litmus test and model (expired: Unknown).")
    group.addoption("--gdrcheck-include", action="append", default=None, metavar="DIR",
                    help="Extra directory to search for cat models (repeatable).")
    parser.addini("gdrcheck_litmus", "Collect the .litmus files of directories as tests.",
                  type="bool", default=False)
    parser.addini("gdrcheck_engine", "Engine for the litmus tests (smt, explicit or auto).",
                  default="auto")
    parser.addini("gdrcheck_timeout", "Solver timeout per litmus test and model (s).",
                  default="")
    parser.addini("gdrcheck_include", "Extra directories to search for cat models.",
                  type="paths", default=[])


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser,
                                  args: list[str]) -> None:
    """A test path of the shipped library (``pytest lib:gin/01-MP+put+strongsig.litmus``,
    ``pytest --litmus lib:gin``) becomes the file's path before pytest reads the paths;
    a ``lib:`` name that names nothing is left as is (pytest says it is not found)."""
    for k, arg in enumerate(args):
        if not arg.startswith("lib:"):
            continue
        from gdrcheck.litmus.library import resolve

        name, sep, rest = arg.partition("::")
        try:
            args[k] = str(resolve(name)) + sep + rest
        except InputError:
            pass


def _enabled(config: pytest.Config) -> bool | None:
    """True: collect every .litmus file; None: only those named on the command line;
    False: none."""
    opt = config.getoption("gdrcheck_litmus")
    if opt is not None:
        return bool(opt)
    return True if config.getini("gdrcheck_litmus") else None


def _named(config: pytest.Config, file_path: Path) -> bool:
    """Whether ``file_path`` was named on the command line (not found in a directory)."""
    named = config.stash.get(_NAMED, None)
    if named is None:
        named = set()
        for arg in config.args:
            p = Path(str(arg).split("::", 1)[0])
            if not p.is_absolute():
                p = config.invocation_params.dir / p
            named.add(p.resolve())
        config.stash[_NAMED] = named
    return file_path.resolve() in named


_NAMED = pytest.StashKey[set[Path]]()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix not in (".litmus", ".cu"):
        return None
    enabled = _enabled(parent.config)
    if enabled is False or (enabled is None and not _named(parent.config, file_path)):
        return None
    if file_path.suffix == ".cu":
        try:
            text = file_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        if "gdrcheck:" not in text:
            return None
        return KernelFile.from_parent(parent, path=file_path)
    return LitmusFile.from_parent(parent, path=file_path)


class LitmusMismatch(Exception):
    """A verdict that is not the expected one (reported without a traceback)."""


class LitmusFile(pytest.File):
    """A ``.litmus`` file: one item per ``Expect=`` and ``Liveness=`` entry."""

    def collect(self) -> Iterator[pytest.Item]:
        from gdrcheck.analysis.models import ModelSpec
        from gdrcheck.litmus import load_litmus

        test = load_litmus(self.path)
        self.test = test
        self.results: dict[str, Result] = {}
        seen: set[str] = set()

        def unique(name: str) -> str:
            base, n = name, 1
            while name in seen:
                n += 1
                name = f"{base}#{n}"
            seen.add(name)
            return name

        for e in test.expectations:
            spec = ModelSpec(e.model, e.variants)
            yield LitmusItem.from_parent(self, name=unique(str(spec)), spec=spec,
                                         want=e.verdict, liveness=False)
        for e in test.liveness_expectations:
            spec = ModelSpec(e.model, e.variants)
            yield LitmusItem.from_parent(self, name=unique(f"liveness:{spec}"), spec=spec,
                                         want=e.verdict, liveness=True)

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, InputError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)


class KernelFile(pytest.File):
    """A ``.cu`` file: one node per ``// gdrcheck:`` configuration."""

    def collect(self) -> Iterator[pytest.Collector]:
        from gdrcheck.kernel import file_runs, read_source

        for k, run in enumerate(file_runs(read_source(self.path)), 1):
            cfg = run.config
            name = f"{cfg.kernel}+r{cfg.ranks}g{cfg.grid}b{cfg.block}#{k}"
            yield KernelRun.from_parent(self, name=name, run=run)

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, InputError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)


class KernelRun(pytest.Collector):
    """One configuration of a kernel: its extracted test's ``Expect=``/``Liveness=``
    entries (the configuration's ``--expect``/``--liveness``) as items."""

    def __init__(self, *, run: Any, **kw: Any) -> None:
        super().__init__(**kw)
        self.run = run

    def collect(self) -> Iterator[pytest.Item]:
        from gdrcheck.analysis.models import ModelSpec
        from gdrcheck.kernel import load_kernel

        kt = load_kernel(self.path, self.run)
        self.test = kt.test
        self.kept = kt.kept  # the extraction's assumption (gdrcheck/analysis/assumed.py)
        self.results: dict[str, Result] = {}
        for e in self.test.expectations:
            spec = ModelSpec(e.model, e.variants)
            yield LitmusItem.from_parent(self, name=str(spec), spec=spec, want=e.verdict,
                                         liveness=False)
        for e in self.test.liveness_expectations:
            spec = ModelSpec(e.model, e.variants)
            yield LitmusItem.from_parent(self, name=f"liveness:{spec}", spec=spec,
                                         want=e.verdict, liveness=True)

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, InputError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)


class LitmusItem(pytest.Item):
    """One ``Expect=`` (or ``Liveness=``) entry of a litmus file."""

    def __init__(self, *, spec: ModelSpec, want: str, liveness: bool, **kw: Any) -> None:
        super().__init__(**kw)
        self.spec = spec
        self.want = want
        self.liveness = liveness

    def _options(self) -> CheckOptions:
        from gdrcheck.analysis.options import CheckOptions

        config = self.config
        engine = config.getoption("gdrcheck_engine") or config.getini("gdrcheck_engine")
        if engine not in ENGINES:
            raise InputError(f"gdrcheck_engine: unknown engine '{engine}' (choose from "
                             f"{', '.join(ENGINES)})")
        timeout = config.getoption("gdrcheck_timeout")
        if timeout is None and str(config.getini("gdrcheck_timeout")).strip():
            try:
                timeout = float(config.getini("gdrcheck_timeout"))
            except ValueError:
                raise InputError(f"gdrcheck_timeout: not a number of seconds: "
                                 f"'{config.getini('gdrcheck_timeout')}'") from None
        include = config.getoption("gdrcheck_include") or [
            str(p) for p in config.getini("gdrcheck_include")]
        return CheckOptions(engine=engine, timeout=timeout, include_dirs=tuple(include))

    def _result(self) -> Result:
        from gdrcheck.analysis.assumed import check_assumed

        parent = self.parent
        assert isinstance(parent, (LitmusFile, KernelRun))
        key = str(self.spec)
        if key not in parent.results:
            options = self._options()
            if isinstance(parent, KernelRun) and parent.run.unroll:  # its --unroll
                options = options.overlay(unroll=parent.run.unroll)
            try:
                kept = parent.kept if isinstance(parent, KernelRun) else None
                parent.results[key] = check_assumed(parent.test, kept, self.spec,
                                                    options=options)
            except InputError as err:
                raise err.with_context(str(self.path), parent.test.source) from None
            except RecursionError:
                raise InputError("the test is too large to check (recursion limit)",
                                 str(self.path)) from None
        return parent.results[key]

    def runtest(self) -> None:
        from gdrcheck.report.herd import format_result

        parent = self.parent
        assert isinstance(parent, (LitmusFile, KernelRun))
        test: A.Test = parent.test
        res = self._result()
        if self.liveness:
            got = res.liveness_answer
            if got != self.want:
                hang = ("waits that may hang: " + ", ".join(res.liveness) if res.liveness
                       else "every blocking wait returns")
                raise LitmusMismatch(f"{test.name} under {self.spec}: expected liveness "
                                     f"{self.want}, got {got} ({hang})")
            return
        if res.vacuous:
            raise LitmusMismatch(
                f"{test.name} under {self.spec}: {res.verdict}, but vacuous: "
                f"{res.vacuity or 'no execution completes'} — the verdict proves nothing\n"
                f"{format_result(test, res)}")
        if res.verdict != self.want:
            why = []
            if res.axioms and res.verdict in ("Forbidden", "Required"):
                why.append("rejected by " + ", ".join(res.axioms))
            if res.flags:
                why.append("flags: " + ", ".join(res.flags))
            if res.reason:
                why.append(res.reason)
            head = (f"{test.name} under {self.spec}: expected {self.want}, got {res.verdict}"
                    + (f" ({'; '.join(why)})" if why else ""))
            raise LitmusMismatch(f"{head}\n{format_result(test, res, show_witness=True)}")

    def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
        if isinstance(excinfo.value, LitmusMismatch):
            return str(excinfo.value)
        if isinstance(excinfo.value, InputError):
            return excinfo.value.render()
        return super().repr_failure(excinfo)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        kind = "liveness" if self.liveness else "expect"
        return self.path, None, f"{self.path.name}::{self.name} ({kind} {self.want})"
