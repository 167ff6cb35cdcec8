"""A small typed view of clang's LLVM IR, read with llvmlite (docs/kernels.md).

llvmlite parses and verifies the module; what its binding does not expose (predicates,
``volatile``, inline-asm strings, GEP element types) is read from each instruction's own
text, and the source positions from the module text (the ``!dbg`` numbers of an
instruction's printed text differ from the module's).
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

from gdrcheck.errors import InputError


@dataclass(frozen=True)
class SrcPos:
    """A position in a source file (1-based line and column); ``api`` is the shipped
    header's public function the instruction came from (``nvshmem_int_put``), if any."""

    file: str
    line: int
    col: int
    api: str | None = None
    caller: int | None = None  # the kernel's line, when inlined from a helper of the file

    def __str__(self) -> str:
        at = f"{Path(self.file).name}:{self.line}"
        return at if self.caller is None else f"{at} (from line {self.caller})"


@dataclass(frozen=True)
class Const:
    value: int  # signed
    bits: int


@dataclass(frozen=True)
class FConst:
    """A ``float`` constant: its exact value (the IR prints it as a binary64, decimal when
    that is exact, else hex)."""

    value: float


@dataclass(frozen=True)
class Ref:
    """An SSA value: an instruction's result or a function argument."""

    name: str


@dataclass(frozen=True)
class GlobalRef:
    name: str


@dataclass(frozen=True)
class SharedRef:
    """``offset`` bytes into the ``__shared__`` variable ``name`` (an ``addrspace(3)`` global,
    seen through clang's constant ``addrspacecast`` and constant ``getelementptr``)."""

    name: str
    offset: int


@dataclass(frozen=True)
class FuncRef:
    name: str


@dataclass(frozen=True)
class BlockRef:
    name: str


@dataclass(frozen=True)
class Asm:
    """An inline-asm callee: its template and constraint string."""

    template: str
    constraints: str


@dataclass(frozen=True)
class Undef:
    pass


@dataclass(frozen=True)
class Unsupported:
    """An operand this view does not model (a constant expression, a vector, a float)."""

    text: str


Operand = (Const | FConst | Ref | GlobalRef | SharedRef | FuncRef | BlockRef | Asm | Undef
           | Unsupported)


@dataclass(frozen=True)
class Instr:
    opcode: str
    name: str  # the result's name ('' when none)
    type: str  # the result type ('void', 'i32', 'ptr', ...)
    operands: tuple[Operand, ...]
    text: str
    pos: SrcPos | None
    incoming: tuple[str, ...] = ()  # phi: the block of each operand

    @property
    def bits(self) -> int:
        return type_bits(self.type)

    @property
    def predicate(self) -> str:
        """icmp's predicate (eq, ne, slt, ...)."""
        m = re.search(r"= icmp (\w+) ", self.text)
        return m.group(1) if m else ""

    @property
    def volatile(self) -> bool:
        return bool(re.search(r"\b(load|store) (atomic )?volatile\b", self.text))

    @property
    def atomic(self) -> bool:
        return bool(re.search(r"\b(load|store) atomic\b", self.text))

    @property
    def gep_type(self) -> str:
        m = re.search(r"getelementptr (?:(?:inbounds|nuw|nusw|inrange\(\S+\)) )*([^,]+),",
                      self.text)
        return m.group(1).strip() if m else ""

    @property
    def callee(self) -> Operand | None:
        return self.operands[-1] if self.opcode == "call" and self.operands else None

    @property
    def args(self) -> tuple[Operand, ...]:
        return self.operands[:-1] if self.opcode == "call" else self.operands


@dataclass(frozen=True)
class Block:
    name: str
    instrs: tuple[Instr, ...]


@dataclass(frozen=True)
class Param:
    """A kernel parameter: its source name and, for a pointer, the size of what it points
    to (bytes; None when not a pointer or not known)."""

    ir_name: str
    name: str
    pointer: bool
    elem_bytes: int | None
    byval: str | None = None  # a struct passed by value: its IR type (``struct.ncclDevComm``)
    ir_type: str = ""  # the IR type (``i32``, ``float``, ``ptr``)


