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
    from gdrcheck.cli import main

    main()


if __name__ == "__main__":
    entry()
