"""An Arrow column against a list of str: time and peak memory of `sudoku_batch.solve` on the
same N puzzles, read from the same Parquet file.

    SUDOKU_DATA_DIR=../shared/data python python/benches/bench_arrow.py [--n 200000] [--rounds 5]
        [--set puzzles5_forum_hardest_1905_11+ --set puzzles2_17_clue] [--threads T]

For each set, the set's puzzles are repeated to N and written once to a Parquet file (in a
temporary directory, never into the repository). Each route then runs in a fresh interpreter, so
that its peak resident memory (`getrusage` maxrss) is its own:

- arrow: `pq.read_table(f)["question"]` (a ChunkedArray), then `solve(column)` - an Arrow array out;
- polars: `pl.read_parquet(f)["question"]` (a polars Series), then `solve(series)` - a Series out;
- list: the same column's `to_pylist()` (a str per puzzle, as a list route needs), then
  `solve(list)` - a list out; its time counts the conversion, which is what a user pays;
- cli: the same puzzles as a line-format file, `sudoku-batch solve -q -j T FILE -o OUT` (whole
  process, the answers written to a file beside it as a Python user gets them in memory;
  `--cli PATH`, default target/release/sudoku-batch), the yardstick.

Each route's time is the median of the rounds (the table is read once per process); the memory
is the process's peak, minus nothing (the table itself is in both). Needs pyarrow and the
package installed.
"""

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = r"""
import json, resource, statistics, sys, time
import pyarrow.parquet as pq
import sudoku_batch as sb

path, route, rounds, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]) or None
if route == "polars":
    import polars as pl
    column = pl.read_parquet(path)["question"]
else:
    column = pq.read_table(path)["question"]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
times = []
for _ in range(rounds):
    t = time.perf_counter()
    if route in ("arrow", "polars"):
        answers = sb.solve(column, threads=threads)
        nulls = answers.null_count  # an attribute in pyarrow, a method in polars
        solved = len(answers) - (nulls() if callable(nulls) else nulls)
    else:
        answers = sb.solve(column.to_pylist(), threads=threads)
        solved = sum(a is not None for a in answers)
    times.append(time.perf_counter() - t)
    del answers
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"median": statistics.median(times), "times": times, "solved": solved,
                  "rss_table_kib": before, "rss_peak_kib": peak}))
"""


def puzzles(path):
    return [l[:81] for l in path.read_text().splitlines() if len(l) >= 81 and not l.startswith("#")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000, help="puzzles per run (the set repeated)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0, help="0: one per core")
    ap.add_argument("--set", action="append", dest="sets", help="a file of $SUDOKU_DATA_DIR (repeatable)")
    ap.add_argument("--row-group", type=int, default=1 << 20, help="Parquet row group size (chunk size)")
    repo = pathlib.Path(__file__).resolve().parents[2]
    ap.add_argument("--cli", default=str(repo / "target" / "release" / "sudoku-batch"), help="the CLI binary")
    args = ap.parse_args()
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = pathlib.Path(os.environ["SUDOKU_DATA_DIR"])
    sets = args.sets or ["puzzles5_forum_hardest_1905_11+", "puzzles2_17_clue"]
    print(f"{os.cpu_count()} cores; N = {args.n:,}; medians of {args.rounds} rounds; one process per route\n")
    print("| set | N | Arrow (ChunkedArray) s | polars Series s | list of str s | CLI, text file s | list / Arrow | Arrow / CLI | peak RSS Arrow MiB | peak RSS list MiB | RSS after reading the table MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in sets:
            base = puzzles(data / name)
            reps = -(-args.n // len(base))
            column = (base * reps)[: args.n]
            path = os.path.join(tmp, "puzzles.parquet")
            pq.write_table(pa.table({"question": column}), path, row_group_size=args.row_group)
            text = os.path.join(tmp, "puzzles.txt")
            with open(text, "w") as f:
                f.write("\n".join(column) + "\n")
            del column
            cli = []
            for _ in range(args.rounds):
                t = time.perf_counter()
                subprocess.run(
                    [args.cli, "solve", "-q", "-j", str(args.threads), text, "-o", text + ".out"], check=True
                )
                cli.append(time.perf_counter() - t)
            cli = statistics.median(cli)
            out = {}
            for route in ("arrow", "polars", "list"):
                run = subprocess.run(
                    [sys.executable, "-c", CHILD, path, route, str(args.rounds), str(args.threads)],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                out[route] = json.loads(run.stdout)
            assert out["arrow"]["solved"] == out["polars"]["solved"] == out["list"]["solved"] == args.n, out
            a, p, l = out["arrow"], out["polars"], out["list"]
            mib = lambda kib: kib / 1024
            print(
                f"| {name} | {args.n:,} | {a['median']:.3f} | {p['median']:.3f} | {l['median']:.3f} | {cli:.3f} | "
                f"{l['median'] / a['median']:.2f} | {a['median'] / cli:.2f} | {mib(a['rss_peak_kib']):,.0f} | "
                f"{mib(l['rss_peak_kib']):,.0f} | {mib(a['rss_table_kib']):,.0f} |"
            )


if __name__ == "__main__":
    main()