@dataclass
class Function:
    name: str  # the IR (mangled) name
    source_name: str  # the name in the source (DISubprogram), else the IR name
    params: tuple[Param, ...]
    blocks: dict[str, Block]
    entry: str
    pos: SrcPos | None
    declaration: bool = False


@dataclass(frozen=True)
class Shared:
    """A ``__shared__`` (or ``extern __shared__``) variable: its source name and the byte
    size of its elements (an array of integers, or an integer)."""

    name: str
    elem_bytes: int
    pos: SrcPos | None = None


@dataclass
class Module:
    functions: dict[str, Function]
    strings: dict[str, str] = field(default_factory=dict)  # global name -> C string
    shared: dict[str, Shared] = field(default_factory=dict)  # IR global name -> variable

    def kernel(self, name: str) -> Function:
        """The defined function whose source or IR name is ``name``."""
        found = [f for f in self.functions.values() if not f.declaration
                 and name in (f.source_name, f.name)]
        if not found:
            known = sorted({f.source_name for f in self.functions.values()
                            if not f.declaration})
            raise InputError(f"no kernel named {name!r} in the file (defined: "
                             f"{', '.join(known) or 'none'})")
        if len(found) > 1:
            raise InputError(f"{name!r} names {len(found)} functions (overloads): give the "
                             f"IR name ({', '.join(f.name for f in found)})")
        return found[0]


def type_bits(ty: str) -> int:
    if ty == "ptr" or ty.startswith("ptr addrspace"):
        return 64
    m = re.fullmatch(r"i(\d+)", ty)
    return int(m.group(1)) if m else 0


# --------------------------------------------------------------------------
# Reading the module
# --------------------------------------------------------------------------


def read_module(text: str, path: str, include_dir: str | Path) -> Module:
    """The module of clang's IR ``text`` (of the source ``path``)."""
    try:
        import llvmlite.binding as llvm
    except ImportError:
        raise InputError("gdrcheck kernel needs llvmlite: pip install 'gdrcheck[kernel]'",
                         path) from None
    try:
        mod = llvm.parse_assembly(text)
        mod.verify()
    except RuntimeError as exc:
        raise InputError(f"llvmlite cannot read clang's IR: {exc}", path) from None
    _name_values(llvm, mod)
    meta = _metadata(text)
    dbg = _debug_numbers(text)
    include = str(Path(include_dir).resolve())
    strings = {m.group(1): _c_string(m.group(2))
               for m in re.finditer(r'^@([\w.$]+) = .*?c"((?:[^"\\]|\\.)*)"', text, re.M)}
    shared = _shared_globals(text, meta)
    out: dict[str, Function] = {}
    for fn in mod.functions:
        name = fn.name
        if fn.is_declaration:
            out[name] = Function(name, name, (), {}, "", None, declaration=True)
            continue
        numbers = dbg.get(name, [])
        k = 0
        blocks: dict[str, Block] = {}
        entry = ""
        for b in fn.blocks:
            instrs: list[Instr] = []
            for ins in b.instructions:
                number = numbers[k] if k < len(numbers) else None
                k += 1
                instrs.append(_instr(ins, _position(meta, number, include) if number else None))
            blocks[b.name] = Block(b.name, tuple(instrs))
            entry = entry or b.name
        sub = _subprogram_of(text, name, meta)
        params = _params(fn, sub, meta)
        source_name = meta.get(sub, {}).get("name", name) if sub else name
        fpos = None
        if sub and sub in meta and "file" in meta[sub]:
            fpos = SrcPos(_file(meta, meta[sub]["file"]), int(meta[sub].get("line", "0")), 1)
        out[name] = Function(name, source_name.strip('"'), params, blocks, entry, fpos)
    return Module(out, strings, shared)


def _name_values(llvm: object, mod: object) -> None:
    """Give every unnamed value a name (LLVM's instruction-namer pass)."""
    import llvmlite.binding as lb

    lb.initialize_all_targets()
    lb.initialize_all_asmprinters()
    target = lb.Target.from_triple("nvptx64-nvidia-cuda")
    tm = target.create_target_machine()
    pb = lb.create_pass_builder(tm, lb.create_pipeline_tuning_options())
    mpm = lb.create_new_module_pass_manager()
    mpm.add_instruction_namer_pass()
    mpm.run(mod, pb)  # type: ignore[arg-type]


