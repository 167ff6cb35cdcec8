"""Jobs that fail as a bug of the checker would: one kills its own worker (a segfault,
a stack overflow in C), one raises an exception that names a server path: for the
tests that the server outlives them and says no more than it should."""

from __future__ import annotations

import os
from typing import Any


def die(req: dict[str, Any]) -> dict[str, Any]:
    os._exit(7)


MISSING = "/srv/secret-place/of/the/server.cat"


def read_missing(req: dict[str, Any]) -> dict[str, Any]:
    """A bug of the checker that names a server path in its exception."""
    with open(MISSING, encoding="utf-8") as f:
        return {"text": f.read()}
