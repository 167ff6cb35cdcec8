"""Families of generated tests with a size parameter (issue 5): the classic shapes as
cycles of edges (gdrcheck.gen.cycles), and GIN communication patterns written
directly.

- ``SB-n``: n threads in a ring, each writes its location and reads the next one
  (Fre PodWR)^n;
- ``LB-n``: (Rfe PodRW)^n;
- ``IRIW-k``: k writers and k readers, reader i reads the locations of writers i and
  i+1 in opposite orders (Rfe PodRR Fre)^k;
- ``MP-chain-n``: WRC generalised: a write passed along n-2 relaying threads
  (Rfe (PodRW Rfe)^(n-2) PodRR Fre);
- ``ISA2-n``: PodWW Rfe (PodRW Rfe)^(n-2) PodRR Fre;
- ``gin-fan-in-n[xk]``: n sender ranks each put k words to one receiver, then a strong
  signal on the same context; the receiver waits for the n signals and reads every
  word (exists: some word is still 0); one signal per sender, as DeepEP's per-source
  tail counters;
- ``gin-fan-in-shared-n[xk]``: the same senders all bumping ONE shared signal (a chain
  of n NIC read-modify-writes on one word); the receiver waits for the count n, then
  reads every word (exists: some word is still 0). Forbidden under the GIN models: each
  sender's strong signal follows its puts (R-GIN-3) and the wait that reads the count n
  observes every increment of the chain (the release sequence through read-modify-writes,
  ptx-defs.cat "observation");
- ``gin-fan-out-n[xk]``: one sender puts k words to each of n receivers, each with a
  strong signal; each receiver waits and reads;
- ``gin-barrier-n``: n ranks, rank i puts to rank i+1 (mod n), then a GIN barrier at
  fence level put; each rank reads what it was sent (R-GIN-15: Forbidden that it is
  still 0);
- ``gin-ring-n``: rank i waits for rank i-1's signal, then puts its token to rank i+1
  with a bundled strong signal; the last rank checks the first token arrived.
"""

from __future__ import annotations

from gdrcheck.errors import InputError
from gdrcheck.gen.cycles import build_cycle

FAMILIES = ("SB", "LB", "IRIW", "MP-chain", "ISA2", "gin-fan-in", "gin-fan-in-shared",
            "gin-fan-out", "gin-ring", "gin-barrier")


MAX_CELLS = 20_000
"""The largest thread table ``generate --family`` writes (threads x rows, computed from
the family's shape before anything is built): at 27-48 bytes a cell (measured on every
family) that is about 1 MiB, the most a litmus test gdrcheck reads may hold
(gdrcheck.limits.MAX_LITMUS_BYTES). SB-10000, gin-fan-in-14 x 100, gin-ring-10000 fit."""


def family_shape(name: str, size: int, width: int = 1) -> tuple[int, int]:
    """(threads, rows) of the table of family ``name`` at ``size`` and ``width``, from
    the family's formula (below): what :func:`family` would build, known before it does."""
    if name in ("SB", "LB", "MP-chain", "ISA2", "gin-ring"):
        return size, 2  # one thread per step of the cycle, two accesses each
    if name == "IRIW":
        return 2 * size, 2  # k writers (one store) and k readers (two loads)
    if name in ("gin-fan-in", "gin-fan-out"):
        return size + 1, max(size * (width + 1), width + 1)  # n waits + n*k loads / puts
    if name == "gin-fan-in-shared":
        return size + 1, max(1 + size * width, width + 1)
    if name == "gin-barrier":
        return size, 3
    raise InputError(f"unknown family '{name}' (choose from {', '.join(FAMILIES)})")


def check_family_size(name: str, size: int, width: int = 1) -> None:
    """InputError, with the reason, when family ``name`` at ``size`` x ``width`` cannot be
    built: a size below 2, a width below 1, a table over :data:`MAX_CELLS` cells."""
    if size < 2:
        raise InputError("a family's size is at least 2")
    if width < 1:
        raise InputError("--width is at least 1")
    threads, rows = family_shape(name, size, width)
    if threads * rows > MAX_CELLS:
        raise InputError(
            f"{name} at size {size}{f' x {width}' if width > 1 else ''} would be a table of "
            f"{threads:,} threads x {rows:,} rows = {threads * rows:,} cells, more than the "
            f"{MAX_CELLS:,} that generate writes (about 1 MiB, the most gdrcheck reads as a "
            "test; docs/generate.md)")


def family(name: str, size: int, dialect: str = "x86", width: int = 1) -> tuple[str, str]:
    """(test name, litmus text) of family ``name`` at ``size`` (``width``: words per put
    group for the GIN fans). Refused (InputError) when :func:`check_family_size` says so."""
    check_family_size(name, size, width)
    cyc: list[str] | None = None
    if name == "SB":
        cyc = ["Fre", "PodWR"] * size
    elif name == "LB":
        cyc = ["Rfe", "PodRW"] * size
    elif name == "IRIW":
        cyc = ["Rfe", "PodRR", "Fre"] * size
    elif name == "MP-chain":
        cyc = ["Rfe"] + ["PodRW", "Rfe"] * (size - 2) + ["PodRR", "Fre"]
    elif name == "ISA2":
        cyc = ["PodWW", "Rfe"] + ["PodRW", "Rfe"] * (size - 2) + ["PodRR", "Fre"]
    if cyc is not None:
        if dialect == "gin":
            raise InputError(f"family {name} is generated for x86 and ptx (GIN: gin-*)")
        text = build_cycle(cyc, dialect)
        tname = f"{name}-{size}"
        first, rest = text.split("\n", 1)
        return tname, f"{first.split()[0]} {tname}\n{rest}"
    if name == "gin-fan-in":
        return _fan_in(size, width)
    if name == "gin-fan-in-shared":
        return _fan_in(size, width, shared=True)
    if name == "gin-fan-out":
        return _fan_out(size, width)
    if name == "gin-ring":
        return _ring(size)
    if name == "gin-barrier":
        return _barrier(size)
    raise InputError(f"unknown family '{name}' (choose from {', '.join(FAMILIES)})")


