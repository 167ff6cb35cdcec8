"""``python -m gdrcheck``."""

from gdrcheck.cli import main

main()