def _operand(op: object, ins_text: str) -> Operand:
    import llvmlite.binding as lb

    assert isinstance(op, lb.ValueRef)
    kind = op.value_kind.name
    if kind in ("instruction", "argument"):
        return Ref(op.name)
    if kind == "constant_int":
        return Const(op.get_constant_value(signed_int=True), type_bits(str(op.type)))
    if kind == "constant_fp":
        fc = _float_const(str(op).strip())
        if fc is not None:
            return fc
    if kind == "function":
        return FuncRef(op.name)
    if kind == "basic_block":
        return BlockRef(op.name)
    if kind == "global_variable":
        return GlobalRef(op.name)
    if kind == "constant_expr":
        ref = _shared_expr(str(op).strip())
        if ref is not None:
            return ref
    if kind == "constant_pointer_null":
        return Const(0, 64)
    if kind in ("undef_value", "poison_value"):
        return Undef()
    if kind == "inline_asm":
        m = re.search(r'\basm (?:sideeffect )?(?:alignstack )?(?:inteldialect )?'
                      r'"((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"', ins_text)
        if m is None:
            return Unsupported("inline asm")
        return Asm(_c_string(m.group(1)), _c_string(m.group(2)))
    return Unsupported(str(op).strip()[:80])


def _float_const(text: str) -> FConst | None:
    """``float 2.500000e-01`` or ``float 0x3FB99999A0000000`` (LLVM LangRef, "Simple
    Constants": a hex floating-point constant is the binary64 encoding of the value)."""
    m = re.fullmatch(r"float (0x[0-9A-Fa-f]{16}|[-+]?\d+\.\d+e[-+]\d+)", text)
    if m is None:
        return None
    lit = m.group(1)
    if lit.startswith("0x"):
        return FConst(struct.unpack("<d", int(lit, 16).to_bytes(8, "little"))[0])
    return FConst(float(lit))


def _instr(ins: object, pos: SrcPos | None) -> Instr:
    import llvmlite.binding as lb

    assert isinstance(ins, lb.ValueRef)
    text = str(ins).strip()
    ops = tuple(_operand(o, text) for o in ins.operands)
    incoming = tuple(b.name for b in ins.incoming_blocks) if ins.opcode == "phi" else ()
    return Instr(ins.opcode, ins.name, str(ins.type), ops, text, pos, incoming)


_SHARED_CAST = r"addrspacecast \(ptr addrspace\(3\) @([\w.$]+) to ptr\)"
_SHARED_GEP_RE = re.compile(r"getelementptr (?:inbounds |nuw |nusw )*\(([^,]+), ptr "
                            + _SHARED_CAST + r"((?:, i\d+ -?\d+)*)\)")


def _shared_expr(text: str) -> SharedRef | None:
    """A constant expression naming a ``__shared__`` variable: the generic address of an
    ``addrspace(3)`` global, or a constant ``getelementptr`` into one."""
    body = text[4:] if text.startswith("ptr ") else text
    m = re.fullmatch(_SHARED_CAST, body)
    if m:
        return SharedRef(m.group(1), 0)
    m = _SHARED_GEP_RE.fullmatch(body)
    if m is None:
        return None
    sizes = _type_sizes(m.group(1).strip())
    indices = [int(k) for k in re.findall(r", i\d+ (-?\d+)", m.group(3))]
    if sizes is None or len(indices) > len(sizes):
        return None
    return SharedRef(m.group(2), sum(i * z for i, z in zip(indices, sizes, strict=False)))


