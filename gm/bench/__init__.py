"""Benchmarks that print their figures: `gm bench listen` (recognizers) and `gm bench judge` (verdicts).

They measure; they are not tests. Both run on the synthetic corpus of `gm.bench.corpus`.
"""

from __future__ import annotations

import importlib.util
import sys


def run(args) -> int:
    """Run the benchmark `args.benchmark` names ("listen" or "judge")."""
    if args.benchmark == "listen":
        from gm.bench import listen
        return listen.run(args)
    if importlib.util.find_spec("gm.bench.judge") is None:
        print("gm: the judging benchmark is not built yet (gm/bench/judge.py)", file=sys.stderr)
        return 2
    from gm.bench import judge
    return judge.run(args)
