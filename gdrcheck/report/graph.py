"""Pictures of executions in herd7's visual conventions (Graphviz DOT).

``gdrcheck check FILE --graph out.svg`` draws the witness execution of each result
(and ``gdrcheck explain FILE --graph out.svg`` the candidate execution of a forbidden
outcome, with the cycle that rules it out in bold):

- one lane (a DOT cluster) per agent: each thread, grouped by rank (GPU) and CTA as
  it is placed; each NIC queue ``nicR.CTX.PEER`` and each proxy ``proxyR`` of a
  rank; the initial writes in a lane of their own;
- nodes ``a: W x@1=1`` (herd's letters, in event order), with the instruction below;
- an ``issue`` edge (grey) from a GIN or NVSHMEM call to the events that carry it out:
  its proxy's, then the first of each NIC queue;
- ``po`` black between consecutive events of a thread, ``rf`` red, ``co`` blue
  between consecutive writes of a location (herd's co-last), ``fr`` orange dashed
  (from a read to the write after the one it read from), the engines' extra orders
  ``fso`` (purple) and ``syncbar`` (green);
- with ``--show all``, the model's relations named by its ``show`` statements, or,
  for a model without any, its synchronisation steps: ``sync``, ``sc``,
  ``sync-barrier`` and the members of ``gin-hb`` (the GIN and NVSHMEM bridge edges:
  ``issue-rel``, ``publish-bundled``, ``publish-strong``, ``nic-sync``, ``gdr-seen``,
  ``push``, ``flush``, ...) or of ``ghb`` (x86-TSO: ``ppo``, ``mfence``, ...),
  each in its own colour, labelled with its name, evaluated on the drawn execution;
- for an implementation model (one with an arrival order, specs/pcie.cat), always:
  the arrival order ``arrive`` (teal, its immediate steps) and, dashed in red-brown
  from the later access to the earlier one, each overtake the model allows, named by
  the relation that allows it (``pcie-pass``: Relaxed Ordering; ``ib-unordered``);
- lanes left to right by rank, then CTA, then thread, then agent (NIC queues, proxy);
  events of a set the model never names (a proxy's, under a model without one) are
  left out, so no lane is drawn empty.

The DOT text is written by this module (no Python binding needed); ``.svg``, ``.png``
and ``.pdf`` files are rendered by Graphviz's ``dot`` program. Without it, the DOT
file is written next to the requested one and :func:`write_graph` says how to install
Graphviz; the exit code of the command is not affected.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path

from gdrcheck.analysis.drawing import Drawing
from gdrcheck.cat.values import Pair
from gdrcheck.engine.result import Witness, WitnessEvent
from gdrcheck.lower.program import Program

INSTALL_HINT = ("install Graphviz to render it: apt-get install graphviz (Debian, Ubuntu), "
                "brew install graphviz (macOS) or conda install graphviz")

BASE_COLOURS = {"po": "black", "rf": "red", "co": "blue", "fr": "orange",
                "fso": "purple", "syncbar": "darkgreen", "issue": "gray45",
                "arrive": "teal", "overtake": "tan4"}
PALETTE = ("darkviolet", "deeppink3", "forestgreen", "darkorange3", "dodgerblue3",
           "goldenrod3", "firebrick", "cyan4", "magenta3", "sienna", "slateblue",
           "olivedrab")
HIGHLIGHT = "crimson"
LANE_ORDERS = ("root", "chain")
"""Two ways to keep the lanes left to right: an invisible root whose edges to the
lanes' first events keep their order (``ordering=out``), or those first events on one
rank (``rank=same``) chained by invisible edges. Each aborts some Graphviz: the chain,
with newrank, Graphviz 16's mincross (dot and Viz.js alike) on one picture in six of
the library; the root, Graphviz 2.43's init_rank (Debian 12, Ubuntu 24.04: 5 of the
223 witness pictures of litmus/gin/0*, nvshmem/0*, classic/, e.g. gin/05 under
gin-proxy; the chain renders all 223 in order). The root is tried first, the chain
when the ``dot`` on PATH fails on it (:func:`write_graph`, :func:`renderable`)."""
UNORDERED = "darkorange2"
"""The pairs an allowed outcome needs unordered (``gdrcheck explain``), dashed."""
NODE_FONT = 14
EDGE_FONT = 13
"""Point sizes of node and edge labels: the labels are read at the size an SVG opens
in a browser (at 9 pt, herd7's size, the edge labels were too small to read)."""



def letters(n: int) -> str:
    """herd's event names: a, b, ..., z, aa, ab, ..."""
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _node_label(name: str, e: WitnessEvent) -> str:
    text = e.label.split(" / ", 1)[-1] if e.agent else e.label
    if e.kind in ("R", "W"):
        if e.thread < 0:
            return f"W {e.loc}={e.value}"
        head = f"{name}: {e.kind} {e.loc}={e.value}"
        return f"{head}\n{text}" if text else head
    return f"{name}: {text or 'F'}"


def _lanes(prog: Program, w: Witness, hidden: frozenset[int] = frozenset()
           ) -> dict[tuple[object, ...], list[WitnessEvent]]:
    """Lane key -> its events in order. Keys sort as they are drawn, left to right:
    (0, "init"), (1, gpu, cta, thread) for threads, (2, rank, agent) for agents."""
    lanes: dict[tuple[object, ...], list[WitnessEvent]] = {}
    for e in w.events:
        if e.eid in hidden:
            continue
        ev = prog.events[e.eid]
        key: tuple[object, ...]
        if e.thread < 0:
            key = (0, "init")
        elif e.agent:
            key = (2, ev.rank if ev.rank is not None else -1, _agent_order(e.agent))
        else:
            gpu = -1 if ev.gpu is None else ev.gpu
            cta = -1 if ev.cta is None else ev.cta
            key = (1, gpu, cta, e.thread)
        lanes.setdefault(key, []).append(e)
    return dict(sorted(lanes.items(), key=lambda kv: kv[0]))


def _agent_order(agent: str) -> tuple[object, ...]:
    """NIC queues (``nicR.CTX.PEER``, by peer number), then proxies."""
    parts = agent.split(".")
    kind = 1 if agent.startswith("proxy") else 0
    return (kind, *[(0, int(x), "") if x.isdigit() else (1, 0, x) for x in parts],
            agent)


def _agent_name(key: tuple[object, ...]) -> str:
    """The agent of an agent lane's key (:func:`_lanes`)."""
    order = key[2]
    return str(order[-1]) if isinstance(order, tuple) else str(order)


def witness_dot(
    prog: Program,
    w: Witness,
    *,
    title: str = "",
    relations: Mapping[str, Sequence[Pair]] | None = None,
    highlight: Sequence[tuple[int, int, str]] = (),
    hidden: frozenset[int] = frozenset(),
    arrival: Sequence[Pair] = (),
    overtakes: Sequence[tuple[int, int, str]] = (),
    unordered: Sequence[tuple[int, int, str]] = (),
    lane_order: str = "root",
    stuck: Sequence[int] = (),
) -> str:
    """The execution ``w`` of ``prog`` as DOT text (see the module docstring).
    ``relations``: further named relations to draw; ``highlight``: edges
    ``(from, to, label)`` drawn in bold (a cycle); ``hidden``: events left out;
    ``arrival`` and ``overtakes``: the arrival order and the overtakes it allows
    (:class:`gdrcheck.analysis.drawing.Drawing`); ``unordered``: pairs ``(from, to,
    why)`` an allowed outcome needs unordered, dashed in orange; ``lane_order``: one of
    :data:`LANE_ORDERS`.``stuck``: the reads a thread
    repeats forever (a Hang of the liveness question), drawn in bold with ``forever``."""
    drawn = {e.eid for e in w.events if e.eid not in hidden}
    order = [e.eid for e in w.events if e.thread >= 0]
    name = {eid: letters(i) for i, eid in enumerate(sorted(order))}
    for e in w.events:
        if e.thread < 0:
            name[e.eid] = "init"
    lines = ["digraph G {",
             "  graph [rankdir=TB, newrank=true, splines=true, nodesep=0.4, ranksep=0.5,"
             " fontname=\"Helvetica\", fontsize=15"
             + (f", label={_q(title)}, labelloc=t" if title else "") + "];",
             f"  node [shape=none, fontname=\"Helvetica\", fontsize={NODE_FONT}, margin=0.05];",
             f"  edge [fontname=\"Helvetica\", fontsize={EDGE_FONT}, arrowsize=0.8];"]
    # -- lanes ------------------------------------------------------------------
    lanes = _lanes(prog, w, hidden)
    # left to right: init, unplaced threads, then per rank its GPU and its NIC/proxy
    groups: dict[tuple[object, ...], list[tuple[object, ...]]] = {}
    for key in lanes:
        if key[0] == 1 and key[1] != -1:
            groups.setdefault((1, key[1], 0, "gpu"), []).append(key)
        elif key[0] == 2:
            groups.setdefault((1, key[1], 1, "rank"), []).append(key)
        else:
            groups.setdefault((0, 0, 0, "top", key), []).append(key)
    groups = dict(sorted(groups.items(), key=lambda kv: kv[0][:3]))
    ncl = 0

    def cluster(label: str, style: str) -> str:
        nonlocal ncl
        ncl += 1
        return f"subgraph cluster_{ncl} {{ label={_q(label)}; {style}"

    def lane(key: tuple[object, ...], indent: str) -> None:
        evs = lanes[key]
        if key[0] == 0:
            label = "init"
        elif key[0] == 2:
            label = _agent_name(key)
        else:
            label = f"P{key[3]}"
        lines.append(indent + cluster(label, "style=rounded; color=gray60; fontsize=13;"))
        for e in evs:
            shape = ", fontcolor=gray40" if e.thread < 0 else ""
            lines.append(f"{indent}  e{e.eid} [label={_q(_node_label(name[e.eid], e))}{shape}];")
        lines.append(indent + "}")

    for gkey, members in groups.items():
        if gkey[3] == "top":
            for key in members:
                lane(key, "  ")
            continue
        if gkey[3] == "gpu":
            gpu = gkey[1]
            node = next((prog.events[e.eid].node for k in members for e in lanes[k]
                         if prog.events[e.eid].node is not None), None)
            where = f", node {node}" if node is not None else ""
            lines.append("  " + cluster(f"GPU {gpu} (rank {gpu}{where})",
                                        "style=dashed; color=gray40;"))
            by_cta: dict[object, list[tuple[object, ...]]] = {}
            for key in members:
                by_cta.setdefault(key[2], []).append(key)
            for cta, keys in by_cta.items():
                lines.append("    " + cluster(f"CTA {cta}", "style=dotted; color=gray50;"))
                for key in keys:
                    lane(key, "      ")
                lines.append("    }")
            lines.append("  }")
        else:
            rank = gkey[1]
            kinds = sorted({"proxy" if _agent_name(k).startswith("proxy") else "NIC"
                            for k in members})
            lines.append("  " + cluster(f"{' and '.join(kinds)} of rank {rank}",
                                        "style=dashed; color=steelblue;"))
            for key in members:
                lane(key, "    ")
            lines.append("  }")
    # -- lanes left to right in the order above (LANE_ORDERS)
    firsts = [f"e{lanes[key][0].eid}" for members in groups.values() for key in members
              if lanes[key]]
    if len(firsts) > 1 and lane_order == "root":
        lines.append("  lanes [shape=point, style=invis, width=0, ordering=out];")
        lines.extend(f"  lanes -> {n} [style=invis];" for n in firsts)
    elif len(firsts) > 1:
        lines.append(f"  {{rank=same; {'; '.join(firsts)};}}")
        lines.append(f"  {' -> '.join(firsts)} [style=invis];")
    # -- po (and the vertical order of agent lanes) -----------------------------
    hl = {(a, b, label.split(" ", 1)[0]) for a, b, label in highlight}
    for key, evs in lanes.items():
        for x, y in zip(evs, evs[1:], strict=False):
            if key[0] == 1 and (x.eid, y.eid, "po") not in hl:
                lines.append(f"  e{x.eid} -> e{y.eid} [color=black, label=\"po\"];")
            else:
                lines.append(f"  e{x.eid} -> e{y.eid} [style=invis];")
    # -- rf, co, fr -----------------------------------------------------------------

    def edge(a: int, b: int, rel: str, colour: str, extra: str = "") -> None:
        if a not in drawn or b not in drawn or (a, b, rel) in seen or (a, b, rel) in hl:
            return
        seen.add((a, b, rel))
        lines.append(f"  e{a} -> e{b} [color={colour}, fontcolor={colour}, "
                     f"label={_q(rel)}, constraint=false{extra}];")

    seen: set[tuple[int, int, str]] = set()
    for a, b in sorted(w.rf):
        edge(a, b, "rf", BASE_COLOURS["rf"])
    succ: dict[int, int] = {}
    for _loc, ws in sorted(w.co.items()):
        for a, b in zip(ws, ws[1:], strict=False):
            succ[a] = b
            if prog.events[a].is_init:
                continue
            edge(a, b, "co", BASE_COLOURS["co"])
    for wr, r in sorted(w.rf):
        if wr in succ:
            edge(r, succ[wr], "fr", BASE_COLOURS["fr"], ", style=dashed")
    for rel in ("fso", "syncbar"):
        for a, b in sorted(w.extra.get(rel, [])):
            edge(a, b, rel, BASE_COLOURS[rel])
    # -- issue: a call to the events that carry it out ------------------------------
    by_op: dict[int, list[WitnessEvent]] = {}
    for e in w.events:
        op = prog.events[e.eid].op
        if op is not None and e.eid in drawn:
            by_op.setdefault(op, []).append(e)
    for _op, evs in sorted(by_op.items()):
        issuers = [e for e in evs if not e.agent]
        proxies = [e for e in evs if e.agent.startswith("proxy")]
        queues: dict[str, WitnessEvent] = {}
        for e in evs:
            if e.agent and not e.agent.startswith("proxy"):
                queues.setdefault(e.agent, e)
        for src in issuers[:1]:
            heads = proxies[:1] or list(queues.values())
            for dst in heads:
                edge(src.eid, dst.eid, "issue", BASE_COLOURS["issue"], ", style=bold")
            for p in proxies[:1]:
                for dst in queues.values():
                    edge(p.eid, dst.eid, "issue", BASE_COLOURS["issue"], ", style=bold")
    # -- arrival order and the overtakes it allows ---------------------------------
    for a, b in arrival:
        edge(a, b, "arrive", BASE_COLOURS["arrive"])
    for later, earlier, why in overtakes:
        edge(later, earlier, why, BASE_COLOURS["overtake"], ", style=dashed, penwidth=1.8")
    # -- the model's relations ------------------------------------------------------
    for i, (rel, pairs) in enumerate((relations or {}).items()):
        colour = PALETTE[i % len(PALETTE)]
        for a, b in sorted(pairs):
            if a != b:
                edge(a, b, rel, colour)
    # -- the pairs an allowed outcome needs unordered --------------------------------
    for a, b, why in unordered:
        if a in drawn and b in drawn:
            label = "\n".join(textwrap.wrap(why, 28)) or why
            lines.append(f"  e{a} -> e{b} [color={UNORDERED}, fontcolor={UNORDERED}, "
                         f"style=dashed, penwidth=2.5, label={_q(label)}, constraint=false];")
    # -- the reads a stuck thread repeats forever (liveness) ----------------------------
    for r in stuck:
        if r in drawn:
            e = next(x for x in w.events if x.eid == r)
            lines.append(f"  e{r} [label={_q(_node_label(name[r], e) + ' (forever)')}, "
                         f"fontcolor={HIGHLIGHT}, shape=box, style=\"rounded,bold\", "
                         f"color={HIGHLIGHT}];")
    # -- the cycle ------------------------------------------------------------------
    for a, b, label in highlight:
        lines.append(f"  e{a} -> e{b} [color={HIGHLIGHT}, fontcolor={HIGHLIGHT}, "
                     f"penwidth=2.5, label={_q(label)}, constraint=false];")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------

RENDERED = (".svg", ".png", ".pdf")


def renderable(texts: Sequence[str]) -> str:
    """The first of ``texts`` (DOT of one picture, :data:`LANE_ORDERS`) that the
    ``dot`` on PATH lays out, else the first: what ``--graph -`` prints, for
    ``| dot -Tsvg``."""
    exe = shutil.which("dot")
    if exe is None or len(texts) < 2:
        return texts[0]
    for text in texts:
        try:
            subprocess.run([exe, "-Tplain"], input=text, text=True, check=True,
                           capture_output=True, timeout=120)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError):
            continue
        return text
    return texts[0]


