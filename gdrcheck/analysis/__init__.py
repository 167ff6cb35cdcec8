"""The questions asked of the engine.

Each module takes parsed tests (:mod:`gdrcheck.litmus`) and loaded models
(:mod:`gdrcheck.cat`) and returns result objects; none prints (the printers are in
:mod:`gdrcheck.report`):

- :mod:`.options` — the options every question shares (:class:`CheckOptions`);
- :mod:`.models` — which models answer a test (``--model``, ``Expect=``, ``all``);
- :mod:`.check` — one test under one model: parse → lower → encode → solve;
- :mod:`.explain` — why an outcome is forbidden (cycles of named edges);
- :mod:`.drawing` — what the picture of one result shows;
- :mod:`.sweep` — the verdict under every combination of a model's variants;
- :mod:`.refine`, :mod:`.diff` — two models compared on a suite;
- :mod:`.verdicts` — the library's expectations, family by family;
- :mod:`.validate` — the peers' published verdicts against ours;
- :mod:`.suite` — the litmus files of a set of paths.
"""
