"""Run one fuzz target under atheris (libFuzzer, coverage-guided), as OSS-Fuzz would::

    python tests/fuzz/run.py TARGET [--work DIR] [libFuzzer flags ...]

TARGET is one of litmus, cat, results, web (tests/fuzz/targets.py). New inputs go to
``--work DIR``/corpus (default: a fresh temporary directory; the seeds in
tests/fuzz/corpus/TARGET are read, never written), crashes to ``DIR``/crash-*,
timeout-*, oom-*. Unless given, the flags are ``-timeout=25`` (an input running 25 s is
a crash) and ``-rss_limit_mb=2560`` (2.5 GB of memory is a crash), as the issue asks.
docs/fuzzing.md has the long run and its figures.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))

import atheris  # noqa: E402

DEFAULTS = {"-timeout": "25", "-rss_limit_mb": "2560"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("--work", type=Path, default=None)
    args, flags = ap.parse_known_args()
    with atheris.instrument_imports(include=["gdrcheck"]):
        import gdrcheck.batch.results  # noqa: F401
        import gdrcheck.cat.loader  # noqa: F401
        import gdrcheck.cat.parser  # noqa: F401
        import gdrcheck.litmus  # noqa: F401
        if args.target == "web":
            import gdrcheck.web.app  # noqa: F401
    from tests.fuzz.targets import CORPUS, TARGETS, warm

    if args.target not in TARGETS:
        sys.exit(f"unknown target {args.target!r} (choose from {', '.join(TARGETS)})")
    warm(args.target)  # the one-time start (parsers, the web app) is not an input's time
    work = args.work or Path(tempfile.mkdtemp(prefix=f"fuzz-{args.target}-"))
    (work / "corpus").mkdir(parents=True, exist_ok=True)
    given = {f.split("=", 1)[0] for f in flags if f.startswith("-")}
    flags += [f"{k}={v}" for k, v in DEFAULTS.items() if k not in given]
    flags.append(f"-artifact_prefix={work}/")
    target = TARGETS[args.target]
    argv = [sys.argv[0], *flags, str(work / "corpus"), str(CORPUS / args.target)]
    atheris.Setup(argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
