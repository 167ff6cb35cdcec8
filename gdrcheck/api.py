"""The Python API: check a litmus test from a program or a test suite.

::

    import gdrcheck

    out = gdrcheck.check("litmus/classic/SB.litmus", "x86tso")
    out.verdict                      # 'Allowed'
    print(out.explanation)           # herd's layout, with the witness execution

    gdrcheck.assert_forbidden("litmus/gin/01-MP+put+strongsig.litmus", "gin-api")

``test`` is a path (``str`` or :class:`~pathlib.Path`), litmus text (a string that
contains a newline and starts with the dialect word ``X86``, ``PTX`` or ``GIN``), or a
parsed :class:`~gdrcheck.litmus.ast.Test`. ``model`` is ``NAME`` or
``NAME+VARIANT+...``; ``None`` runs the first model of the test's ``Expect=`` line
(with its variants), or else the dialect's default model (``x86tso``, ``ptx``,
``gin-api``). To run every model of the ``Expect=`` line, use :func:`expected_models`.

Bad input (a file that cannot be read, a malformed test or model, an unknown model or
variant, a model that does not describe the test) raises
:class:`~gdrcheck.errors.InputError`, whose ``str()`` is ``file:line:col: message``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gdrcheck.analysis.assumed import check_assumed
from gdrcheck.analysis.models import (
    ALL,
    DEFAULT_MODEL,
    ModelSpec,
    expected_specs,
    expected_verdict,
)
from gdrcheck.analysis.options import DEFAULT_OPTIONS, CheckOptions, split_list
from gdrcheck.engine.result import Result, Verdict, Witness
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.report.herd import format_report, format_witness

if TYPE_CHECKING:
    from gdrcheck.kernel.test import KernelTest

__all__ = [
    "DEFAULT_MODEL", "CheckOptions", "Outcome", "Verdict", "assert_allowed",
    "assert_forbidden", "assert_verdict", "check", "check_kernel", "expected_models", "fix",
    "kernel_test", "load_test",
]

ARCHS = ("X86", "PTX", "GIN")


@dataclass
class Outcome:
    """The answer of one model on one test."""

    test: str
    """The test's name."""
    model: str
    """The model as run: ``NAME+VARIANT+...`` (with the ``variants`` argument applied)."""
    verdict: Verdict
    """Allowed, Forbidden, Required, Undefined or Unknown (a ``str`` enum)."""
    states: list[dict[str, int]] | None
    """Every final state (``states=True``, or the explicit engine); None otherwise."""
    witness: Witness | None
    """One consistent execution (one that reaches the outcome, when there is one)."""
    axioms: list[str]
    """The named checks of the model that rule the outcome out."""
    flags: list[str]
    """The flags that fired (the verdict is then Undefined)."""
    liveness: list[str]
    """Why a blocking wait or a spin loop may hang forever (empty: none found)."""
    vacuous: bool
    """No consistent execution completes: the verdict holds of nothing."""
    vacuity: str | None
    """When vacuous: why (the waits that no execution satisfies)."""
    expected: str | None
    """The test's ``Expect=`` verdict for exactly this model and variants, if any."""
    result: Result
    """The engine's raw answer."""
    explanation: str
    """Why: herd's layout with the witness and ``Rejected-by`` line; with
    ``explain=True``, the text of ``gdrcheck explain`` (the cycle that each axiom
    ruling the outcome out finds, with the rules of its edges) when
    :mod:`gdrcheck.explain` is there."""

    @property
    def live(self) -> str | None:
        """The liveness answer when it was asked (``liveness=True``, a ``Liveness=``
        entry): ``Hang``, ``Live`` or ``Unknown`` (docs/liveness.md); else None."""
        return self.result.live

    @property
    def allowed(self) -> bool:
        return self.verdict == "Allowed"

    @property
    def forbidden(self) -> bool:
        return self.verdict == "Forbidden"

    @property
    def met(self) -> bool | None:
        """Whether the verdict is the expected one (None: no ``Expect=`` entry)."""
        return None if self.expected is None else self.expected == self.verdict

    @property
    def witness_text(self) -> str | None:
        """The witness execution as printed by ``--show-witness``."""
        return None if self.witness is None else "\n".join(format_witness(self.witness))

    def __str__(self) -> str:
        return self.explanation


