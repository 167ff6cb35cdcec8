"""Imported once by the fork server of :mod:`gdrcheck.web.sandbox`: gdrcheck and every
model on the search path (the shipped ones and those of the ``-I`` directories named
in ``$GDRCHECK_WEB_INCLUDE``) are loaded there, so each worker forked from it starts
with them parsed (about 20 ms a request instead of 500)."""

from __future__ import annotations

import os

from gdrcheck.web import jobs

INCLUDE_ENV = "GDRCHECK_WEB_INCLUDE"

_dirs = tuple(d for d in os.environ.get(INCLUDE_ENV, "").split(os.pathsep) if d)
jobs.models_catalogue(_dirs)