def _text(name: str, doc: str, init: str, headers: list[str], cols: list[list[str]],
          cond: str) -> str:
    depth = max(len(c) for c in cols)
    width = [max([len(x) for x in c] + [len(h)]) for c, h in zip(cols, headers, strict=True)]
    head = " " + " | ".join(h.ljust(w) for h, w in zip(headers, width, strict=True)) + " ;"
    rows = [" " + " | ".join((c[r] if r < len(c) else "").ljust(w)
                             for c, w in zip(cols, width, strict=True)) + " ;"
            for r in range(depth)]
    return f"GIN {name}\n\"{doc}\"\n{{ {init} }}\n{head}\n" + "\n".join(rows) + \
        f"\nexists ({cond})\n"


def _fan_in(n: int, k: int, shared: bool = False) -> tuple[str, str]:
    name = f"gin-fan-in-{'shared-' if shared else ''}{n}x{k}"
    recv = 0
    words = [f"d{i}_{j}" for i in range(1, n + 1) for j in range(k)]
    signals = ["S"] if shared else [f"S{i}" for i in range(1, n + 1)]
    init = " ".join(f"{w}@{recv} = 0;" for w in words) + "".join(
        f" s@{i} = {i};" for i in range(1, n + 1)) + "".join(
        f" {sig} : signal;" for sig in signals)
    headers = [f"P0@cta 0,gpu {recv},node {recv}"] + [
        f"P{i}@cta 0,gpu {i},node {i}" for i in range(1, n + 1)]
    waits = ([f"gin.wait_signal S, {n}"] if shared
             else [f"gin.wait_signal S{i}, 1" for i in range(1, n + 1)])
    reader = waits + [f"ld.relaxed.sys r{j}, {w}" for j, w in enumerate(words)]
    senders = [[f"gin.put c0, d{i}_{j}@{recv}, s" for j in range(k)]
               + [f"gin.signal c0, {'S' if shared else f'S{i}'}@{recv}"]
               for i in range(1, n + 1)]
    cond = " \\/ ".join(f"0:r{j} = 0" for j in range(len(words)))
    if shared:
        doc = (f"{n} ranks x {k} puts into one receiver, each sender then bumping ONE "
               "shared strong signal on the same context (R-GIN-3); the receiver waits for "
               f"the count {n}: once it is seen, every word is there")
    else:
        doc = (f"{n} ranks x {k} puts into one receiver, each sender then raising its own "
               "strong signal on the same context (R-GIN-3): once every signal is seen, "
               "every word is there")
    return name, _text(name, doc, init, headers, [reader] + senders, cond)


def _fan_out(n: int, k: int) -> tuple[str, str]:
    name = f"gin-fan-out-{n}x{k}"
    words = [f"d{j}" for j in range(k)]
    init = " ".join(f"{w} = 0;" for w in words) + " s@0 = 1; S : signal;"
    headers = ["P0@cta 0,gpu 0,node 0"] + [f"P{i}@cta 0,gpu {i},node {i}"
                                           for i in range(1, n + 1)]
    sender = []
    for i in range(1, n + 1):
        sender += [f"gin.put c0, {w}@{i}, s" for w in words] + [f"gin.signal c0, S@{i}"]
    readers = [["gin.wait_signal S, 1"] + [f"ld.relaxed.sys r{j}, {w}"
                                           for j, w in enumerate(words)]
               for _ in range(1, n + 1)]
    cond = " \\/ ".join(f"{i}:r{j} = 0" for i in range(1, n + 1) for j in range(k))
    doc = (f"one rank puts {k} words to each of {n} ranks, each with a strong signal "
           "(R-GIN-3): every receiver that sees its signal sees its words")
    return name, _text(name, doc, init, headers, [sender] + readers, cond)


def _ring(n: int) -> tuple[str, str]:
    name = f"gin-ring-{n}"
    init = "t = 0; t@0 = 7; S : signal;"
    headers = [f"P{i}@cta 0,gpu {i},node {i}" for i in range(n)]
    cols = [["gin.put c0, t@1, t, sig=S"]]
    for i in range(1, n):
        col = ["gin.wait_signal S, 1"]
        col += [f"gin.put c0, t@{i + 1}, t, sig=S"] if i < n - 1 else ["ld.relaxed.sys r0, t"]
        cols.append(col)
    doc = (f"a token passed around {n} ranks by puts with bundled strong signals (R-GIN-2, "
           "R-GIN-13): the last rank sees the first rank's token")
    return name, _text(name, doc, init, headers, cols, f"{n - 1}:r0 != 7")


def _barrier(n: int) -> tuple[str, str]:
    name = f"gin-barrier-{n}"
    init = "x = 0; s = 1;"
    headers = [f"P{i}@cta 0,gpu {i},node {i}" for i in range(n)]
    cols = [[f"gin.put c0, x@{(i + 1) % n}, s", "gin.barrier c0, put", "ld.relaxed.sys r0, x"]
            for i in range(n)]
    cond = " \\/ ".join(f"{i}:r0 = 0" for i in range(n))
    doc = (f"{n} ranks each put to the next, then a barrier at fence level put (R-GIN-15): "
           "after it every rank sees what it was sent")
    return name, _text(name, doc, init, headers, cols, cond)
