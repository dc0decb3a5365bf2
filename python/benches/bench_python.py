"""Puzzles/s from Python, next to the CLI and rustoku, measured in the same run.

    SUDOKU_DATA_DIR=../shared/data python python/benches/bench_python.py [--rounds 7]

Needs the package installed (`pip install ./python`), the CLI built (`cargo build --release`)
and, for the peer column, `pip install rustoku` (one `rustoku.solve` call per puzzle, the way
its API is used). Each figure is the median of the rounds; rounds alternate the contenders so a
load that comes and goes hits them alike. The CLI is timed as a whole process
(`solve -q -j N FILE -o /dev/null`), as a user runs it.
"""

import argparse
import os
import pathlib
import statistics
import subprocess
import time

import sudoku_batch as sb

try:
    import rustoku
except ImportError:
    rustoku = None

REPO = pathlib.Path(__file__).resolve().parents[2]
SETS = ["puzzles2_17_clue", "puzzles7_serg_benchmark"]


def puzzles(path):
    return [l[:81] for l in path.read_text().splitlines() if len(l) >= 81 and not l.startswith("#")]


def timed(f):
    t = time.perf_counter()
    f()
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--peer-sample", type=int, default=5000, help="puzzles timed for rustoku")
    args = ap.parse_args()
    data = pathlib.Path(os.environ["SUDOKU_DATA_DIR"])
    cli = os.environ.get("SUDOKU_BATCH_BIN", str(REPO / "target" / "release" / "sudoku-batch"))
    cores = os.cpu_count() or 1
    print(f"{cores} cores; medians of {args.rounds} rounds; puzzles/s\n")
    print("| set | puzzles | solve(list), 1 thr | solve(list), all | solve(uint8 array), all | CLI -j 1 | CLI -j all | Python/CLI, all | rustoku, 1 call per puzzle | ours all / rustoku |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name in SETS:
        path = data / name
        ps = puzzles(path)
        arr = sb.solve(ps)  # warm-up, and a check that every answer is there
        assert all(a is not None for a in arr), name
        import numpy as np

        grid = np.array([[0 if c in ".0" else int(c) for c in p] for p in ps], dtype=np.uint8)
        rates = {k: [] for k in ["py1", "pyall", "arr", "cli1", "cliall", "peer"]}
        sample = ps[: args.peer_sample]
        for _ in range(args.rounds):
            rates["py1"].append(len(ps) / timed(lambda: sb.solve(ps, threads=1)))
            rates["pyall"].append(len(ps) / timed(lambda: sb.solve(ps)))
            rates["arr"].append(len(ps) / timed(lambda: sb.solve(grid)))
            for key, j in (("cli1", "1"), ("cliall", str(cores))):
                run = lambda: subprocess.run([cli, "solve", "-q", "-j", j, str(path), "-o", "/dev/null"], check=True)
                rates[key].append(len(ps) / timed(run))
            if rustoku is not None:
                rates["peer"].append(len(sample) / timed(lambda: [rustoku.solve(p) for p in sample]))
        m = {k: statistics.median(v) if v else float("nan") for k, v in rates.items()}
        print(
            f"| {name} | {len(ps)} | {m['py1']:,.0f} | {m['pyall']:,.0f} | {m['arr']:,.0f} | {m['cli1']:,.0f} | "
            f"{m['cliall']:,.0f} | {m['pyall'] / m['cliall']:.2f} | {m['peer']:,.0f} | {m['pyall'] / m['peer']:,.0f}x |"
        )


if __name__ == "__main__":
    main()
