"""Model search and include expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from gdrcheck.cat import available_models, find_model, load_model, specs_dir
from gdrcheck.cat.ast import Binding, Check, IfVariant, Let, Var, VariantDecl, VName
from gdrcheck.cat.loader import SPECS_DIR, model_available
from gdrcheck.errors import CatError, Pos

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def specs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty specs/ directory in place of the project's."""
    d = tmp_path / "specs"
    d.mkdir()
    monkeypatch.setenv("GDRCHECK_SPECS", str(d))
    return d


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def let(name: str, value: str) -> Let:
    return Let((Binding(name, None, Var(value)),))


def names(stmts: tuple[object, ...]) -> list[str]:
    """The names bound by the top-level lets, in order."""
    return [s.bindings[0].name for s in stmts if isinstance(s, Let)]


# --------------------------------------------------------------------------
# Search
# --------------------------------------------------------------------------


def test_specs_dir_default_is_the_project_specs() -> None:
    assert SPECS_DIR == Path(__file__).resolve().parents[2] / "specs"


def test_specs_dir_follows_the_environment(specs: Path) -> None:
    assert specs_dir() == specs


def test_find_by_name_with_or_without_extension(specs: Path) -> None:
    model = write(specs / "ptx.cat", "acyclic po")
    assert find_model("ptx") == model
    assert find_model("ptx.cat") == model


def test_find_an_existing_path_as_is(specs: Path) -> None:
    model = FIXTURES / "models" / "tiny.cat"
    assert find_model(str(model)) == model


def test_include_dir_wins_over_specs(specs: Path, tmp_path: Path) -> None:
    write(specs / "ptx.cat", "acyclic po")
    mine = write(tmp_path / "mine" / "ptx.cat", "acyclic rf")
    assert find_model("ptx", [str(tmp_path / "mine")]) == mine
    assert load_model("ptx", [tmp_path / "mine"]).stmts == (
        Check("acyclic", False, Var("rf"), None),
    )


def test_include_dirs_are_searched_in_order(specs: Path, tmp_path: Path) -> None:
    write(tmp_path / "one" / "m.cat", "")
    two = write(tmp_path / "two" / "m.cat", "")
    write(tmp_path / "one" / "other.cat", "")
    assert find_model("m", [tmp_path / "two", tmp_path / "one"]) == two


def test_model_not_found_lists_search_path_and_models(specs: Path, tmp_path: Path) -> None:
    write(specs / "ptx.cat", '"PTX"\n')
    write(specs / "x86-tso.cat", '"TSO"\n')
    write(specs / "stdlib.cat", "")
    write(specs / "_helpers.cat", "")
    with pytest.raises(CatError) as info:
        find_model("nvshmem", [tmp_path / "extra"])
    message = info.value.message
    assert "cannot find model 'nvshmem'" in message
    assert f"searched {tmp_path / 'extra'}, {specs}" in message
    assert "available models: ptx, x86-tso)" in message
    assert info.value.render().startswith("nvshmem: cannot find model")


def test_available_models(specs: Path, tmp_path: Path) -> None:
    for name in ("ptx", "gin-api", "stdlib", "cos", "_private"):
        write(specs / f"{name}.cat", f'"{name}"\n')
    write(specs / "fragment.cat", "(* include-only: no title *)\nlet a = po\n")
    write(specs / "notes.txt", "")
    write(specs / "sub" / "deep.cat", "")
    write(tmp_path / "mine" / "mine.cat", "MINE\n")
    write(tmp_path / "mine" / "ptx.cat", "")
    assert available_models() == ["gin-api", "ptx"]
    dirs = [tmp_path / "mine", tmp_path / "missing"]
    assert available_models(dirs) == ["gin-api", "mine", "ptx"]
    # one name at a time (check_model_names: issue 24's start-up), the same answers
    for name in ("ptx", "gin-api", "stdlib", "cos", "_private", "fragment", "notes", "deep",
                 "sub/deep", "mine", "missing", "ptx.cat", "gin"):
        assert model_available(name) == (name in available_models()), name
        assert model_available(name, dirs) == (name in available_models(dirs)), name


