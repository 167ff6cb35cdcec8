"""Which models answer a test: ``--model``, the test's ``Expect=`` lines, ``all``.

A model is named ``NAME+VARIANT+...`` (:class:`ModelSpec`) on the command line, in
``Expect=`` and ``Liveness=`` entries and in the API; the loaded models are cached
per search path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextvars import ContextVar
from functools import lru_cache
from pathlib import Path

from gdrcheck.analysis.options import split_list
from gdrcheck.cat.loader import (
    FEATURES,
    LoadedModel,
    available_models,
    load_model,
    model_available,
    search_path,
)
from gdrcheck.dataclass_cache import dataclass
from gdrcheck.errors import InputError, Pos, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.features import test_features

ALL = "all"
"""``--model all``: every model that accepts the test."""

DEFAULT_MODEL = {"X86": "x86tso", "PTX": "ptx", "GIN": "gin-api"}
"""The model run when none is given and the test has no ``Expect=`` line."""


@dataclass(frozen=True)
class ModelSpec:
    """``name+variant+variant`` as written in ``--model`` and in ``Expect=``."""

    name: str
    variants: tuple[str, ...] = ()

    @staticmethod
    def parse(text: str) -> ModelSpec:
        parts = [p.strip() for p in text.split("+")]
        if not parts[0] or any(not p for p in parts):
            raise InputError(f"bad model name '{text}' (expected NAME or NAME+VARIANT+...)")
        return ModelSpec(parts[0], tuple(parts[1:]))

    @staticmethod
    def of(model: str | ModelSpec) -> ModelSpec:
        return model if isinstance(model, ModelSpec) else ModelSpec.parse(model)

    def with_variants(self, variants: Sequence[str]) -> ModelSpec:
        """This model with ``variants`` added (in order, without repeats)."""
        extra = tuple(v for v in dict.fromkeys(variants) if v not in self.variants)
        return ModelSpec(self.name, self.variants + extra)

    def __str__(self) -> str:
        return "+".join((self.name, *self.variants))


_TICK: ContextVar[Callable[[], None] | None] = ContextVar("gdrcheck_model_tick", default=None)
"""The poll of the deadline of the load in progress (the cache's key leaves it out)."""


@lru_cache(maxsize=64)
def _load(name: str, include_dirs: tuple[str, ...]) -> LoadedModel:
    return load_model(name, include_dirs, _TICK.get())


def _available(include_dirs: tuple[str, ...]) -> tuple[str, ...]:
    """The model names on the search path (cached per search path, which depends on
    GDRCHECK_SPECS too)."""
    return _available_on(tuple(search_path(include_dirs)))


@lru_cache(maxsize=64)
def _available_on(dirs: tuple[Path, ...]) -> tuple[str, ...]:
    return tuple(available_models(dirs[:-1]))


def _is_available(name: str, include_dirs: tuple[str, ...]) -> bool:
    """``name in _available(include_dirs)``, without listing every model (reading every
    model file's first token cost a small check about 0.01 s)."""
    return _is_available_on(name, tuple(search_path(include_dirs)))


@lru_cache(maxsize=256)
def _is_available_on(name: str, dirs: tuple[Path, ...]) -> bool:
    return model_available(name, dirs[:-1])


def get_model(name: str, include_dirs: Sequence[str] = (),
              tick: Callable[[], None] | None = None) -> LoadedModel:
    """The loaded model ``name`` (cached per search path); ``tick``, a deadline's poll,
    bounds its parsing when it is not yet loaded (what it raises is not cached)."""
    token = _TICK.set(tick)
    try:
        return _load(name, tuple(include_dirs))
    finally:
        _TICK.reset(token)


def load_models(include_dirs: Sequence[str] = (), tick: Callable[[], None] | None = None
                ) -> tuple[dict[str, LoadedModel], list[InputError]]:
    """Every model on the search path, by name, and the errors of those that do not load;
    ``tick`` (a deadline's poll) bounds the loading."""
    models: dict[str, LoadedModel] = {}
    errors: list[InputError] = []
    for name in available_models(include_dirs):
        try:
            models[name] = get_model(name, include_dirs, tick)
        except InputError as err:
            errors.append(err)
    return models, errors


def accepts(model: LoadedModel, test: A.Test) -> bool:
    """Whether ``model`` describes every kind of instruction ``test`` uses."""
    return test_features(test) <= model.accepts


def accepting_models(test: A.Test, include_dirs: Sequence[str] = ()) -> list[str]:
    """The names of the available models that accept ``test`` (sorted). Raises the
    error of the first model that does not load."""
    models, errors = load_models(include_dirs)
    if errors:
        raise errors[0]
    return [name for name, m in models.items() if accepts(m, test)]


def check_variants(spec: ModelSpec, model: LoadedModel) -> None:
    """Raise InputError when ``spec`` names a variant ``model`` does not have."""
    unknown = sorted(v for v in spec.variants if v not in model.variant_names)
    if unknown:
        known = ", ".join(sorted(model.variant_names)) or "none"
        raise InputError(f"model '{spec.name}' has no variant {', '.join(unknown)} "
                         f"(its variants: {known})")


def check_model_names(test: A.Test, include_dirs: Sequence[str] = (),
                      tick: Callable[[], None] | None = None) -> None:
    """Raise InputError, at its line and column, for an ``Expect=`` or ``Liveness=`` entry
    that names a model not on the search path or a variant its model does not have, and
    for a ``Variant=`` name that no model on the search path has (a test may name
    variants of several models). Checked whichever models a run asks for."""
    if not (test.expectations or test.liveness_expectations or test.variant_items()):
        return
    expect = test.expectations  # parsed once: a file may have thousands of entries
    tagged = [("Expect", e) for e in expect]
    tagged += [("Liveness", e) for e in test.liveness_expectations]
    for key, entry in tagged:
        if not _is_available(entry.model, tuple(include_dirs)):
            names = _available(tuple(include_dirs))
            raise InputError(f"unknown model '{entry.model}' in {key}= (models: "
                             f"{', '.join(sorted(names)) or 'none'})", test.path, entry.pos,
                             test.source)
        model = get_model(entry.model, include_dirs, tick)
        col = entry.pos.col + len(entry.model) + 1
        for variant in entry.variants:
            if variant not in model.variant_names:
                known = ", ".join(sorted(model.variant_names)) or "none"
                at = Pos(entry.pos.line, col) if entry.pos.line else entry.pos
                raise InputError(f"model '{entry.model}' has no variant '{variant}' (in "
                                 f"{key}=; its variants: {known})", test.path, at,
                                 test.source)
            col += len(variant) + 1
    if not test.variant_items():
        return
    known_anywhere: set[str] = set()
    for name in _available(tuple(include_dirs)):
        try:
            known_anywhere |= get_model(name, include_dirs, tick).variant_names
        except InputError:
            continue  # a model that does not load is reported when it runs
    for variant, pos in test.variant_items():
        if variant not in known_anywhere:
            raise InputError(f"no model has variant '{variant}' (in Variant=; variants: "
                             f"{', '.join(sorted(known_anywhere)) or 'none'})", test.path,
                             pos, test.source)


def expected_specs(test: A.Test) -> list[ModelSpec]:
    """The models of the test's ``Expect=`` lines, then of its ``Liveness=`` lines, in
    order, without repeats; the dialect's default model when there are none."""
    seen = list(dict.fromkeys(ModelSpec(e.model, e.variants)
                              for e in (*test.expectations, *test.liveness_expectations)))
    return seen or [ModelSpec(DEFAULT_MODEL[test.arch])]


def models_for(test: A.Test, model: str | None) -> list[ModelSpec]:
    """The models to run: --model, else every model named in Expect=, else the
    dialect's default."""
    if model:
        return [ModelSpec.parse(m) for m in split_list(model)]
    return expected_specs(test)


def parse_all(model: str | None) -> tuple[str, ...] | None:
    """The variants of ``--model all`` / ``all+VARIANT+...``; None when --model names
    models (or is not given)."""
    if not model:
        return None
    specs = [ModelSpec.parse(m) for m in split_list(model)]
    if all(s.name != ALL for s in specs):
        return None
    if len(specs) > 1:
        raise InputError(f"--model {ALL} cannot be combined with other models ('{model}')")
    return specs[0].variants


def all_runs(test: A.Test, models: dict[str, LoadedModel], variants: Sequence[str]
             ) -> list[tuple[ModelSpec, list[str]]]:
    """``--model all``: every model that accepts ``test``, each with the requested
    variants it has. Raises UnsupportedError when no model accepts the test."""
    runs: list[tuple[ModelSpec, list[str]]] = [
        (ModelSpec(name, tuple(v for v in variants if v in m.variant_names)), [])
            for name, m in models.items() if accepts(m, test)]
    if not runs:
        needs = ", ".join(f for f in FEATURES if f in test_features(test))
        raise UnsupportedError(f"no model accepts test '{test.name}' (it uses {needs})",
                               test.path)
    return runs


def expected_verdict(test: A.Test, spec: ModelSpec, extra_variants: Sequence[str] = (),
                     liveness: bool = False) -> str | None:
    """The Expect= verdict (or, with ``liveness``, the Liveness= answer: Hang or Live)
    for exactly this model and set of variants."""
    want = set(spec.variants) | set(extra_variants)
    for e in test.liveness_expectations if liveness else test.expectations:
        if e.model == spec.name and set(e.variants) == want:
            return e.verdict
    return None
