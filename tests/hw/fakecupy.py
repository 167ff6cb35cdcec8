"""A stand-in for CuPy on the CPU (numpy arrays that know their device), so that the host
side of ``gdrcheck hw run`` (memory per GPU, the owners' initial values, one launch per
GPU with its groups, the outputs added up, the histogram) runs where there is no GPU.

The kernel does not run: the fake ``litmus`` function records each launch's arguments
and, as a thread of the test would, writes ``value`` into the register slots of the
threads of its own groups only. So the outputs a test reads back say which launch wrote
what."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

int32 = np.int32
int64 = np.int64


class _Ptr:
    def __init__(self, arr: FakeArray) -> None:
        self.arr = arr
        self.ptr = arr.__array_interface__["data"][0]

    def copy_from_device(self, src: _Ptr, nbytes: int) -> None:
        flat = self.arr.reshape(-1).view(np.uint8)
        flat[:nbytes] = src.arr.reshape(-1).view(np.uint8)[:nbytes]


class FakeArray(np.ndarray):
    """A numpy array with the device it was made on. Arithmetic on it (a ufunc) must run
    on that device, as in CuPy: an array of another GPU must be copied first."""

    dev: int = 0

    def __array_finalize__(self, obj: Any) -> None:
        self.dev = getattr(obj, "dev", _current[0])

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        outs = kwargs.get("out", ())
        devs = {x.dev for x in (*inputs, *outs) if isinstance(x, FakeArray)}
        assert devs <= {_current[0]}, f"{ufunc.__name__} on device {_current[0]} of {devs}"

        def plain(x: Any) -> Any:
            return x.view(np.ndarray) if isinstance(x, FakeArray) else x

        if outs:
            kwargs["out"] = tuple(plain(x) for x in outs)
        got = getattr(ufunc, method)(*(plain(x) for x in inputs), **kwargs)
        if outs:
            return outs[0] if len(outs) == 1 else outs
        if isinstance(got, np.ndarray):
            mine: FakeArray = got.view(FakeArray)
            mine.dev = _current[0]
            return mine
        return got

    @property
    def data(self) -> _Ptr:  # type: ignore[override]
        return _Ptr(self)

    @property
    def device(self) -> Device:  # type: ignore[override]
        return Device(self.dev)


def _mine(a: Any) -> FakeArray:
    out = np.asarray(a).view(FakeArray)
    out.dev = _current[0]
    _memory[out.__array_interface__["data"][0]] = out
    return out


_current = [0]
_memory: dict[int, FakeArray] = {}  # base address -> the array allocated there
syncs: list[int] = []  # the devices synchronized, in order


class Device:
    def __init__(self, id: int | None = None) -> None:  # noqa: A002 - CuPy's name
        self.id = _current[0] if id is None else id
        self._prev: list[int] = []

    def __enter__(self) -> Device:
        self._prev.append(_current[0])
        _current[0] = self.id
        return self

    def __exit__(self, *exc: Any) -> None:
        _current[0] = self._prev.pop()

    def synchronize(self) -> None:
        syncs.append(self.id)


class Stream:
    null: Stream

    def __init__(self, non_blocking: bool = False) -> None:
        self.non_blocking = non_blocking
        self.device = _current[0]

    def synchronize(self) -> None:
        pass


Stream.null = Stream()


class CUDARuntimeError(RuntimeError):
    pass


@dataclass
class Runtime:
    count: int = 1
    peers_enabled: list[tuple[int, int]] = field(default_factory=list)
    CUDARuntimeError: type = CUDARuntimeError

    def getDeviceCount(self) -> int:  # noqa: N802 - CuPy's names
        return self.count

    def getDeviceProperties(self, device: int) -> dict[str, Any]:  # noqa: N802
        return {"name": b"Fake GPU", "major": 9, "minor": 0}

    def deviceCanAccessPeer(self, i: int, j: int) -> int:  # noqa: N802
        return 1

    def deviceEnablePeerAccess(self, j: int) -> None:  # noqa: N802
        self.peers_enabled.append((_current[0], j))


@dataclass
class Launch:
    device: int
    stream: Stream
    blocks: int
    group_first: int
    group_count: int
    lbase: list[int]
    locs_device: int


class Function:
    def __init__(self, module: RawModule) -> None:
        self.module = module

    def __call__(self, grid: tuple[int], block: tuple[int], args: tuple[Any, ...],
                 stream: Stream | None = None) -> None:
        (locs, _alocs, out, _bar, _aff, n, _stride, _layout, _sync, _scratch, _words,
         _stress, _mode, lbase, first, count) = args
        fake = self.module.fake
        fake.launches.append(Launch(_current[0], stream or Stream.null, grid[0], int(first),
                                    int(count), [int(x) for x in lbase], locs.dev))
        nout = len(out) // int(n)
        rows = out.reshape(int(n), nout)
        mine = range(int(first), int(first) + int(count))
        for slot, thread in enumerate(fake.reg_threads):
            if fake.group_of[thread] in mine:
                rows[:, slot] = fake.value
        # a location stored to by a thread of this launch gets 1000 + this device, written
        # as the kernel would: through lbase of the GPU that owns it (peer memory or not)
        nlocs = len(fake.owners)
        for a, writer in fake.writers.items():
            if fake.group_of[writer] not in mine:
                continue
            base = _memory[int(lbase[fake.owners[a]])].view(np.ndarray)
            for inst in range(int(n)):
                off = ((a * int(n) + inst) if int(_layout) else (inst * nlocs + a)) * int(_stride)
                base[off] = 1000 + _current[0]


class RawModule:
    fake: FakeCupy

    def __init__(self, code: str, options: tuple[str, ...] = (),
                 name_expressions: Any = None) -> None:
        self.code = code

    def get_function(self, name: str) -> Function:
        return Function(self)


class _Cuda:
    def __init__(self, fake: FakeCupy) -> None:
        self.runtime = fake.runtime
        self.Device = Device
        self.Stream = Stream

    @staticmethod
    def get_current_stream() -> Stream:
        return Stream.null


class FakeCupy:
    """The module object ``gdrcheck.hw.run`` uses as ``cp``."""

    int32 = np.int32
    int64 = np.int64

    def __init__(self, devices: int, reg_threads: list[int], group_of: dict[int, int],
                 value: int = 7, owners: list[int] | None = None,
                 writers: dict[int, int] | None = None) -> None:
        self.owners = owners or []  # location -> index into lbase
        self.writers = writers or {}  # location -> the litmus thread that stores to it
        syncs.clear()
        self.runtime = Runtime(devices)
        self.cuda = _Cuda(self)
        self.launches: list[Launch] = []
        self.reg_threads = reg_threads  # the thread of each register slot
        self.group_of = group_of  # litmus thread -> its group
        self.value = value
        fake = self

        class Module(RawModule):
            pass

        Module.fake = fake
        self.RawModule = Module

    def zeros(self, n: Any, dtype: Any = np.float64) -> FakeArray:
        return _mine(np.zeros(n, dtype=dtype))

    def empty(self, shape: Any, dtype: Any = np.float64) -> FakeArray:
        return _mine(np.empty(shape, dtype=dtype))

    def asarray(self, a: Any) -> FakeArray:
        if isinstance(a, FakeArray):
            return a
        return _mine(a)

    def ascontiguousarray(self, a: Any) -> FakeArray:
        out = np.ascontiguousarray(a).view(FakeArray)
        out.dev = getattr(a, "dev", _current[0])
        return out

    def asnumpy(self, a: Any) -> np.ndarray:
        return np.asarray(a).view(np.ndarray)

    def stack(self, arrays: list[Any], axis: int = 0) -> FakeArray:
        devs = {getattr(a, "dev", _current[0]) for a in arrays}
        assert devs <= {_current[0]}, f"arrays of devices {devs} stacked on {_current[0]}"
        return _mine(np.stack([np.asarray(a) for a in arrays], axis=axis))

    def unique(self, a: Any, return_counts: bool = False) -> Any:
        u, c = np.unique(np.asarray(a), return_counts=True)
        return (_mine(u), _mine(c)) if return_counts else _mine(u)