def _looks_like_text(s: str) -> bool:
    if "\n" not in s:
        return False
    words = s.lstrip().split(None, 1)
    return bool(words) and words[0] in ARCHS


def load_test(test: str | Path | A.Test) -> A.Test:
    """A parsed test from a path, litmus text, or a Test (returned as is)."""
    from gdrcheck.litmus import load_litmus, parse_litmus

    if isinstance(test, A.Test):
        return test
    if isinstance(test, Path):
        return load_litmus(test)
    if not isinstance(test, str):
        raise InputError(f"expected a litmus file path, litmus text or a parsed Test, "
                         f"not {type(test).__name__}")
    if _looks_like_text(test):
        return parse_litmus(test, None)
    if "\n" in test:
        first = test.lstrip().split("\n", 1)[0][:40]
        raise InputError(f"litmus text must start with the dialect ({', '.join(ARCHS)}), "
                         f"not '{first}'")
    if not test.strip():
        raise InputError("empty litmus file name")
    return load_litmus(test)


def expected_models(test: str | Path | A.Test) -> list[str]:
    """The models of the test's ``Expect=`` lines (``NAME+VARIANT``), in order, without
    repeats; the dialect's default model when there are none."""
    return [str(spec) for spec in expected_specs(load_test(test))]


def _spec(t: A.Test, model: str | ModelSpec | None, variants: Sequence[str]) -> ModelSpec:
    if model is None:
        if t.expectations:
            e = t.expectations[0]
            spec = ModelSpec(e.model, e.variants)
        else:
            spec = ModelSpec(DEFAULT_MODEL[t.arch])
    elif isinstance(model, ModelSpec):
        spec = model
    elif isinstance(model, str):
        if "," in model:
            raise InputError(f"one model at a time, not '{model}' (call check once per model)")
        spec = ModelSpec.parse(model)
        if spec.name == ALL:
            raise InputError("model 'all' is a command-line shorthand: call check once per "
                             "model (gdrcheck.analysis.models.accepting_models lists them)")
    else:
        raise InputError(f"a model is a name such as 'ptx' or 'gin-gdaki+pcie-ro', "
                         f"not {type(model).__name__}")
    return spec.with_variants(split_list(variants))


def explanation_text(t: A.Test, spec: ModelSpec, options: CheckOptions) -> str:
    """The text of ``gdrcheck explain`` for ``t`` under ``spec``."""
    from gdrcheck.analysis.explain import explain
    from gdrcheck.report.explain import format_explanation

    return format_explanation(explain(t, spec, (), options))


def _explanation(t: A.Test, spec: ModelSpec, res: Result, explain: bool,
                 options: CheckOptions) -> str:
    text = format_report(t, res, show_witness=True)
    if not explain:
        return text
    try:
        return explanation_text(t, spec, options)
    except InputError:
        raise
    except Exception as exc:  # an explanation that fails must not lose the verdict
        return f"{text}\n(explain failed: {type(exc).__name__}: {exc})"


def check(
    test: str | Path | A.Test,
    model: str | ModelSpec | None = None,
    *,
    variants: Sequence[str] | str = (),
    explain: bool = False,
    options: CheckOptions = DEFAULT_OPTIONS,
    **changes: Any,
) -> Outcome:
    """The verdict of ``test`` under ``model`` (see the module's documentation).

    ``variants`` are added to the model's (``"pcie-ro"``, ``["pcie-ro", "ack-placed"]``
    or ``"pcie-ro,ack-placed"``). How to answer is a
    :class:`~gdrcheck.analysis.options.CheckOptions` (``options``), or its fields given
    by name: ``engine`` (``"auto"``, the default: the explicit engine for a test of
    at most 32 candidate executions, z3 otherwise; ``"smt"``; ``"explicit"``),
    ``timeout`` in seconds (an expired timeout gives ``Unknown``), ``states`` (list
    every final state), ``include_dirs`` (searched for models first, ``-I``), ``unroll``. Raises
    :class:`~gdrcheck.errors.InputError` on bad input.
    """
    options = options.overlay(**changes)
    t = load_test(test)
    return _outcome(t, None, _spec(t, model, variants), explain, options)


