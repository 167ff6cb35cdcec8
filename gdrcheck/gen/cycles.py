"""diy-style test generation: a cycle of relaxed edges becomes a litmus test whose
condition says that the cycle was observed (herd7's diy7, "Generating litmus tests").

Edges (herd's names):

- communication, between threads, on one location: ``Rfe`` (W → R: the read reads
  the write), ``Fre`` (R → W: the read reads a write coherence-before the write),
  ``Coe``/``Wse`` (W → W: coherence order);
- program order in one thread: ``Pod{XY}`` (different locations), ``Pos{XY}`` (the
  same location), X, Y ∈ {R, W};
- fenced program order: x86 ``MFenced{XY}``; PTX ``FenceSCd{XY}``,
  ``FenceAcqReld{XY}`` (``fence.sc`` / ``fence.acq_rel`` at the test's scope);
- GIN (the first event is a put's write at the peer, issued by the thread):
  ``PutdWW`` (a second put, same context and peer), ``PutSigdWW`` / ``PutSigWdWW``
  (a bare strong / weak signal after the put), ``PutSSigdWW`` / ``PutWSigdWW`` (a
  strong / weak signal bundled with the put), ``PutSigXdWW`` (the signal on another
  context), ``PutFlushSigXdWW`` (flush, then the signal on another context),
  ``PutNvdWW`` (an NVLink ``st.release.sys`` after the put: the sender is on the
  receiver's node), ``PutCtrNvdWW`` (the put carries a counter, the sender waits for
  it, then the NVLink release store); on the receiving side a read of a signal is a
  ``gin.read_signal`` (acquire), of data an ``ld.acquire.sys``.

``RSigdRW`` / ``RPutdRW``: a read, then a strong signal / a put to another rank.
GIN memory is placed so that reads are local (docs/generate.md); the peer of a put
or signal is the owner of its target, so cross-peer edges come for free. The
barrier, a collective, is the family ``gin-barrier-n``.

The test's name is the cycle, its threads are the cycle's segments between
communication edges, and its condition fixes every read's value and, for a
location written twice or more, the final value (the coherence order).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdrcheck.errors import InputError

DIALECTS = ("x86", "ptx", "gin")

_COM = {"Rfe": ("W", "R"), "Fre": ("R", "W"), "Coe": ("W", "W"), "Wse": ("W", "W")}
_GIN_SENDER = {
    "PutdWW": "put", "PutSigdWW": "sig", "PutSigWdWW": "sigw", "PutSSigdWW": "ssig",
    "PutWSigdWW": "wsig", "PutSigXdWW": "sigx", "PutFlushSigXdWW": "flushsigx",
    "PutNvdWW": "nv", "PutCtrNvdWW": "ctrnv",
}
_GIN_RECEIVER = {"RSigdRW": "sig", "RPutdRW": "put"}


@dataclass(frozen=True)
class Edge:
    name: str
    kind: str  # com | po | fence | gin
    src: str  # R | W
    dst: str  # R | W
    same_loc: bool = False
    fence: str | None = None  # x86 mfence / ptx fence kind
    gin: str | None = None  # the GIN sender pattern

    @property
    def external(self) -> bool:
        return self.kind == "com"


def parse_edge(name: str, dialect: str) -> Edge:
    if name in _COM:
        s, d = _COM[name]
        return Edge(name, "com", s, d, same_loc=True)
    if dialect == "gin" and name in _GIN_SENDER:
        return Edge(name, "gin", "W", "W", gin=_GIN_SENDER[name])
    if dialect == "gin" and name in _GIN_RECEIVER:
        return Edge(name, "gin", "R", "W", gin=_GIN_RECEIVER[name])
    for prefix, fence in (("Pod", None), ("Pos", None), ("MFenced", "mfence"),
                          ("FenceSCd", "sc"), ("FenceAcqReld", "acq_rel")):
        rest = name[len(prefix):]
        if name.startswith(prefix) and len(rest) == 2 and set(rest) <= {"R", "W"}:
            if fence == "mfence" and dialect != "x86":
                break
            if fence in ("sc", "acq_rel") and dialect == "x86":
                break
            return Edge(name, "fence" if fence else "po", rest[0], rest[1],
                        same_loc=prefix == "Pos", fence=fence)
    known = (["Rfe", "Fre", "Coe", "Wse", "Pod{XY}", "Pos{XY}"]
             + (["MFenced{XY}"] if dialect == "x86" else ["FenceSCd{XY}", "FenceAcqReld{XY}"])
             + (list(_GIN_SENDER) + list(_GIN_RECEIVER) if dialect == "gin" else []))
    raise InputError(f"unknown edge '{name}' for dialect {dialect} (known: {', '.join(known)})")


@dataclass
class _Ev:
    thread: int
    kind: str  # R | W
    loc: str = ""
    value: int = 0  # written value, or the value a read must see
    reg: str = ""
    via: str | None = None  # GIN: how the write was issued (put / signal kind)
    fence_before: str | None = None
    gin_before: list[str] = field(default_factory=list)


def _check_cycle(edges: list[Edge]) -> None:
    if not any(e.external for e in edges):
        raise InputError("a cycle needs at least one communication edge (Rfe, Fre, Coe/Wse)")
    for a, b in zip(edges, edges[1:] + edges[:1], strict=True):
        if a.dst != b.src:
            raise InputError(f"edges {a.name} and {b.name} do not chain: {a.name} ends at a "
                             f"{'read' if a.dst == 'R' else 'write'}, {b.name} starts at a "
                             f"{'read' if b.src == 'R' else 'write'}")


def build_cycle(names: list[str], dialect: str, scope: str = "sys") -> str:
    """The litmus text of the test that observes the cycle ``names``."""
    if dialect not in DIALECTS:
        raise InputError(f"unknown dialect '{dialect}' (choose from {', '.join(DIALECTS)})")
    edges = [parse_edge(n, dialect) for n in names]
    _check_cycle(edges)
    # rotate: start just after a communication edge
    k = next(i for i, e in enumerate(edges) if e.external)
    edges = edges[k + 1:] + edges[:k + 1]
    n = len(edges)
    # events: event i is the source of edge i (and the target of edge i-1)
    thread = 0
    evs: list[_Ev] = []
    for e in edges:
        evs.append(_Ev(thread, e.src))
        if e.external:
            thread += 1
    nthreads = thread
    # locations: change on a Pod/fence/GIN edge, keep on Pos and communication edges
    letters = ["x", "y", "z", "a", "b", "c", "d", "e", "f", "g", "h", "k", "m", "n", "p", "q"]
    loc_id = 0
    locs: list[int] = []
    for e in edges:
        locs.append(loc_id)
        if not e.same_loc:
            loc_id += 1
    # the last edge closes the cycle: it must land on event 0's location
    if edges[-1].same_loc and loc_id != 0:
        loc_id_last = locs[-1]
        locs = [0 if x == loc_id_last else x for x in locs]
    else:
        locs = [0 if x == loc_id else x for x in locs]
    used = sorted(set(locs))
    locnames = letters if len(used) <= len(letters) else [f"x{j}" for j in range(len(used))]
    names_of = {lid: locnames[j] for j, lid in enumerate(used)}
    for ev, lid in zip(evs, locs, strict=True):
        ev.loc = names_of[lid]
    if len(used) == 1 and all(not e.same_loc for e in edges):
        raise InputError("the cycle's locations do not close: check the Pod/Pos edges")
    # coherence: per location, the writes ordered by Coe edges, then the others
    writes: dict[str, list[int]] = {}
    for i, ev in enumerate(evs):
        if ev.kind == "W":
            writes.setdefault(ev.loc, []).append(i)
    co_before: dict[int, set[int]] = {i: set() for i in range(n)}
    for i, e in enumerate(edges):
        j = (i + 1) % n
        if e.name in ("Coe", "Wse"):
            co_before[j].add(i)
    order: dict[str, list[int]] = {}
    for loc, ws in writes.items():
        rest = list(ws)
        out: list[int] = []
        while rest:
            ready = [w for w in rest if not (co_before[w] & set(rest))]
            if not ready:
                raise InputError(f"the Coe edges on {loc} are cyclic")
            out.append(ready[0])
            rest.remove(ready[0])
        order[loc] = out
        for v, w in enumerate(out, start=1):
            evs[w].value = v
    # reads: Rfe reads its source; Fre reads the write just before its target in co
    for i, e in enumerate(edges):
        j = (i + 1) % n
        if e.name == "Rfe":
            evs[j].value = evs[i].value
    for i, e in enumerate(edges):
        if e.name == "Fre":
            target = (i + 1) % n
            seq = order[evs[target].loc]
            pos = seq.index(target)
            evs[i].value = evs[seq[pos - 1]].value if pos > 0 else 0
    # reads not fixed by an Rfe or Fre (e.g. Pos...R after a write): leave free
    fixed = {(i + 1) % n for i, e in enumerate(edges) if e.name == "Rfe"} | {
        i for i, e in enumerate(edges) if e.name == "Fre"}
    # fences and GIN patterns sit on the edge's source -> target
    for i, e in enumerate(edges):
        j = (i + 1) % n
        if e.kind == "fence":
            evs[j].fence_before = e.fence
        if e.kind == "gin":
            if evs[i].kind == "W":
                evs[i].via = evs[i].via or "put"
            evs[j].via = e.gin
    return _render(names, dialect, scope, evs, nthreads, order, fixed)


def _gin_placement(evs: list[_Ev], nthreads: int) -> tuple[dict[int, int], dict[str, int]]:
    """GIN: the rank of each thread and the rank owning each location. Threads that
    read a common location share a rank (reads are local); a location lives on the
    rank of its readers (or, if none reads it, on the first readers' rank, else on a
    rank of its own); a thread that only writes is a sender on its own rank."""
    parent = list(range(nthreads))

    def find(t: int) -> int:
        while parent[t] != t:
            parent[t] = parent[parent[t]]
            t = parent[t]
        return t

    readers_of: dict[str, list[int]] = {}
    for ev in evs:
        if ev.kind == "R":
            readers_of.setdefault(ev.loc, []).append(ev.thread)
    for ts in readers_of.values():
        for t in ts[1:]:
            parent[find(t)] = find(ts[0])
    groups: dict[int, int] = {}
    rank_of: dict[int, int] = {}
    for t in range(nthreads):
        root = find(t)
        if root not in groups:
            groups[root] = len(groups)
        rank_of[t] = groups[root]
    owner: dict[str, int] = {}
    spare = len(groups)
    first_reader = next((rank_of[ts[0]] for ts in readers_of.values()), None)
    for ev in evs:
        if ev.loc in owner:
            continue
        if ev.loc in readers_of:
            owner[ev.loc] = rank_of[readers_of[ev.loc][0]]
        elif first_reader is not None:
            owner[ev.loc] = first_reader
        else:
            owner[ev.loc] = spare
    return rank_of, owner


def _render(names: list[str], dialect: str, scope: str, evs: list[_Ev], nthreads: int,
            order: dict[str, list[int]], fixed: set[int]) -> str:
    title = f"{dialect.upper()} {'+'.join(names)}"
    cols: list[list[str]] = [[] for _ in range(nthreads)]
    regcount = [0] * nthreads
    cond: list[str] = []
    x86_regs = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "R8D", "R9D", "R10D"]
    signals: set[str] = set()
    bundled: set[int] = set()  # signal writes carried by the put before them
    rank_of: dict[int, int] = {}
    owner: dict[str, int] = {}
    node_of: dict[int, int] = {}
    if dialect == "gin":
        rank_of, owner = _gin_placement(evs, nthreads)
        node_of = {t: rank_of[t] for t in range(nthreads)}
        for ev in evs:
            if ev.kind != "W":
                continue
            remote = owner[ev.loc] != rank_of[ev.thread]
            if not remote and ev.via is not None:
                raise InputError(f"a GIN edge writes {ev.loc} in the writing thread's own "
                                 "memory: GIN edges write another rank's memory")
            if remote and ev.via is None:
                ev.via = "put"
            if ev.via in ("nv", "ctrnv"):
                node_of[ev.thread] = owner[ev.loc]  # NVLink: the sender sits on that node
            elif ev.via not in (None, "put"):
                signals.add(ev.loc)
        for i, ev in enumerate(evs):
            if ev.via in ("ssig", "wsig"):
                prev = evs[i - 1]
                if prev.thread != ev.thread or prev.via != "put" or (
                        owner[prev.loc] != owner[ev.loc]):
                    raise InputError("a bundled signal (PutSSigdWW, PutWSigdWW) follows a put "
                                     "to the same rank")
                key = "sig" if ev.via == "ssig" else "wsig"
                prev.via = f"put+{key}={ev.loc}" + (f"+{ev.value}" if ev.value != 1 else "")
                bundled.add(i)
            if ev.via == "ctrnv":
                prev = evs[i - 1]
                if prev.thread == ev.thread and prev.via == "put":
                    prev.via = "put+ctr=C"
    for i, ev in enumerate(evs):
        t = ev.thread
        col = cols[t]
        if ev.fence_before == "mfence":
            col.append("MFENCE")
        elif ev.fence_before in ("sc", "acq_rel"):
            col.append(f"fence.{ev.fence_before}.{scope}")
        if dialect == "x86":
            if ev.kind == "W":
                col.append(f"MOV [{ev.loc}],${ev.value}")
            else:
                reg = x86_regs[regcount[t]]
                regcount[t] += 1
                col.append(f"MOV {reg},[{ev.loc}]")
                if i in fixed:
                    cond.append(f"{t}:{reg}={ev.value}")
            continue
        if ev.kind == "W":
            if i in bundled:
                continue
            if dialect == "gin" and ev.via is not None:
                col.extend(_gin_write(ev, owner[ev.loc]))
            else:
                col.append(f"st.relaxed.{scope} {ev.loc}, {ev.value}")
            continue
        reg = f"r{regcount[t]}"
        regcount[t] += 1
        if dialect == "gin" and ev.loc in signals:
            col.append(f"gin.read_signal {reg}, {ev.loc}")
        elif dialect == "gin":
            col.append(f"ld.acquire.{scope} {reg}, {ev.loc}")
        else:
            col.append(f"ld.relaxed.{scope} {reg}, {ev.loc}")
        if i in fixed:
            cond.append(f"{t}:{reg}={ev.value}")
    for loc, ws in order.items():
        if len(ws) > 1:
            where = f"{loc}@{owner[loc]}" if dialect == "gin" else loc
            cond.append(f"{where}={evs[ws[-1]].value}")
    locs = sorted({ev.loc for ev in evs})
    if dialect == "x86":
        header = [f"P{t}" for t in range(nthreads)]
        init = " ".join(f"{x}=0;" for x in locs)
    elif dialect == "ptx":
        gpus = scope == "sys"
        header = [f"P{t}@cta {0 if gpus else t},gpu {t if gpus else 0}"
                  for t in range(nthreads)]
        init = " ".join(f"{x}=0;" for x in locs)
    else:
        cta: dict[int, int] = {}
        header = []
        for t in range(nthreads):
            r = rank_of[t]
            cta[r] = cta.get(r, -1) + 1
            header.append(f"P{t}@cta {cta[r]},gpu {r},node {node_of[t]}")
        init = " ".join(f"{x}@{owner[x]} = 0;" for x in locs if x not in signals) + "".join(
            f" {x} : signal;" for x in sorted(signals))
        if any(ev.via == "put+ctr=C" for ev in evs):
            init += " C : counter;"
    return _layout(title, names, init, header, cols, cond)


def _layout(title: str, names: list[str], init: str, headers: list[str],
            cols: list[list[str]], cond: list[str]) -> str:
    depth = max(len(c) for c in cols)
    width = [max([len(x) for x in c] + [len(h)]) for c, h in zip(cols, headers, strict=True)]
    header = " | ".join(h.ljust(w) for h, w in zip(headers, width, strict=True)).rstrip()
    rows = []
    for r in range(depth):
        cells = [(c[r] if r < len(c) else "").ljust(w) for c, w in zip(cols, width, strict=True)]
        rows.append(" " + " | ".join(cells).rstrip() + " ;")
    conj = " /\\ ".join(cond) if cond else "true"
    doc = f'"{" ".join(names)}: generated by gdrcheck generate (diy-style cycle)"'
    return f"{title}\n{doc}\n{{ {init} }}\n {header} ;\n" + "\n".join(rows) + \
        f"\nexists ({conj})\n"


def _gin_write(ev: _Ev, peer: int) -> list[str]:
    """The GIN calls that perform write ``ev`` (a put's data or a signal) at ``peer``."""
    via = ev.via or ""
    if via.startswith("put"):
        extra = via[len("put+"):] if via.startswith("put+") else ""
        opt = f", {extra}" if extra else ""
        return [f"gin.put_value c0, {ev.loc}@{peer}, {ev.value}{opt}"]
    if via == "sigw":
        return [f"gin.signal c0, {ev.loc}@{peer}" + ("" if ev.value == 1 else f"+{ev.value}")
                + ", weak"]
    if via == "nv":
        return [f"st.release.sys {ev.loc}@{peer}, {ev.value}"]
    if via == "ctrnv":
        return ["gin.wait_counter C, 1", f"st.release.sys {ev.loc}@{peer}, {ev.value}"]
    if via in ("sig", "sigx"):
        ctx = "c0" if via == "sig" else "c1"
        return [f"gin.signal {ctx}, {ev.loc}@{peer}" + ("" if ev.value == 1 else
                                                         f"+{ev.value}")]
    if via == "flushsigx":
        return ["gin.flush c0", f"gin.signal c1, {ev.loc}@{peer}"]
    raise InputError(f"cannot generate the GIN write '{via}'")


def cycle_name(names: list[str]) -> str:
    return "+".join(names)


def all_rotations(names: list[str]) -> list[list[str]]:
    return [names[i:] + names[:i] for i in range(len(names))]


__all__ = ["build_cycle", "parse_edge", "Edge", "DIALECTS", "cycle_name", "all_rotations"]