def write_graph(dot: str, path: str | Path, alternatives: Sequence[str] = ()
                ) -> tuple[Path, str | None]:
    """Write ``dot`` to ``path``: as is for ``.dot`` / ``.gv``, rendered by Graphviz's
    ``dot`` for ``.svg`` / ``.png`` / ``.pdf`` (when ``dot`` fails on it, each of
    ``alternatives``, the same picture in another construction, is tried). Returns the
    file written and a message when the picture could not be rendered (the DOT file is
    then written next to it)."""
    if alternatives and Path(path).suffix.lower() in RENDERED:
        dot = renderable([dot, *alternatives])
    p = Path(path)
    if p.suffix.lower() not in RENDERED:
        p.write_text(dot, encoding="utf-8")
        return p, None
    exe = shutil.which("dot")
    if exe is None:
        alt = p.with_suffix(".dot")
        alt.write_text(dot, encoding="utf-8")
        return alt, (f"Graphviz's dot program was not found: wrote {alt} instead of {p}; "
                     f"{INSTALL_HINT}")
    try:
        subprocess.run([exe, f"-T{p.suffix.lower()[1:]}", "-o", str(p)], input=dot,
                       text=True, check=True, capture_output=True, timeout=120)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as err:
        alt = p.with_suffix(".dot")
        alt.write_text(dot, encoding="utf-8")
        detail = getattr(err, "stderr", "") or str(err)
        return alt, f"dot failed ({detail.strip()}): wrote {alt} instead of {p}"
    return p, None


def numbered(path: str | Path, index: int, test: str, model: str) -> Path:
    """The file for one of several pictures: ``out-TEST-MODEL.svg``."""
    p = Path(path)
    if index == 0 and not test:
        return p
    safe = "".join(c if c.isalnum() or c in "-_.+" else "_" for c in f"{test}-{model}")
    return p.with_name(f"{p.stem}-{safe}{p.suffix}")


def drawing_dot(d: Drawing, lane_order: str = "root") -> str:
    """The DOT text of one result's picture (:func:`gdrcheck.analysis.drawing.drawing_of`)."""
    return witness_dot(d.program, d.execution, title=d.title, relations=d.relations,
                       highlight=d.highlight, hidden=d.hidden, arrival=d.arrival,
                       overtakes=d.overtakes, unordered=d.unordered, lane_order=lane_order,
                       stuck=d.stuck)


def drawing_dots(d: Drawing) -> list[str]:
    """The picture in each construction of :data:`LANE_ORDERS`, the preferred first."""
    return [drawing_dot(d, order) for order in LANE_ORDERS]
