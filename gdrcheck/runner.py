"""Checking a test under a model: parse → lower → encode → solve.

This is the one place that strings the layers together; the CLI and the
Python API both call :func:`check_test`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from gdrcheck.cat.loader import FEATURES, LoadedModel, available_models, load_model
from gdrcheck.engine.explicit import ExplicitEngine
from gdrcheck.engine.result import Result
from gdrcheck.engine.smt import SmtEngine
from gdrcheck.errors import InputError, UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.features import test_features
from gdrcheck.lower import DEFAULT_UNROLL, lower

ENGINES = ("smt", "explicit")


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

    def __str__(self) -> str:
        return "+".join((self.name, *self.variants))


@lru_cache(maxsize=64)
def _load(name: str, include_dirs: tuple[str, ...]) -> LoadedModel:
    return load_model(name, include_dirs)


def get_model(name: str, include_dirs: Sequence[str] = ()) -> LoadedModel:
    return _load(name, tuple(include_dirs))


def load_models(include_dirs: Sequence[str] = ()
                ) -> tuple[dict[str, LoadedModel], list[InputError]]:
    """Every model on the search path, by name, and the errors of those that do not load."""
    models: dict[str, LoadedModel] = {}
    errors: list[InputError] = []
    for name in available_models(include_dirs):
        try:
            models[name] = get_model(name, include_dirs)
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


def _feature_words(features: frozenset[str]) -> str:
    """``GIN calls``, ``X86 instructions``, ``PTX instructions and GIN calls``."""
    kinds = [f"{f} {'calls' if f in ('GIN', 'SHMEM') else 'instructions'}"
             for f in FEATURES if f in features]
    return " and ".join(kinds)


def check_test(
    test: A.Test,
    model: str | ModelSpec,
    *,
    variants: Sequence[str] = (),
    engine: str = "smt",
    include_dirs: Sequence[str] = (),
    timeout: float | None = None,
    states: bool = False,
    unroll: int = DEFAULT_UNROLL,
) -> Result:
    """The verdict of ``test`` under ``model`` (with the test's own Variant= lines)."""
    spec = model if isinstance(model, ModelSpec) else ModelSpec.parse(model)
    loaded = get_model(spec.name, include_dirs)
    chosen = frozenset(spec.variants) | frozenset(variants) | frozenset(test.variants)
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
    prog = lower(test, unroll)
    eng: SmtEngine | ExplicitEngine
    if engine == "smt":
        eng = SmtEngine(timeout)
    elif engine == "explicit":
        eng = ExplicitEngine(timeout)
    else:
        raise InputError(f"unknown engine '{engine}' (choose from {', '.join(ENGINES)})")

    def path_of(stmt: object) -> tuple[str, str]:
        src = loaded.source_of(stmt)  # type: ignore[arg-type]
        return str(src.path), src.text

    res = eng.run(prog, loaded.stmts, chosen, test, str(spec), states=states, path_of=path_of)
    return res
