"""A job that kills its own worker, as a crash of the checker would (a segfault, a
stack overflow in C): for the test that the server outlives it."""

from __future__ import annotations

import os
from typing import Any


def die(req: dict[str, Any]) -> dict[str, Any]:
    os._exit(7)
