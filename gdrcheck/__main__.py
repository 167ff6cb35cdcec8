"""``python -m gdrcheck`` and the ``gdrcheck`` script (:func:`entry`).

``gdrcheck --version`` is answered here, before click and the command line are imported
(a fast start: docs/performance.md, "Start-up"); everything else goes to
:data:`gdrcheck.cli.main`.
"""

from __future__ import annotations

import sys


def entry() -> None:
    """The ``gdrcheck`` command."""
    if sys.argv[1:] == ["--version"]:
        from gdrcheck import __version__

        print(f"gdrcheck, version {__version__}")
        return
    # lark imports the third-party ``regex`` module when it is installed (about 0.01 s),
    # and uses it only for lark's ``regex`` option and for terminals with ``\p{...}``
    # categories; gdrcheck's grammars have neither (tests/cli/test_startup.py), nor is
    # ``regex`` a dependency: the command runs as it does where ``regex`` is absent.
    if "regex" not in sys.modules:
        sys.modules["regex"] = None  # type: ignore[assignment]  # import regex: ImportError
    from gdrcheck.cli import main

    main()


if __name__ == "__main__":
    entry()
