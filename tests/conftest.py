"""Hypothesis profiles for the whole test suite.

- ``dev`` (the default): 40 examples a property, no deadline;
- ``ci``: selected when the environment variable ``CI`` is set: derandomized (the
  same examples on every run), 60 examples, no deadline, failures print the
  ``@reproduce_failure`` blob;
- ``long``: 2000 examples a property, for bug hunting
  (``HYPOTHESIS_PROFILE=long python -m pytest tests/engine``).

``HYPOTHESIS_PROFILE`` names the profile explicitly and wins over ``CI``. Tests
that set ``max_examples`` themselves keep their own number.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev",
    max_examples=40,
    deadline=None,
)
settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    max_examples=60,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=2000,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)

_default = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or _default)
