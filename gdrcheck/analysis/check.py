"""One test under one model: lower → encode → solve.

This is the one place that strings the layers together; the CLI, the Python API,
batch jobs and the other questions all call :func:`check_test`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gdrcheck.analysis.models import ModelSpec, check_model_names, expected_verdict, get_model
from gdrcheck.analysis.options import AUTO_EXPLICIT_BOUND, DEFAULT_OPTIONS, CheckOptions
from gdrcheck.cat.loader import FEATURES, LoadedModel
from gdrcheck.engine.deadline import Deadline, Expired
from gdrcheck.engine.result import Result, Verdict
from gdrcheck.errors import InputError, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.features import test_features
from gdrcheck.lower import lower

if TYPE_CHECKING:
    from gdrcheck.engine.explicit import ExplicitEngine
    from gdrcheck.engine.smt import SmtEngine


def _feature_words(features: frozenset[str]) -> str:
    """``GIN calls``, ``X86 instructions``, ``PTX instructions and GIN calls``."""
    kinds = [f"{f} {'calls' if f in ('GIN', 'SHMEM', 'HOST') else 'instructions'}"
             for f in FEATURES if f in features]
    return " and ".join(kinds)


def chosen_variants(test: A.Test, spec: ModelSpec, variants: Sequence[str] = ()
                    ) -> frozenset[str]:
    """The variants on for one run: the model's, the extra ones, the test's Variant=."""
    return frozenset(spec.variants) | frozenset(variants) | frozenset(test.variants)


def prepare(test: A.Test, model: str | ModelSpec, variants: Sequence[str] = (),
            options: CheckOptions = DEFAULT_OPTIONS, tick: Callable[[], None] | None = None
            ) -> tuple[ModelSpec, LoadedModel, frozenset[str]]:
    """The model of one run, loaded and checked against the test: its spec, the loaded
    model and the variants on. Raises InputError for an unknown variant and
    UnsupportedError when the model does not describe the test; ``tick`` (a deadline's
    poll) bounds the loading of models not yet loaded."""
    spec = ModelSpec.of(model)
    check_model_names(test, options.include_dirs, tick)
    loaded = get_model(spec.name, options.include_dirs, tick)
    chosen = chosen_variants(test, spec, variants)
    unknown = sorted(v for v in chosen - loaded.variant_names
                     if v not in test.variants)  # a test may name variants of other models
    if unknown:
        known = ", ".join(sorted(loaded.variant_names)) or "none"
        raise InputError(f"model '{spec.name}' has no variant {', '.join(unknown)} "
                         f"(its variants: {known})")
    missing = test_features(test) - loaded.accepts
    if missing:
        raise UnsupportedError(
            f"model '{spec.name}' does not describe {_feature_words(missing)} (it accepts "
            f"{', '.join(f for f in FEATURES if f in loaded.accepts) or 'nothing'})",
            test.path,
        )
    return spec, loaded, chosen


def check_test(
    test: A.Test,
    model: str | ModelSpec,
    variants: Sequence[str] = (),
    options: CheckOptions = DEFAULT_OPTIONS,
    deadline: Deadline | None = None,
) -> Result:
    """The verdict of ``test`` under ``model`` (with the test's own Variant= lines).
    ``options.timeout`` bounds the whole of it, from here (loading the model, lowering,
    encoding, every solver call); a caller whose budget started earlier (the parsing of
    the test, a search) passes its ``deadline``."""
    if deadline is None:
        deadline = Deadline(options.timeout)
    try:
        spec, loaded, chosen = prepare(test, model, variants, options, deadline.tick)
    except Expired:
        return Result(test.name, str(model), options.engine, test.condition.quantifier,
                      Verdict.UNKNOWN, None, None, time=deadline.elapsed(),
                      reason="timeout while loading the model")
    # the model as run: with the extra variants and the test's own Variant= lines
    shown = spec.with_variants([*variants, *(v for v in test.variants
                                             if v in loaded.variant_names)])
    try:
        prog = lower(test, options.unroll, deadline.tick)
    except InputError as err:
        raise err.with_context(test.path, test.source) from None
    except Expired:
        return Result(test.name, str(shown), options.engine, test.condition.quantifier,
                      Verdict.UNKNOWN, None, None, time=deadline.elapsed(),
                      reason="timeout while lowering")
    eng: SmtEngine | ExplicitEngine
    engine = options.engine
    if engine == "auto":  # the portfolio: the enumerator for a tiny candidate space
        from gdrcheck.engine.explicit import candidate_bound

        engine = "explicit" if candidate_bound(prog) <= AUTO_EXPLICIT_BOUND else "smt"
    if engine == "explicit":  # each engine's module is imported when it runs
        from gdrcheck.engine.explicit import ExplicitEngine

        eng = ExplicitEngine(options.timeout)
    else:
        from gdrcheck.engine.smt import SmtEngine

        eng = SmtEngine(options.timeout)
    res = eng.run(prog, loaded.stmts, chosen, test, str(shown), states=options.states,
                  path_of=loaded.path_of, deadline=deadline)
    if res.vacuous:
        from gdrcheck.analysis.vacuity import explain_vacuity

        why = explain_vacuity(test, loaded, chosen, options, deadline)
        res.blocked = list(why.blocked)
        res.vacuity = why.message(options.unroll)
        # a wait that no execution satisfies hangs (docs/litmus-format.md §13)
        res.liveness = [*res.liveness, *(f"never satisfied: {w}" for w in why.blocked)]
    if options.liveness or expected_verdict(test, spec, variants, liveness=True) is not None:
        ask_liveness(res, test, loaded, chosen, options, deadline)
    return res


def ask_liveness(res: Result, test: A.Test, loaded: LoadedModel, chosen: frozenset[str],
                 options: CheckOptions, deadline: Deadline) -> None:
    """Add the liveness question's answer to ``res`` (``live``, the stuck threads in
    ``liveness``). A liveness flag of the model or a wait that no execution satisfies is
    a hang whatever the search finds."""
    from gdrcheck.analysis.liveness import liveness

    ans = liveness(test, loaded, chosen, options, deadline)
    res.liveness = [*res.liveness, *(r for r in ans.reasons() if r not in res.liveness)]
    if res.liveness:
        res.live = "Hang"
    else:
        res.live, res.live_reason = ans.answer, ans.reason
