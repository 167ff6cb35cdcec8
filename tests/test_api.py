"""The Python API (gdrcheck.api, re-exported by gdrcheck): check, assert_*, bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

import gdrcheck
from gdrcheck import api
from gdrcheck.errors import InputError
from gdrcheck.litmus import load_litmus

ROOT = Path(__file__).resolve().parents[1]
SB = ROOT / "litmus" / "classic" / "SB.litmus"
IRIW = ROOT / "litmus" / "classic" / "IRIW.litmus"
MP_GIN = ROOT / "litmus" / "gin" / "01-MP+put+strongsig.litmus"
LIVENESS = ROOT / "litmus" / "gin" / "20-aggregate-doorbell-liveness.litmus"

NO_EXPECT = """PTX MP-plain
{ x = 0; y = 0; }
 P0@cta 0,gpu 0       | P1@cta 1,gpu 0 ;
 st.weak x, 1         | ld.weak r1, y  ;
 st.weak y, 1         | ld.weak r2, x  ;
exists (1:r1 = 1 /\\ 1:r2 = 0)
"""


def test_reexported_lazily() -> None:
    assert gdrcheck.check is api.check
    assert gdrcheck.assert_forbidden is api.assert_forbidden
    assert gdrcheck.Outcome is api.Outcome
    assert gdrcheck.InputError is InputError
    with pytest.raises(AttributeError):
        gdrcheck.no_such_thing  # noqa: B018


@pytest.mark.parametrize("form", ["str", "path", "text", "test"])
def test_check_every_form_of_test(form: str) -> None:
    test = {"str": str(SB), "path": SB, "text": SB.read_text(), "test": load_litmus(SB)}[form]
    out = gdrcheck.check(test, "x86tso")
    assert (out.test, out.model, out.verdict) == ("SB", "x86tso", "Allowed")
    assert out.allowed and not out.forbidden
    assert out.expected == "Allowed" and out.met is True
    assert out.axioms == [] and out.flags == [] and out.liveness == []
    assert out.result.verdict == "Allowed"
    assert out.witness is not None and dict(out.witness.state) == {"0:EAX": 0, "1:EAX": 0}
    assert out.witness_text is not None and out.witness_text in out.explanation
    assert "Verdict SB x86tso Allowed" in out.explanation
    assert str(out) == out.explanation


def test_forbidden_names_the_axiom() -> None:
    out = gdrcheck.assert_forbidden(MP_GIN, "gin-api")
    assert out.verdict == "Forbidden" and out.axioms == ["Causality"]
    assert out.witness is None
    assert "Rejected-by Causality" in out.explanation


def test_assert_allowed_on_a_forbidden_outcome_gives_the_axiom() -> None:
    with pytest.raises(AssertionError) as exc:
        gdrcheck.assert_allowed(str(MP_GIN), "gin-api")
    msg = str(exc.value)
    assert msg.startswith("01-MP+put+strongsig under gin-api: expected Allowed, got Forbidden")
    assert "rejected by Causality" in msg
    assert "Rejected-by Causality" in msg


def test_assert_forbidden_on_an_allowed_outcome_gives_the_witness() -> None:
    with pytest.raises(AssertionError) as exc:
        gdrcheck.assert_forbidden(SB, "x86tso")
    msg = str(exc.value)
    assert "SB under x86tso: expected Forbidden, got Allowed" in msg
    assert "Witness execution:" in msg
    assert "e3:R(y)=0 [MOV EAX,[y]]" in msg


def test_assert_allowed_passes_and_returns_the_outcome() -> None:
    out = gdrcheck.assert_allowed(SB, "x86tso", states=True)
    assert out.states is not None and len(out.states) == 4
    assert {"0:EAX": 0, "1:EAX": 0} in out.states


def test_default_model_is_the_first_expect_entry() -> None:
    out = gdrcheck.check(MP_GIN)
    assert out.model == "gin-api" and out.verdict == "Forbidden" and out.met
    assert gdrcheck.check(SB).model == "x86tso"


def test_default_model_without_expect_is_the_dialects() -> None:
    out = gdrcheck.check(NO_EXPECT)
    assert out.model == "ptx" and out.verdict == "Allowed" and out.expected is None
    assert out.met is None
    assert gdrcheck.expected_models(NO_EXPECT) == ["ptx"]


def test_expected_models_lists_the_expect_line() -> None:
    models = gdrcheck.expected_models(MP_GIN)
    assert models[:3] == ["gin-api", "gin-gdaki", "gin-proxy"]
    assert "gin-gdaki+pcie-ro+nic-atomic-pcie" in models


def test_variants_join_the_model() -> None:
    out = gdrcheck.check(MP_GIN, "gin-api", variants="strong-signals-not-required")
    assert out.model == "gin-api+strong-signals-not-required"
    assert out.verdict == "Undefined" and out.flags and out.met is True
    with pytest.raises(AssertionError, match="flags: "):
        gdrcheck.assert_forbidden(MP_GIN, "gin-api", variants=["strong-signals-not-required"])


def test_liveness_is_reported() -> None:
    assert gdrcheck.check(LIVENESS, "gin-gdaki").liveness
    assert gdrcheck.check(LIVENESS, "gin-api").liveness == []


def test_timeout_gives_unknown() -> None:
    out = gdrcheck.check(IRIW, "x86tso", engine="explicit", timeout=1e-9)
    assert out.verdict == "Unknown" and out.met is False
    assert "Reason timeout while enumerating candidates" in out.explanation


@pytest.mark.parametrize(
    ("test", "model", "message"),
    [
        ("no/such/file.litmus", None, "no/such/file.litmus: cannot read the file"),
        ("X86 bad\nwhatever\n", None, "<input>:2:1: unexpected 'whatever'"),
        ("hello\nworld\n", None, "litmus text must start with the dialect"),
        ("", None, "empty litmus file name"),
        (42, None, "not int"),
        (SB, "nosuchmodel", "cannot find model 'nosuchmodel'"),
        (SB, "x86tso+nosuchvariant", "model 'x86tso' has no variant nosuchvariant"),
        (SB, "x86tso,sc", "one model at a time"),
        (SB, "all", "model 'all' is a command-line shorthand"),
        (MP_GIN, "sc", "model 'sc' does not describe GIN calls"),
        (SB, 3, "a model is a name"),
    ],
)
def test_bad_input_is_an_input_error(test: object, model: object, message: str) -> None:
    with pytest.raises(InputError) as exc:
        gdrcheck.check(test, model)  # type: ignore[arg-type]
    assert message in str(exc.value)


def test_explain_gives_the_text_of_gdrcheck_explain(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str, object]] = []

    def explanation_text(test: object, spec: object, options: object) -> str:
        calls.append((getattr(test, "name", "?"), str(spec), options))
        return "because of Causality"

    monkeypatch.setattr(api, "explanation_text", explanation_text)
    out = gdrcheck.check(MP_GIN, "gin-gdaki+pcie-ro", explain=True)
    assert out.explanation == "because of Causality"
    assert calls == [("01-MP+put+strongsig", "gin-gdaki+pcie-ro", api.CheckOptions())]
    # without explain=True it is not asked
    assert "Verdict" in gdrcheck.check(MP_GIN, "gin-api").explanation
    assert len(calls) == 1


def test_explain_with_the_real_explanation() -> None:
    out = gdrcheck.check(MP_GIN, "gin-api", explain=True)
    assert "Causality" in out.explanation
    with pytest.raises(AssertionError, match="Causality"):
        gdrcheck.assert_allowed(MP_GIN, "gin-api", explain=True)


def test_a_failing_explanation_keeps_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    def explanation_text(test: object, spec: object, options: object) -> str:
        raise RuntimeError("boom")

    monkeypatch.setattr(api, "explanation_text", explanation_text)
    out = gdrcheck.check(MP_GIN, "gin-api", explain=True)
    assert out.verdict == "Forbidden"
    assert "Rejected-by Causality" in out.explanation
    assert "(explain failed: RuntimeError: boom)" in out.explanation


def test_options_by_name_or_as_a_value() -> None:
    a = gdrcheck.check(MP_GIN, "gin-api", engine="explicit")
    b = gdrcheck.check(MP_GIN, "gin-api", options=api.CheckOptions(engine="explicit"))
    assert a.result.engine == b.result.engine == "explicit"
    with pytest.raises(InputError, match="unknown option engin"):
        gdrcheck.check(MP_GIN, "gin-api", engin="explicit")