def _type_sizes(ty: str) -> list[int] | None:
    """The byte size of each index step of ``ty``: ``i32`` -> [4]; ``[8 x i32]`` -> [32, 4]
    (``float`` and ``double`` are 4 and 8 bytes)."""
    if ty in ("float", "double"):
        return [4 if ty == "float" else 8]
    m = re.fullmatch(r"i(\d+)", ty)
    if m:
        return [int(m.group(1)) // 8] if int(m.group(1)) % 8 == 0 else None
    m = re.fullmatch(r"\[(\d+) x (.+)\]", ty)
    if m:
        inner = _type_sizes(m.group(2))
        return None if inner is None else [int(m.group(1)) * inner[0], *inner]
    return None


def _shared_globals(text: str, meta: dict[str, dict[str, str]]) -> dict[str, Shared]:
    """The module's ``addrspace(3)`` globals: ``__shared__`` variables, named as in the
    source (their ``DIGlobalVariable``; an ``extern __shared__`` array has none and keeps its
    IR name, which is its source name)."""
    out: dict[str, Shared] = {}
    for m in re.finditer(r"^@([\w.$]+) = [^\n]*?addrspace\(3\) (?:externally_initialized )?"
                         r"global (\[\d+ x [^\]]+\]|i\d+|float|double)([^\n]*)$", text, re.M):
        sizes = _type_sizes(m.group(2))
        elem = sizes[-1] if sizes else 0
        name, pos = _local_name(m.group(1)), None
        dbg = re.search(r"!dbg (![0-9]+)", m.group(3))
        var = meta.get(meta.get(dbg.group(1), {}).get("var", ""), {}) if dbg else {}
        if var.get("name"):
            name = var["name"].strip('"')
            if "file" in var and var.get("line", "").isdigit():
                pos = SrcPos(_file(meta, var["file"]), int(var["line"]), 1)
        out[m.group(1)] = Shared(name, elem, pos)
    return out


def _local_name(ir_name: str) -> str:
    """The source name of a function-local static (``_ZZ1kPiE5fixed`` -> ``fixed``); a part
    of an array that clang's optimiser split into one global per element used
    (``_ZZ1kPiE2b2.1``) is ``b2_part1``: the parts are numbered in order, not by index."""
    m = re.fullmatch(r"_ZZ.*E(\d+)(\w+?)(?:\.(\d+))?", ir_name)
    if m is None or len(m.group(2)) != int(m.group(1)):
        return ir_name.replace(".", "_")
    return m.group(2) + (f"_part{m.group(3)}" if m.group(3) else "")


def _c_string(s: str) -> str:
    """An IR string constant's text (``\\22`` escapes, the final NUL dropped)."""
    out = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), s)
    return out.replace("\\\\", "\\").rstrip("\0")


# --------------------------------------------------------------------------
# Metadata and positions, from the module text
# --------------------------------------------------------------------------

_META_RE = re.compile(r"^!(\d+) = (?:distinct )?!(\w+)\((.*)\)\s*$", re.M)
_FIELD_RE = re.compile(r'(\w+): ("(?:[^"\\]|\\.)*"|![0-9]+|[^,]+)')


def _metadata(text: str) -> dict[str, dict[str, str]]:
    """``!N`` -> its fields (with ``kind``) for every specialised metadata node."""
    out: dict[str, dict[str, str]] = {}
    for m in _META_RE.finditer(text):
        fields = {k: v.strip() for k, v in _FIELD_RE.findall(m.group(3))}
        fields["kind"] = m.group(2)
        out["!" + m.group(1)] = fields
    for m in re.finditer(r"^!(\d+) = (?:distinct )?!\{(.*)\}\s*$", text, re.M):
        out["!" + m.group(1)] = {"kind": "tuple", "items": m.group(2)}
    return out


def _debug_numbers(text: str) -> dict[str, list[str | None]]:
    """Function -> the ``!dbg`` of each of its instructions, in order."""
    out: dict[str, list[str | None]] = {}
    current: list[str | None] | None = None
    for line in text.splitlines():
        if line.startswith("define "):
            m = re.search(r"@([\w.$\"]+)\(", line)
            current = out.setdefault(m.group(1).strip('"') if m else "", [])
            continue
        if current is None:
            continue
        s = line.strip()
        if s == "}":
            current = None
            continue
        if (not s or s.startswith(";") or s.startswith("#dbg_")
                or re.fullmatch(r"[\w.$\"-]+:(\s*;.*)?", s)):
            continue
        m = re.search(r"!dbg (![0-9]+)", s)
        current.append(m.group(1) if m else None)
    return out