def _outcome(t: A.Test, kept: A.Test | None, spec: ModelSpec, explain: bool,
             options: CheckOptions) -> Outcome:
    """:func:`check`'s work; ``kept``: a kernel's test with its extraction's assumption
    kept (gdrcheck/analysis/assumed.py), None for any other test."""
    try:
        res = check_assumed(t, kept, spec, options=options)
    except InputError as err:
        raise err.with_context(t.path, t.source) from None
    except RecursionError:
        raise InputError("the test is too large to check (recursion limit)", t.path) from None
    return Outcome(
        test=t.name,
        model=str(spec),
        verdict=res.verdict,
        states=None if res.states is None else [dict(s) for s in res.states],
        witness=res.witness,
        axioms=list(res.axioms),
        flags=list(res.flags),
        liveness=list(res.liveness),
        vacuous=res.vacuous,
        vacuity=res.vacuity,
        expected=expected_verdict(t, spec),
        result=res,
        explanation=_explanation(t, spec, res, explain, options),
    )


def kernel_test(path: str | Path, kernel: str, ranks: int, *, grid: int = 1, block: int = 1,
                nodes: Sequence[int] | None = None,
                args: dict[str, int | Sequence[int]] | None = None, init: str | None = None,
                check: str | None = None, defines: Sequence[str] = (),
                clang: str | None = None, host_order: str = "final") -> A.Test:
    """The litmus test extracted from the CUDA kernel ``kernel`` of ``path`` (docs/kernels.md;
    ``gdrcheck kernel --emit-litmus``). ``args``: each scalar parameter's value, one for
    every rank or a sequence of one per rank. Raises :class:`~gdrcheck.errors.InputError`."""
    return _load_kernel(path, kernel, ranks, grid, block, nodes, args, init, check, defines,
                        clang, host_order).test


def _load_kernel(path: str | Path, kernel: str, ranks: int, grid: int, block: int,
                 nodes: Sequence[int] | None, args: dict[str, int | Sequence[int]] | None,
                 init: str | None, check: str | None, defines: Sequence[str],
                 clang: str | None, host_order: str) -> KernelTest:
    from gdrcheck.kernel import load_kernel, make_run

    given = []
    for name, value in (args or {}).items():
        values = [value] if isinstance(value, int) else list(value)
        given.append(f"{name}={','.join(str(v) for v in values)}")
    run = make_run(kernel, ranks, grid, block,
                   ",".join(str(n) for n in nodes) if nodes is not None else None,
                   tuple(given), init=init, check=check, defines=tuple(defines),
                   host_order=host_order)
    return load_kernel(path, run, clang)


def check_kernel(path: str | Path, kernel: str, ranks: int,
                 model: str | ModelSpec | None = None, *, grid: int = 1, block: int = 1,
                 nodes: Sequence[int] | None = None,
                 args: dict[str, int | Sequence[int]] | None = None, init: str | None = None,
                 check_fn: str | None = None, defines: Sequence[str] = (),
                 clang: str | None = None, host_order: str = "final", **kw: Any) -> Outcome:
    """:func:`check` of the kernel's extracted test (:func:`kernel_test`): Allowed when some
    execution fails a device assert (or the ``check_fn`` host check), Forbidden when none can,
    Undefined when the model flags misuse."""
    kt = _load_kernel(path, kernel, ranks, grid, block, nodes, args, init, check_fn, defines,
                      clang, host_order)
    test = kt.test
    if model is None and not test.expectations and any(
            isinstance(i, A.ShmemCall) for th in test.threads for i in th.instrs):
        model = "nvshmem-api"
    variants = kw.pop("variants", ())
    explain = kw.pop("explain", False)
    options = kw.pop("options", DEFAULT_OPTIONS).overlay(**kw)
    return _outcome(test, kt.kept, _spec(test, model, variants), explain, options)