def test_listing_models_reads_only_their_first_token(specs: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # listing names parses no file (issue 24: it was most of a small check's start-up);
    # the first token decides as cat.lark's `start: [title] stmt*` does
    import gdrcheck.cat.loader as loader

    files = {
        "quoted": '(* (* nested *) comment *)\n// line\n# hash\n"A title"\nlet a = po\n',
        "bare": "PTX\nlet a = po\n",
        "herd": 'X86 "x86 TSO"\nacyclic po\n',
        "letter": "letx = po\n",  # a name that starts like a keyword: a title (or an error)
        "broken": "= po\n",  # a syntax error is listed: running it reports it
        "open": "(* never closed\n",
        "fragment": "(* no title *)\nlet a = po\n",
        "check": "acyclic po as x\n",
        "negated": "~empty po\n",
        "flagged": "flag ~empty po as f\n",
        "variant": 'variant "v"\n',
        "empty": "(* only a comment *)\n",
    }
    for name, text in files.items():
        write(specs / f"{name}.cat", text)
    write(specs / "latin1.cat", "")
    (specs / "latin1.cat").write_bytes(b'"caf\xe9"\nlet a = po\n')

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("available_models parsed a file")

    from gdrcheck.cat.parser import parse_cat as real_parse

    monkeypatch.setattr(loader, "_parse", no_parse)
    monkeypatch.setattr(loader, "parse_cached", no_parse)
    listed = available_models()
    assert listed == ["bare", "broken", "herd", "latin1", "letter", "open", "quoted"]
    assert [n for n in [*files, "latin1"] if model_available(n)] == sorted(listed, key=[
        *files, "latin1"].index)
    for name, text in files.items():  # the parser agrees wherever it answers
        try:
            titled = real_parse(text).title is not None
        except CatError:
            continue
        assert titled == (name in listed), name


def test_one_model_is_found_as_the_listing_finds_it() -> None:
    # the project's own specs/: every listed name, and the include-only files that are not
    names = available_models()
    assert names and all(model_available(n) for n in names)
    others = {p.stem for p in SPECS_DIR.glob("*.cat")} - set(names)
    assert others and not any(model_available(n) for n in others)


# --------------------------------------------------------------------------
# Loading and includes
# --------------------------------------------------------------------------


def test_load_fixture_model(specs: Path) -> None:
    model = load_model(str(FIXTURES / "models" / "tiny.cat"))
    assert model.name == "tiny"
    assert model.title == "tiny fixture model"
    assert model.path == FIXTURES / "models" / "tiny.cat"
    assert len(model.stmts) == 1
    assert model.source_of(model.stmts[0]).path == model.path


def test_nested_includes_are_spliced_in_place(specs: Path) -> None:
    write(specs / "top.cat", '"top"\nlet a = a\ninclude "mid.cat"\nlet d = d\n')
    write(specs / "mid.cat", '"mid"\nlet b = b\ninclude "leaf.cat"\n')
    write(specs / "leaf.cat", "let c = c\n")
    model = load_model("top")
    assert model.title == "top"
    assert model.stmts == (let("a", "a"), let("b", "b"), let("c", "c"), let("d", "d"))
    assert [model.source_of(s).path.name for s in model.stmts] == [
        "top.cat", "mid.cat", "leaf.cat", "top.cat",
    ]  # fmt: skip
    assert [f.path.name for f in model.files] == ["top.cat", "mid.cat", "leaf.cat"]
    assert model.source_of(model.stmts[1]).text == '"mid"\nlet b = b\ninclude "leaf.cat"\n'


def test_each_file_is_included_once(specs: Path) -> None:
    write(specs / "top.cat", 'include "lib.cat"\ninclude "mid.cat"\ninclude "lib.cat"\nlet t = t\n')
    write(specs / "mid.cat", 'include "lib.cat"\nlet m = m\n')
    write(specs / "lib.cat", "let l = l\n")
    assert names(load_model("top").stmts) == ["l", "m", "t"]


def test_include_cycles_are_cut(specs: Path) -> None:
    write(specs / "a.cat", 'let a = a\ninclude "b.cat"\n')
    write(specs / "b.cat", 'let b = b\ninclude "a.cat"\ninclude "b.cat"\n')
    assert names(load_model("a").stmts) == ["a", "b"]


def test_include_is_found_next_to_the_including_file_first(specs: Path, tmp_path: Path) -> None:
    write(tmp_path / "mine" / "top.cat", 'include "lib.cat"\n')
    write(tmp_path / "mine" / "lib.cat", "let here = x\n")
    write(specs / "lib.cat", "let specs = x\n")
    other = tmp_path / "other"
    write(other / "lib.cat", "let other = x\n")
    assert names(load_model(str(tmp_path / "mine" / "top.cat"), [other]).stmts) == ["here"]
    write(tmp_path / "lone" / "top.cat", 'include "lib.cat"\n')
    assert names(load_model(str(tmp_path / "lone" / "top.cat"), [other]).stmts) == ["other"]
    assert names(load_model(str(tmp_path / "lone" / "top.cat")).stmts) == ["specs"]


def test_builtin_library_includes_are_optional(specs: Path) -> None:
    write(specs / "m.cat", 'include "stdlib.cat"\ninclude "cos.cat"\nlet x = x\n')
    assert names(load_model("m").stmts) == ["x"]
    write(specs / "cos.cat", "let fr = fr\n")
    assert names(load_model("m").stmts) == ["fr", "x"]


def test_missing_include_is_an_error_at_the_include(specs: Path) -> None:
    text = 'let x = x\n  include "nope.cat"\n'
    write(specs / "m.cat", text)
    with pytest.raises(CatError) as info:
        load_model("m")
    err = info.value
    assert err.path == str(specs / "m.cat")
    assert err.pos == Pos(2, 3)
    assert err.source == text
    assert "cannot find included file 'nope.cat'" in err.message


def test_syntax_error_in_included_file_names_that_file(specs: Path) -> None:
    write(specs / "m.cat", 'include "bad.cat"\n')
    write(specs / "bad.cat", "let x = po\nlet y = \n")
    with pytest.raises(CatError) as info:
        load_model("m")
    assert info.value.path == str(specs / "bad.cat")
    assert info.value.pos == Pos(2, 8)
    assert info.value.render().startswith(f"{specs / 'bad.cat'}:2:8: unexpected end of file")


def test_includes_inside_if_variant_branches(specs: Path) -> None:
    write(
        specs / "m.cat", 'if "ro" include "lib.cat" else include "lib.cat" end\ninclude "lib.cat"\n'
    )
    write(specs / "lib.cat", "let l = l\n")
    model = load_model("m")
    assert model.stmts == (IfVariant(VName("ro"), (let("l", "l"),), (let("l", "l"),)),)
    branch = model.stmts[0]
    assert isinstance(branch, IfVariant)
    assert model.source_of(branch).path.name == "m.cat"
    assert model.source_of(branch.then[0]).path.name == "lib.cat"
    assert [f.path.name for f in model.files] == ["m.cat", "lib.cat"]


def test_include_in_one_branch_only_is_repeated_after_the_if(specs: Path) -> None:
    write(specs / "m.cat", 'if "ro" include "lib.cat" end\ninclude "lib.cat"\n')
    write(specs / "lib.cat", "let l = l\n")
    model = load_model("m")
    assert model.stmts[1:] == (let("l", "l"),)


def test_variants_declared_and_used(specs: Path) -> None:
    write(
        specs / "m.cat",
        'variant "pcie-ro" "Relaxed Ordering"\n'
        'include "lib.cat"\n'
        'if variant "pcie-ro" || not gdr-order-none && ("nccl-2.28") then\n'
        '  if "nested" end\n'
        "end\n",
    )
    write(specs / "lib.cat", 'variant "pcie-ro" "again"\nvariant lib-only\n')
    model = load_model("m")
    assert model.variants == (
        VariantDecl("pcie-ro", "Relaxed Ordering"),
        VariantDecl("lib-only", ""),
    )
    assert model.variant_names == {"pcie-ro", "lib-only", "gdr-order-none", "nccl-2.28", "nested"}


def test_unreadable_model_file(specs: Path) -> None:
    (specs / "bin.cat").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(CatError) as info:
        load_model("bin")
    assert "not UTF-8 text: byte 0xff" in info.value.message
    assert info.value.path == str(specs / "bin.cat")
    assert info.value.pos == Pos(1, 1)


def test_every_construct_fixture_loads(specs: Path) -> None:
    model = load_model(str(FIXTURES / "every_construct.cat"))
    assert model.title == "every construct"
    assert not any(type(s).__name__ == "Include" for s in model.stmts)  # stdlib.cat skipped
    assert [v.name for v in model.variants] == ["pcie-ro", "strict-gdr"]
    assert model.variant_names == {"pcie-ro", "strict-gdr", "a", "b"}
