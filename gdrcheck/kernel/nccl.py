"""The NCCL communicator a kernel reads (docs/kernels.md, "NCCL").

A kernel parameter of type ``struct ncclDevComm`` (passed by value: ``byval`` in the IR) is
the communicator; the kernel's reads of its fields are answered from the configuration, at
the offsets of gdrcheck's ``nccl_device.h``, which are NCCL's
(NVIDIA/nccl@5067397c src/include/nccl_device/impl/comm__types.h:27-34).
"""

from __future__ import annotations

from dataclasses import dataclass

DEV_COMM_TYPE = "struct.ncclDevComm"

DEV_COMM_FIELDS = {8: "rank", 12: "nRanks", 20: "lsaRank", 24: "lsaSize"}
"""Byte offset -> field of ``ncclDevComm`` (32-bit ints) the extraction answers."""

BARRIER_RESOURCES = {32: (0, "lsaBarrier"), 40: (1, "railGinBarrier"),
                     48: (2, "worldGinBarrier"), 56: (3, "hybridLsaBarrier"),
                     64: (4, "hybridRailGinBarrier"), 72: (5, "hybridWorldGinBarrier")}
"""Byte offset of a barrier handle in gdrcheck's ``ncclDevComm`` -> (the number the
extraction answers for the handle's first field, the handle's name). NCCL fills the handles
at ``ncclDevCommCreate`` (each barrier kind its own allocation, comm__types.h:38-69); a
kernel passes them to barrier sessions only, so each stands for its resource: the barrier
inboxes and signals of one resource are apart from another's."""

BARRIER_NAMES = {number: name for number, name in BARRIER_RESOURCES.values()}


@dataclass(frozen=True)
class LsaTeam:
    """A rank's LSA team: the ranks on its node (NCCL's LSA team is the ranks that reach
    each other by load/store; ``--nodes`` gives them), as contiguous world ranks."""

    first: int  # the world rank of LSA rank 0
    rank: int  # this rank's LSA rank
    size: int


def lsa_team(nodes: list[int], rank: int) -> LsaTeam | None:
    """The LSA team of ``rank`` given each rank's node; None when the ranks of its node are
    not contiguous (NCCL's ``ncclGetPeerPointer`` maps a world rank to an LSA rank by
    subtraction, core__funcs.h:127-128)."""
    members = [r for r, n in enumerate(nodes) if n == nodes[rank]]
    if members != list(range(members[0], members[0] + len(members))):
        return None
    return LsaTeam(members[0], rank - members[0], len(members))


def dev_comm_field(offset: int, nodes: list[int], rank: int, bits: int = 32) -> int | None:
    """The value of the communicator's field at ``offset`` for ``rank`` (a ``bits``-bit
    read); None when the extraction does not model that field. A barrier handle (its first
    field, or the whole 8-byte handle: the second is 0) reads as its resource's number."""
    if offset in BARRIER_RESOURCES and bits in (32, 64):
        return BARRIER_RESOURCES[offset][0]
    if bits != 32:
        return None
    team = lsa_team(nodes, rank)
    name = DEV_COMM_FIELDS.get(offset)
    if name is None or team is None:
        return None
    return {"rank": rank, "nRanks": len(nodes), "lsaRank": team.rank,
            "lsaSize": team.size}[name]
