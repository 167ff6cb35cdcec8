"""A kernel's configurations: the command line's options, and the ``// gdrcheck:`` lines of
a ``.cu`` file (docs/kernels.md, "Configurations").

A ``// gdrcheck:`` line holds the options of ``gdrcheck kernel`` (without the file)::

    // gdrcheck: --kernel ping_pong --ranks 2 --arg pe=0,1 --arg iter=2 -m nvshmem-api
    //           --expect nvshmem-api:Forbidden --liveness nvshmem-api:Live

(a line that ends in ``\\`` continues on the next ``//`` line).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from fractions import Fraction

from gdrcheck.errors import InputError, Pos
from gdrcheck.kernel.extract import Config

NOWHERE = Pos(0, 0)

CONFIG_RE = re.compile(r"^\s*//\s*gdrcheck:(.*)$")

_VERDICTS = ("Allowed", "Forbidden", "Undefined", "Required")
_LIVENESS = ("Hang", "Live")
HOST_ORDERS = ("final", "stream")
"""--host-order: the host check reads the final state (after every rank's kernel), or the
host code is ordered with its own rank's kernel only (docs/kernels.md, "Host code")."""


@dataclass(frozen=True)
class KernelRun:
    """One configuration and what to check it with."""

    config: Config
    models: tuple[str, ...] = ()
    expect: tuple[str, ...] = ()  # MODEL{+VARIANT}*:VERDICT
    liveness: tuple[str, ...] = ()  # MODEL{+VARIANT}*:Hang|Live
    unroll: int | None = None
    pos: Pos = field(default=NOWHERE, compare=False)
    defines: tuple[str, ...] = ()  # -D NAME[=VALUE] for clang


def parse_ints(text: str, what: str) -> tuple[int, ...]:
    """``3`` or ``0,1`` (comma separated integers)."""
    try:
        return tuple(int(v, 0) for v in text.split(","))
    except ValueError:
        raise InputError(f"{what}: expected an integer or integers separated by commas, "
                         f"found {text!r}") from None


def parse_arg(text: str) -> tuple[str, tuple[int | Fraction, ...]]:
    """``NAME=VALUE`` or ``NAME=V0,V1,...`` (one value per rank): integers, or decimal
    numbers for a ``float`` parameter (``eps=1e-6``: the exact decimal, rounded to binary32
    as a C ``float`` literal is when the kernel is called)."""
    name, eq, value = text.partition("=")
    if not eq or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()):
        raise InputError(f"--arg {text!r}: expected NAME=VALUE (or NAME=V0,V1,... one per rank)")
    what = f"--arg {name.strip()}"
    out: list[int | Fraction] = []
    for v in value.strip().split(","):
        try:
            out.append(int(v, 0))
            continue
        except ValueError:
            pass
        if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?f?", v.strip()):
            raise InputError(f"{what}: expected an integer, a decimal number or numbers "
                             f"separated by commas, found {value.strip()!r}")
        out.append(Fraction(v.strip().rstrip("f")))
    return name.strip(), tuple(out)


def check_entry(text: str, kinds: tuple[str, ...], option: str) -> str:
    model, sep, verdict = text.rpartition(":")
    if not sep or not model or verdict not in kinds:
        raise InputError(f"{option} {text!r}: expected MODEL:{'|'.join(kinds)}")
    return text


def make_run(kernel: str | None, ranks: int | None, grid: int = 1, block: int = 1,
             nodes: str | None = None, args: tuple[str, ...] = (),
             models: tuple[str, ...] = (), expect: tuple[str, ...] = (),
             liveness: tuple[str, ...] = (), unroll: int | None = None,
             pos: Pos = NOWHERE, init: str | None = None,
             check: str | None = None, defines: tuple[str, ...] = (),
             host_order: str = "final") -> KernelRun:
    """A run from option values (the command line's or a ``// gdrcheck:`` line's)."""
    if not kernel:
        raise InputError("--kernel NAME is needed (the __global__ function to check)")
    if ranks is None:
        raise InputError("--ranks R is needed (the number of ranks, PEs)")
    if host_order not in HOST_ORDERS:
        raise InputError(f"--host-order {host_order!r}: expected {' or '.join(HOST_ORDERS)}")
    node_list = parse_ints(nodes, "--nodes") if nodes else None
    parsed = tuple(parse_arg(a) for a in args)
    models_list = tuple(m.strip() for group in models for m in group.split(",") if m.strip())
    return KernelRun(
        Config(kernel, ranks, grid, block, node_list, parsed, init, check, host_order),
        models_list,
        tuple(check_entry(e, _VERDICTS, "--expect") for e in expect),
        tuple(check_entry(e, _LIVENESS, "--liveness") for e in liveness), unroll, pos,
        tuple(defines))


def parse_line(text: str, pos: Pos) -> KernelRun:
    """The run of one ``// gdrcheck:`` line's options."""
    try:
        tokens = shlex.split(text)
    except ValueError as exc:
        raise InputError(f"the gdrcheck: line does not split into options: {exc}",
                         pos=pos) from None
    opts: dict[str, list[str]] = {}
    names = {"--kernel": "kernel", "--ranks": "ranks", "--grid": "grid", "--block": "block",
             "--nodes": "nodes", "--arg": "arg", "-m": "model", "--model": "model",
             "--expect": "expect", "--liveness": "liveness", "--unroll": "unroll",
             "--init": "init", "--check": "check", "-D": "define", "--define": "define",
             "--host-order": "host_order"}
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        key, eq, inline = tok.partition("=") if tok.startswith("--") else (tok, "", "")
        if tok.startswith("-D") and len(tok) > 2:
            key, eq, inline = "-D", "=", tok[2:]
        if key not in names:
            raise InputError(f"unknown option {tok!r} in the gdrcheck: line (options: "
                             f"{', '.join(sorted(names))})", pos=pos)
        if eq:
            value = inline
        else:
            k += 1
            if k >= len(tokens):
                raise InputError(f"{key} needs a value", pos=pos)
            value = tokens[k]
        opts.setdefault(names[key], []).append(value)
        k += 1

    def one(name: str) -> str | None:
        values = opts.get(name)
        return values[-1] if values else None

    def integer(name: str, default: int | None) -> int | None:
        value = one(name)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise InputError(f"--{name}: expected an integer, found {value!r}", pos=pos) from None

    try:
        return make_run(one("kernel"), integer("ranks", None), integer("grid", 1) or 1,
                        integer("block", 1) or 1, one("nodes"), tuple(opts.get("arg", [])),
                        tuple(opts.get("model", [])), tuple(opts.get("expect", [])),
                        tuple(opts.get("liveness", [])), integer("unroll", None), pos,
                        one("init"), one("check"), tuple(opts.get("define", [])),
                        one("host_order") or "final")
    except InputError as err:
        if not err.pos.line:
            err.pos = pos
        raise


def file_runs(source: str) -> list[KernelRun]:
    """The runs of every ``// gdrcheck:`` line of a ``.cu`` file's text."""
    runs: list[KernelRun] = []
    lines = source.splitlines()
    k = 0
    while k < len(lines):
        m = CONFIG_RE.match(lines[k])
        if not m:
            k += 1
            continue
        pos = Pos(k + 1, m.start(1) + 1)
        text = m.group(1).rstrip()
        while text.endswith("\\") and k + 1 < len(lines):
            k += 1
            cont = re.match(r"^\s*//(.*)$", lines[k])
            if cont is None:
                break
            text = text[:-1] + " " + cont.group(1).strip()
        runs.append(parse_line(text, pos))
        k += 1
    return runs
