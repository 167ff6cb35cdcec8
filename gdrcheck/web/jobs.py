"""What one request of the page computes (run in a worker process,
:mod:`gdrcheck.web.sandbox`): plain dicts in, plain dicts out (they pickle and they
are the JSON the page reads).

Every answer has ``error``: None, or ``{"message", "line", "col", "location"}`` for bad
input (the position in the test's text, for the editor to mark), as
:func:`gdrcheck.web.served.error_json` lets a client see it. Models are named, never
given by path: only those of :func:`gdrcheck.web.served.served_models`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gdrcheck.analysis.models import ModelSpec, accepts
from gdrcheck.analysis.options import CheckOptions
from gdrcheck.analysis.sweep import sweep_test
from gdrcheck.errors import InputError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus import parse_litmus
from gdrcheck.report.html import result_view
from gdrcheck.report.sweep import sweep_json
from gdrcheck.web.served import FILENAME, BadModelName, model_spec, served_models
from gdrcheck.web.served import error_json as _error_json


def _dirs(req: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(d) for d in req.get("include_dirs", ()))


def error_json(err: InputError, include_dirs: tuple[str, ...] = ()) -> dict[str, Any]:
    return _error_json(err, include_dirs)


def _options(req: dict[str, Any]) -> CheckOptions:
    return CheckOptions(timeout=req.get("solver_timeout"),
                        include_dirs=tuple(req.get("include_dirs", ())),
                        liveness=req.get("liveness") is True)


def _test(req: dict[str, Any]) -> A.Test:
    return parse_litmus(str(req.get("text", "")), FILENAME)


def _specs(test: A.Test, models: Sequence[str], include_dirs: Sequence[str]
           ) -> list[ModelSpec]:
    """The served models asked for; none: every served model that accepts the test."""
    served = served_models(include_dirs)
    if models:
        try:
            return [model_spec(m, served) for m in models]
        except BadModelName as err:  # the app refuses these before: here for the API
            raise InputError(str(err)) from None
    return [ModelSpec(name) for name, m in served.items() if accepts(m, test)]


def _variant_names(name: str, include_dirs: Sequence[str]) -> frozenset[str]:
    return served_models(include_dirs)[name].variant_names


def check_job(req: dict[str, Any]) -> dict[str, Any]:
    """``{text, models, variants, liveness}`` -> ``{test, results: [{model, record,
    explanation, explanation_text, dot, hang_dot, error}], error}``; ``liveness`` (or a
    ``Liveness=`` entry of the model) asks the liveness question too: the record's
    ``live``, the explanation's ``liveness`` and, for a Hang, ``hang_dot``, the stuck
    execution's picture."""
    options = _options(req)
    dirs = _dirs(req)
    try:
        test = _test(req)
        specs = _specs(test, req.get("models", ()), options.include_dirs)
    except InputError as err:
        return {"test": None, "results": [], "error": error_json(err, dirs)}
    variants = [str(v) for v in req.get("variants", ())]
    results: list[dict[str, Any]] = []
    for spec in specs:
        # the variants the page ticked that this model has (as --model all does)
        try:
            names = _variant_names(spec.name, options.include_dirs)
            extra = [v for v in variants if v in names]
            view = result_view(test, spec, extra, options)
            results.append({"model": view["record"]["model"], **view, "error": None})
        except InputError as err:
            results.append({"model": str(spec), "record": None,
                            "error": error_json(err, dirs)})
        except RecursionError:
            results.append({"model": str(spec), "record": None, "error": {
                "message": "the test is too large to check (recursion limit)",
                "line": None, "col": None, "location": FILENAME}})
    return {"test": test.name, "results": results, "error": None}


def sweep_job(req: dict[str, Any]) -> dict[str, Any]:
    """``{text, models}`` -> ``{test, sweeps: [gdrcheck.sweep records], error}``."""
    options = _options(req)
    dirs = _dirs(req)
    try:
        test = _test(req)
        specs = _specs(test, req.get("models", ()), options.include_dirs)
    except InputError as err:
        return {"test": None, "sweeps": [], "error": error_json(err, dirs)}
    sweeps: list[dict[str, Any]] = []
    for spec in specs:
        try:
            sweeps.append({"model": str(spec), **sweep_json(test, sweep_test(test, spec,
                                                                             options)),
                           "error": None})
        except InputError as err:
            sweeps.append({"model": str(spec), "error": error_json(err, dirs)})
    return {"test": test.name, "sweeps": sweeps, "error": None}


def fix_job(req: dict[str, Any]) -> dict[str, Any]:
    """``{text, models, variants, liveness}`` -> ``{test, fix: gdrcheck.fix/1 record,
    error}``; with ``liveness``, the repair of a hang (gdrcheck/analysis/fix_liveness.py)."""
    from gdrcheck.analysis.fix import fix
    from gdrcheck.report.fix import fix_json

    options = _options(req)
    try:
        test = _test(req)
        variants = [str(v) for v in req.get("variants", ())]
        specs = [s.with_variants([v for v in variants
                                  if v in _variant_names(s.name, options.include_dirs)])
                 for s in _specs(test, req.get("models", ()), options.include_dirs)]
        if options.liveness:  # repair a hang (gdrcheck fix --liveness)
            from gdrcheck.analysis.fix_liveness import fix_liveness

            got = fix_liveness(test, specs, options=options)
        else:
            got = fix(test, specs, options=options)
        return {"test": test.name, "fix": fix_json(test, got), "error": None}
    except InputError as err:
        return {"test": None, "fix": None, "error": error_json(err, _dirs(req))}


def accepting_job(req: dict[str, Any]) -> dict[str, Any]:
    """``{text}`` -> ``{models: the names of the models that accept it, error}``."""
    try:
        test = _test(req)
        return {"models": [name for name, m in served_models(_dirs(req)).items()
                           if accepts(m, test)], "error": None}
    except InputError as err:
        return {"models": [], "error": error_json(err, _dirs(req))}


def models_catalogue(include_dirs: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Every served model: name, title, what it accepts, its variants."""
    models = served_models(include_dirs)
    return [{"name": name, "title": m.title or "", "accepts": sorted(m.accepts),
             "variants": [{"name": v.name, "doc": v.doc} for v in m.variants]}
            for name, m in sorted(models.items())]
