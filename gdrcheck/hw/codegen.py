"""PTX litmus test → CUDA C++ kernel (litmus7's job, for GPUs; issue 6).

Every memory instruction is inline PTX with its exact semantics and scope
(``ld.relaxed.gpu.global.s32``, ``st.release.sys.global.s32``, ``fence.sc.cta``,
``atom.acq_rel.gpu.global.add.s32``, ...), so nothing is left to the compiler.

Layout of one launch (MC Mutants / GPUHarbor style):

- the test's threads are grouped by their ``cta``; launch block ``b`` plays group
  ``b % G`` of the 32 instances ``(b / G) * 32 .. + 31``;
- in a block, warp ``w`` plays the group's ``w``-th litmus thread and lane ``l``
  plays it for instance ``perm[base + l]`` (a random permutation per launch, so
  the threads of one instance sit in different warps and blocks each time);
- each instance has its own locations, ``stride`` words apart (different cache
  lines), and its own registers' output slots;
- optional stress blocks hammer a scratch area while the test runs;
- every thread spins on a start flag, then runs its litmus thread once.

Only PTX tests whose threads sit on one GPU are supported (``gpu`` values other
than that of the first thread are refused), and CTA barriers, which would need the
whole block, are refused too.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gdrcheck.errors import UnsupportedError
from gdrcheck.litmus import ast as A
from gdrcheck.litmus.features import test_features

SCOPES = {"cta": "cta", "gpu": "gpu", "sys": "sys"}
_CMP = {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}
_OPS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "and": "&", "or": "|", "xor": "^"}


@dataclass
class Kernel:
    """The generated source and what the host needs to run it."""

    test: A.Test
    source: str
    locations: list[str]  # index -> location name (instance-local slots)
    init: dict[str, int]
    regs: list[tuple[int, str]]  # (thread, register) output slots, in order
    groups: list[list[int]]  # cta group -> litmus thread indexes
    warps: int  # warps per block (the largest group)
    notes: list[str] = field(default_factory=list)


def _sem(sem: str, scope: str | None, op: str) -> str:
    if sem == "weak":
        return op
    if sem == "volatile":
        return f"{op}.volatile"
    assert scope is not None
    return f"{op}.{sem}.{SCOPES[scope]}"


class _Gen:
    def __init__(self, test: A.Test) -> None:
        self.test = test
        self.locs: list[str] = []
        self.regs: list[tuple[int, str]] = []

    rank: int | None = None  # GIN (stand-in mode): the rank of the thread being generated

    def loc(self, ref: A.LocRef) -> int:
        if self.test.arch == "GIN":
            k = ref.rank if ref.rank is not None else self.rank
            name = f"{ref.name}@{k}"
        elif ref.rank is not None:
            raise UnsupportedError("locations of other ranks (x@k) need a GIN test",
                                   pos=ref.pos)
        else:
            name = ref.name
        if name not in self.locs:
            self.locs.append(name)
        return self.locs.index(name)

    def val(self, v: A.Value) -> str:
        return str(v.value) if isinstance(v, A.Const) else f"r_{v.name}"

    thread = 0

    def thread_body(self, th: A.Thread) -> list[str]:
        self.thread = th.index
        self.rank = th.placement.gpu
        out: list[str] = []
        for ins in th.instrs:
            out.extend(self.instr(ins))
        return out

    def instr(self, ins: A.Instr) -> list[str]:
        if isinstance(ins, A.PtxLoad):
            op = _sem(ins.sem, ins.scope, "ld")
            a = self.loc(ins.loc)
            return [f'asm volatile("{op}.global.s32 %0, [%1];" : "=r"(r_{ins.dst.name}) '
                    f': "l"(mem + {a} * STRIDE) : "memory");  // {_text(ins)}']
        if isinstance(ins, A.PtxStore):
            op = _sem(ins.sem, ins.scope, "st")
            a = self.loc(ins.loc)
            return [f'asm volatile("{op}.global.s32 [%0], %1;" :: "l"(mem + {a} * STRIDE), '
                    f'"r"((int)({self.val(ins.value)})) : "memory");  // {_text(ins)}']
        if isinstance(ins, (A.PtxAtom, A.PtxRed)):
            return self.rmw(ins)
        if isinstance(ins, A.PtxFence):
            if ins.kind.startswith("proxy"):
                return [f'asm volatile("fence.{ins.kind};" ::: "memory");  // {_text(ins)}']
            assert ins.scope is not None
            return [f'asm volatile("fence.{ins.kind}.{SCOPES[ins.scope]};" ::: "memory");'
                    f"  // {_text(ins)}"]
        if isinstance(ins, A.LocalOp):
            args = [self.val(v) for v in ins.args]
            if ins.op == "mov":
                return [f"r_{ins.dst.name} = {args[0]};"]
            return [f"r_{ins.dst.name} = {args[0]} {_OPS[ins.op]} {args[1]};"]
        if isinstance(ins, A.Label):
            return [f"L{self.thread}_{ins.name}:;"]
        if isinstance(ins, A.Goto):
            return [f"goto L{self.thread}_{ins.target};"]
        if isinstance(ins, A.Branch):
            return [f"if ({self.val(ins.a)} {_CMP[ins.cond]} {self.val(ins.b)}) "
                    f"goto L{self.thread}_{ins.target};"]
        raise UnsupportedError(f"gdrcheck hw cannot run {type(ins).__name__} "
                               "(CTA barriers, async copies and GIN calls are not supported)",
                               pos=ins.pos)

    def rmw(self, ins: A.PtxAtom | A.PtxRed) -> list[str]:
        a = self.loc(ins.loc)
        sem = "" if ins.sem == "relaxed" and False else f".{ins.sem}"
        base = f"{'atom' if isinstance(ins, A.PtxAtom) else 'red'}{sem}.{SCOPES[ins.scope]}"
        typ = "b32" if ins.op in ("exch", "cas", "and", "or", "xor") else "s32"
        if isinstance(ins, A.PtxRed):
            rop, rval = ins.op, self.val(ins.value)
            if rop == "sub":
                rop, rval = "add", f"-({rval})"
            if rop not in ("add", "and", "or", "xor", "min", "max", "inc", "dec"):
                raise UnsupportedError(f"PTX has no red.{ins.op}", pos=ins.pos)
            if ins.sem not in ("relaxed", "release"):
                # red takes .relaxed/.release only: an atom whose result is dropped
                abase = f"atom.{ins.sem}.{SCOPES[ins.scope]}"
                return ["{ int dropped; "
                        f'asm volatile("{abase}.global.{rop}.{typ} %0, [%1], %2;" : '
                        f'"=r"(dropped) : "l"(mem + {a} * STRIDE), "r"((int)({rval})) : '
                        f'"memory"); }}  // {_text(ins)}']
            return [f'asm volatile("{base}.global.{rop}.{typ} [%0], %1;" :: '
                    f'"l"(mem + {a} * STRIDE), "r"((int)({rval})) : "memory");'
                    f"  // {_text(ins)}"]
        ops = [self.val(v) for v in ins.operands]
        if ins.op == "cas":
            return [f'asm volatile("{base}.global.cas.b32 %0, [%1], %2, %3;" : '
                    f'"=r"(r_{ins.dst.name}) : "l"(mem + {a} * STRIDE), "r"((int)({ops[0]})), '
                    f'"r"((int)({ops[1]})) : "memory");  // {_text(ins)}']
        op = ins.op if ins.op not in ("inc", "dec", "sub") else "add"
        arg = ops[0] if ops else ("1" if ins.op == "inc" else "-1")
        if ins.op == "sub":
            arg = f"-({arg})"
        if op not in ("add", "exch", "and", "or", "xor", "min", "max"):
            raise UnsupportedError(f"PTX has no atom.{ins.op}", pos=ins.pos)
        return [f'asm volatile("{base}.global.{op}.{typ} %0, [%1], %2;" : '
                f'"=r"(r_{ins.dst.name}) : "l"(mem + {a} * STRIDE), "r"((int)({arg})) : '
                f'"memory");  // {_text(ins)}']


def _text(ins: A.Instr) -> str:
    from gdrcheck.litmus.printer import instr

    return instr(ins).replace("*/", "* /")


def _registers(th: A.Thread) -> list[str]:
    names: list[str] = []
    for ins in th.instrs:
        for f in ("dst",):
            r = getattr(ins, f, None)
            if isinstance(r, A.Reg) and r.name not in names:
                names.append(r.name)
        for f in ("value", "a", "b"):
            v = getattr(ins, f, None)
            if isinstance(v, A.Reg) and v.name not in names:
                names.append(v.name)
        for v in getattr(ins, "operands", ()) or ():
            if isinstance(v, A.Reg) and v.name not in names:
                names.append(v.name)
        for v in getattr(ins, "args", ()) or ():
            if isinstance(v, A.Reg) and v.name not in names:
                names.append(v.name)
    return names


def generate(test: A.Test, stand_in: bool = False) -> Kernel:
    """The CUDA source running ``test`` on one GPU. A PTX test's threads must sit on one
    GPU. With ``stand_in``, a GIN-dialect test made of PTX instructions only (the LSA
    tests: loads and stores on x@k over NVLink) runs with one CTA standing in for each
    GPU and x@k as ordinary locations: NOT an NVLink run (issue 7 needs two GPUs)."""
    if test.arch == "GIN" and not stand_in:
        raise UnsupportedError("a GIN test needs several GPUs; --stand-in runs its PTX "
                               "instructions with one CTA per GPU on one GPU", test.path)
    if test.arch not in ("PTX", "GIN"):
        raise UnsupportedError(f"gdrcheck hw runs PTX tests, not {test.arch}", test.path)
    if "PTX75" in test_features(test):  # issue 14 item 6: not generated yet
        raise UnsupportedError("gdrcheck hw does not run virtual aliases, surface/texture/"
                               "constant accesses, shared memory, mbarriers or TMA yet",
                               test.path)
    gpus = {th.placement.gpu for th in test.threads} - {None}
    if len(gpus) > 1 and test.arch == "PTX":
        raise UnsupportedError("the test places threads on several GPUs: gdrcheck hw runs "
                               "on one GPU", test.path)
    g = _Gen(test)
    for item in test.init:
        if isinstance(item, A.InitLoc) and (test.arch == "PTX" or item.loc.rank is not None):
            g.loc(item.loc)
    ctas: dict[tuple[int, int], list[int]] = {}
    for i, th in enumerate(test.threads):
        key = (th.placement.gpu or 0, th.placement.cta if th.placement.cta is not None else 0)
        ctas.setdefault(key, []).append(i)
    groups = [ctas[k] for k in sorted(ctas)]
    warps = max(len(gr) for gr in groups)
    bodies: list[str] = []
    init_regs: dict[tuple[int, str], int] = {}
    for item in test.init:
        if isinstance(item, A.InitReg) and isinstance(item.value, int):
            init_regs[(item.thread, item.reg)] = item.value
    for i, th in enumerate(test.threads):
        try:
            body = g.thread_body(th)
        except UnsupportedError as err:
            raise err.with_context(test.path, test.source) from None
        names = _registers(th)
        decl = [f"int r_{n} = {init_regs.get((th.index, n), 0)};" for n in names]
        outs = []
        for n in names:
            slot = len(g.regs)
            g.regs.append((th.index, n))
            outs.append(f"out[inst * NREGS + {slot}] = r_{n};")
        bodies.append(
            f"  if (role == {i}) {{  // P{th.index}\n"
            + "".join(f"    {x}\n" for x in decl + body + outs) + "  }\n")
    init: dict[str, int] = {}
    for item in test.init:
        if isinstance(item, A.InitLoc) and test.arch == "GIN":
            if item.loc.rank is not None:
                init[f"{item.loc.name}@{item.loc.rank}"] = item.value
            else:  # symmetric: every rank's copy
                for name in g.locs:
                    if name.rsplit("@", 1)[0] == item.loc.name:
                        init.setdefault(name, item.value)
        elif isinstance(item, A.InitLoc):
            init[item.loc.name] = item.value
    role_table = ", ".join(
        str(gr[w]) if w < len(gr) else "-1" for gr in groups for w in range(warps))
    nlocs = max(1, len(g.locs))
    src = f"""// Generated by gdrcheck hw from litmus test {test.name} ({test.path or 'text'}).