def _file(meta: dict[str, dict[str, str]], ref: str) -> str:
    node = meta.get(ref, {})
    name = node.get("filename", '""').strip('"')
    directory = node.get("directory", '""').strip('"')
    if directory and not name.startswith("/"):
        return str(Path(directory) / name)
    return name


def _scope_file(meta: dict[str, dict[str, str]], scope: str) -> tuple[str, str | None]:
    """The file of a scope and the name of its enclosing subprogram."""
    seen = 0
    node = meta.get(scope, {})
    file = ""
    while node and seen < 64:
        seen += 1
        if not file and "file" in node:
            file = _file(meta, node["file"])
        if node.get("kind") == "DISubprogram":
            return file, node.get("name", '""').strip('"')
        node = meta.get(node.get("scope", ""), {})
    return file, None


def _position(meta: dict[str, dict[str, str]], number: str, include: str) -> SrcPos | None:
    """The outermost position of a (possibly inlined) location that is not in a shipped
    header, with the shipped function it was inlined from."""
    chain: list[dict[str, str]] = []
    ref: str | None = number
    while ref and len(chain) < 64:
        node = meta.get(ref)
        if node is None or node.get("kind") != "DILocation":
            break
        chain.append(node)
        ref = node.get("inlinedAt")
    api: str | None = None
    for node in chain:
        file, sub = _scope_file(meta, node.get("scope", ""))
        if file and str(Path(file).resolve()).startswith(include):
            api = sub
            continue
        line = int(node.get("line", "0"))
        outer = chain[-1]
        caller = None
        if outer is not node and _scope_file(meta, outer.get("scope", ""))[0] == file:
            caller = int(outer.get("line", "0"))
            caller = caller if caller != line else None
        return SrcPos(file, line, int(node.get("column", "0")), api, caller)
    return None


def _subprogram_of(text: str, name: str, meta: dict[str, dict[str, str]]) -> str | None:
    m = re.search(rf"^define [^\n]*@{re.escape(name)}\([^\n]*!dbg (![0-9]+)", text, re.M)
    return m.group(1) if m else None


def _elem_bytes(meta: dict[str, dict[str, str]], ty: str) -> tuple[bool, int | None]:
    """(is a pointer, size of the pointee in bytes) of a debug type."""
    node = meta.get(ty, {})
    if node.get("tag") != "DW_TAG_pointer_type":
        return False, None
    ref = node.get("baseType", "")
    for _ in range(32):
        base = meta.get(ref)
        if base is None:
            return True, None
        if base.get("kind") == "DIBasicType" or base.get("tag") in (
                "DW_TAG_pointer_type", "DW_TAG_structure_type", "DW_TAG_class_type"):
            size = base.get("size")
            return True, int(size) // 8 if size and size.isdigit() else None
        ref = base.get("baseType", "")
    return True, None


def _params(fn: object, sub: str | None, meta: dict[str, dict[str, str]]) -> tuple[Param, ...]:
    import llvmlite.binding as lb

    assert isinstance(fn, lb.ValueRef)
    names: dict[int, tuple[str, str]] = {}
    for node in meta.values():
        if node.get("kind") == "DILocalVariable" and "arg" in node and node.get("scope") == sub:
            names[int(node["arg"])] = (node.get("name", '""').strip('"'), node.get("type", ""))
    out: list[Param] = []
    for i, arg in enumerate(fn.arguments, 1):
        src, ty = names.get(i, (f"arg{i}", ""))
        pointer, size = _elem_bytes(meta, ty)
        byval = None
        for attr in arg.attributes:
            m = re.fullmatch(r"byval\(%(.+)\)", attr.decode() if isinstance(attr, bytes)
                             else str(attr))
            if m:  # LLVM renames a struct type parsed again in one context: ``X.0``
                byval = re.sub(r"\.\d+$", "", m.group(1))
        out.append(Param(arg.name, src, pointer or str(arg.type) == "ptr", size, byval,
                         str(arg.type)))
    return tuple(out)
