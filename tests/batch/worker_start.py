"""A Dask worker preload for tests/batch/test_lost_workers.py
(``distributed.worker.preload``): once the file named by $GDRCHECK_TEST_AFTER exists (a
job made it before killing its worker), a worker takes $GDRCHECK_TEST_START_DELAY
seconds to start, as on a loaded machine."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def dask_setup(worker: Any) -> None:
    after = os.environ.get("GDRCHECK_TEST_AFTER")
    if after and Path(after).exists():
        time.sleep(float(os.environ.get("GDRCHECK_TEST_START_DELAY", "0")))