// Every memory access and fence is inline PTX with the test's semantics and scope.
#define NLOCS {nlocs}
#define NREGS {max(1, len(g.regs))}
#define GROUPS {len(groups)}
#define WARPS {warps}
#define NTHREADS {len(test.threads)}

__constant__ int ROLE[GROUPS * WARPS] = {{{role_table}}};

extern "C" __global__ void litmus(int *locs, int *out, const int *perm, int *bar,
                                  int instances, int STRIDE, int *scratch,
                                  int scratch_words, int stress_blocks) {{
  int block = blockIdx.x;
  if (block < stress_blocks) {{  // memory stress: hammer a scratch area meanwhile
    for (int k = 0; k < 2048; k++) {{
      int i = (threadIdx.x * 64 + block * 977 + k * 31) % scratch_words;
      atomicAdd(scratch + i, 1);
    }}
    return;
  }}
  block -= stress_blocks;
  int group = block % GROUPS;
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int slot = (block / GROUPS) * 32 + lane;
  if (warp >= WARPS || slot >= instances) return;
  int role = ROLE[group * WARPS + warp];
  if (role < 0) return;
  int inst = perm[slot];
  int *mem = locs + (long long)inst * NLOCS * STRIDE;
  // the instance's threads meet before they run (a spin barrier per instance)
  atomicAdd(bar + inst, 1);
  while (atomicAdd(bar + inst, 0) < NTHREADS) {{ }}
{''.join(bodies)}}}
"""
    return Kernel(test, src, list(g.locs), init, g.regs, groups, warps)
