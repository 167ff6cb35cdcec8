"""The worker preload of the embedded cluster (``distributed.worker.preload``): before a
worker registers, and so before it takes a job, it imports what a job needs and checks
one small test (the parser's tables, a cat model, z3's first call), so that the
``--kill-after`` clock of a worker's first job does not count the worker's start. That
start took about 4 s on the project machine (2 cores, loaded): a ``--kill-after 1`` run
answered Unknown for jobs of 10 ms on every new or restarted worker.

``$GDRCHECK_WARM`` names more modules to import, comma separated (the module of the job
function). Nothing here may stop a worker from starting: a failure is left for the job
to report."""

from __future__ import annotations

import importlib
import os
from typing import Any

WARM_TEST = ("classic", "SB.litmus")
"""The test checked once (under sc) by each worker as it starts: the library's SB."""


def dask_setup(worker: Any) -> None:
    """Dask's preload hook."""
    for name in filter(None, os.environ.get("GDRCHECK_WARM", "").split(",")):
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the job says what is wrong with its module
            pass
    try:
        from gdrcheck.analysis.suite import LIBRARY_DIR
        from gdrcheck.batch.jobs import Job, execute

        path = os.path.join(str(LIBRARY_DIR), *WARM_TEST)
        if os.path.isfile(path):
            execute(Job(f"{path}::sc", path, "sc"))
    except Exception:  # noqa: BLE001 - a worker starts whatever happens here
        pass
