"""``python -m gdrcheck.cli``."""

from gdrcheck.cli import main

main()
