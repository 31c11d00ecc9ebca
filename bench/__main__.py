"""Run every ``bench/bench_*.py`` module's ``main()`` in turn; one failing does not stop the rest.

Usage: ``python -m bench [NAME ...]`` where NAME filters modules by substring
(``python -m bench engine`` runs only ``bench_engine``). Exit status 1 if any bench failed.
"""

from __future__ import annotations

import importlib
import sys
import time
import traceback
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent


def bench_modules(filters: list[str]) -> list[str]:
    names = sorted(path.stem for path in BENCH_DIR.glob("bench_*.py"))
    if filters:
        names = [name for name in names if any(f in name for f in filters)]
    return names


def run(name: str) -> bool:
    print(f"\n=== {name} " + "=" * max(3, 68 - len(name)), flush=True)
    started = time.perf_counter()
    try:
        module = importlib.import_module(f"bench.{name}")
        outcome = module.main()
    except SystemExit as exc:
        ok = exc.code in (None, 0)
    except Exception:
        traceback.print_exc()
        ok = False
    else:
        # A bench may return False (or a non-zero status) to report a missed target.
        # bool is an int subclass: False == 0, so test for True/None first and ints strictly.
        ok = outcome is None or outcome is True or (type(outcome) is int and outcome == 0)
    status = "ok" if ok else "FAILED"
    print(f"--- {name}: {status} in {time.perf_counter() - started:.1f}s", flush=True)
    return ok


def main(argv: list[str] | None = None) -> int:
    names = bench_modules(sys.argv[1:] if argv is None else argv)
    if not names:
        print("no benchmarks matched", file=sys.stderr)
        return 1
    results = {name: run(name) for name in names}
    failed = [name for name, ok in results.items() if not ok]
    print(f"\n{len(results) - len(failed)}/{len(results)} benchmarks ok", flush=True)
    if failed:
        print("failed: " + ", ".join(failed), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
