"""``gdrcheck serve``: a local web playground over the analysis (docs/web.md).

A face like the CLI: it parses and checks through :mod:`gdrcheck.analysis` and prints
through :mod:`gdrcheck.report` (the ``gdrcheck.check/2`` records, the explanations,
the sweeps and the pictures of ``--graph``), never through the engine's internals.

- :mod:`gdrcheck.web.app`: the Starlette application (pages and JSON endpoints);
- :mod:`gdrcheck.web.jobs`: what one request computes, run in a worker process;
- :mod:`gdrcheck.web.sandbox`: the worker processes (a timeout, a memory limit, kill);
- :mod:`gdrcheck.web.scheduler`: which job runs next (lanes, fair order, per-client
  bounds, cancel when the client goes);
- :mod:`gdrcheck.web.served`: the models a request may name, and what errors may say;
- :mod:`gdrcheck.web.protocol`: uvicorn's h11 protocol with a deadline for a request
  and bounds on idle connections;
- :mod:`gdrcheck.web.library`: the litmus files the page may load, by name from a list;
- ``static/``: the page, with the vendored CodeMirror 6 and Viz.js (``static/vendor``).
"""
