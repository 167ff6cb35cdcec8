"""Generators of litmus tests: diy-style cycles (:mod:`.cycles`), families by size
(:mod:`.families`) and hypothesis strategies (:mod:`.strategies` for X86 and PTX,
:mod:`.gin_strategies` for GIN and NVSHMEM; also importable as
``gdrcheck.strategies`` and ``gdrcheck.gin_strategies``)."""