def assert_verdict(test: str | Path | A.Test, verdict: str,
                   model: str | ModelSpec | None = None, *, allow_vacuous: bool = False,
                   **kw: Any) -> Outcome:
    """:func:`check`, then raise AssertionError unless the verdict is ``verdict``. The
    message names the test, the model, both verdicts, and gives the explanation (the
    ``Rejected-by`` axioms of a Forbidden outcome, the witness of an Allowed one).

    A vacuous answer (no execution completes: a wait that nothing satisfies, a
    barrier only one rank joins) proves nothing and fails too, unless
    ``allow_vacuous=True``."""
    out = check(test, model, **kw)
    if out.vacuous and not allow_vacuous:
        raise AssertionError(
            f"{out.test} under {out.model}: {out.verdict}, but vacuous: {out.vacuity} "
            f"(allow_vacuous=True accepts it)\n{out.explanation}")
    if out.verdict != verdict:
        raise AssertionError(
            f"{out.test} under {out.model}: expected {verdict}, got {out.verdict}"
            + (f" (rejected by {', '.join(out.axioms)})" if out.axioms else "")
            + (f" (flags: {', '.join(out.flags)})" if out.flags else "")
            + f"\n{out.explanation}")
    return out


def assert_live(test: str | Path | A.Test, model: str | ModelSpec | None = None,
                **kw: Any) -> Outcome:
    """Raise AssertionError unless no blocking wait or spin loop of ``test`` can block
    forever in a fair execution under ``model`` (the liveness question,
    docs/liveness.md): a Hang names the stuck threads and what they keep reading; an
    Unknown (the loop bound or the time limit did not cover every execution) fails too,
    with its reason. Keyword arguments are those of :func:`check`."""
    kw["liveness"] = True
    out = check(test, model, **kw)
    if out.live != "Live":
        why = ("; ".join(out.liveness) if out.live == "Hang"
               else out.result.live_reason or "no answer")
        raise AssertionError(f"{out.test} under {out.model}: expected Live, got {out.live} "
                             f"({why})")
    return out


def assert_hangs(test: str | Path | A.Test, model: str | ModelSpec | None = None,
                 **kw: Any) -> Outcome:
    """Raise AssertionError unless some wait or spin loop of ``test`` can block forever
    in a fair execution under ``model`` (a regression test that a known hang is still
    found)."""
    kw["liveness"] = True
    out = check(test, model, **kw)
    if out.live != "Hang":
        why = out.result.live_reason or "every wait and spin returns"
        raise AssertionError(f"{out.test} under {out.model}: expected Hang, got {out.live} "
                             f"({why})")
    return out


def assert_forbidden(test: str | Path | A.Test, model: str | ModelSpec | None = None,
                     **kw: Any) -> Outcome:
    """Raise AssertionError unless ``model`` forbids the outcome of ``test``'s condition
    (no consistent execution reaches it) — and some execution completes (else the
    answer is vacuous: ``allow_vacuous=True`` accepts it). Keyword arguments are those of
    :func:`check`."""
    return assert_verdict(test, "Forbidden", model, **kw)


def assert_allowed(test: str | Path | A.Test, model: str | ModelSpec | None = None,
                   **kw: Any) -> Outcome:
    """Raise AssertionError unless ``model`` allows the outcome of ``test``'s condition
    (some consistent execution reaches it, and no flag fires)."""
    return assert_verdict(test, "Allowed", model, **kw)


def fix(test: str | Path | A.Test, models: Sequence[str | ModelSpec] | str | None = None, *,
        every_variant: bool = False, max_cost: int | None = None, all_minimal: bool = False,
        options: CheckOptions = DEFAULT_OPTIONS, **changes: Any) -> Any:
    """The cheapest catalogued strengthenings that make ``test``'s outcome Forbidden under
    every model of ``models`` (default: the models of its ``Expect=`` lines): a
    :class:`gdrcheck.analysis.fix.FixResult` (``status``, ``repairs`` with their edits,
    cost, repaired test, ``text`` (the file edited) and verdicts, ``queries``; and, when
    nothing works, ``reorderings``). See ``gdrcheck fix``."""
    from gdrcheck.analysis.fix import fix as run_fix

    t = load_test(test)
    if models is None:
        specs = expected_specs(t)
    elif isinstance(models, str):
        specs = [ModelSpec.parse(m) for m in split_list(models)]
    else:
        specs = [ModelSpec.of(m) for m in models]
    return run_fix(t, specs, every_variant=every_variant, max_cost=max_cost,
                   all_minimal=all_minimal, options=options.overlay(**changes))
