"""The engine on Spark: every executor answers its partitions with this package, no CLI needed.

Command line::

    python -m sudoku_batch.spark INPUT OUTDIR [--master URL] [--partitions N]
        [--task solve|count|check|canon|rate] [--format auto|line|csv] [--column NAME]
        [--lexmin] [--limit N] [--unique] [--samples K] [--seed S]

INPUT is one file, a local path or any URL Spark reads (``hdfs://``, ``s3a://``). OUTDIR is
written as Spark writes: part files which, concatenated in name order, hold one answer per record
in input order.

- Line input (one puzzle per line): each part file holds the CLI's line output for its records
  (a solution, a count, a canonical form, a rating, or a status such as ``invalid: ...``),
  byte for byte what
  ``sudoku-batch`` prints for the same lines.
- CSV input (a header naming the puzzle column): each part file holds CSV rows with every input
  column, in order, then the answer and ``status`` columns (solve fills an existing
  ``solution``/``solutions``/``answer`` column in place); the header row is written to
  ``OUTDIR/_header.csv`` (files starting with ``_`` are ignored by Spark's readers, and the name
  sorts before the part files, so ``cat OUTDIR/_header.csv OUTDIR/part-*`` is the whole table).
  Rows are read one per line: a quoted field with a line feed in it needs ``--multiline`` (which
  makes the file one partition).

In a job of your own, :func:`solve_column` (or :func:`answer_column`) adds the answer columns to
any DataFrame.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Iterator, Optional

import sudoku_batch as sb
from sudoku_batch import _native

# Every task but dedupe, which keeps the first record of a class in the whole input: a partition
# does not see it (dedupe the canonical forms with Spark's own dropDuplicates).
_TASKS = tuple(t for t in _native.TASK_NAMES if t != "dedupe")


def _spark_type(kind: str) -> Any:
    from pyspark.sql.types import BooleanType, DoubleType, LongType, StringType

    return {"grid": StringType(), "count": LongType(), "float": DoubleType(), "bool": BooleanType()}[kind]


def _fresh(name: str, taken: Any) -> str:
    """`name`, or `name_2`, `name_3`, ... if the input already has a column of that name."""
    lower = {t.lower() for t in taken}
    k = 1
    while (name if k == 1 else f"{name}_{k}").lower() in lower:
        k += 1
    return name if k == 1 else f"{name}_{k}"


def _fresh_all(names: list, taken: Any) -> list:
    """Fresh names for each of `names`, in turn (each also avoids the ones before it)."""
    out: list = []
    for name in names:
        out.append(_fresh(name, list(taken) + out))
    return out


def _task_threads(threads: Optional[int]) -> Optional[int]:
    """Threads for one Spark task: the task's CPUs (Spark runs tasks side by side on an
    executor's cores), unless given."""
    if threads is not None:
        return threads
    try:
        from pyspark import TaskContext

        ctx = TaskContext.get()
        return max(1, int(ctx.cpus())) if ctx is not None else None
    except Exception:  # an older Spark without TaskContext.cpus()
        return 1


def answer_column(
    df: Any,
    column: str,
    *,
    task: str = "solve",
    solution_column: Optional[str] = None,
    output: Optional[str] = None,
    status: str = "status",
    lexmin: bool = False,
    limit: int = 2,
    unique: bool = False,
    samples: int = 16,
    seed: int = 0,
    threads: Optional[int] = None,
    names: Optional[list] = None,
) -> Any:
    """Returns `df` with the task's result columns for the puzzles of `column`, and their status.

    The result columns are the CLI's (``sudoku_batch._native.result_columns(task)``):
    ``task="solve"`` a string column ``solution`` (null where there is none), ``"count"`` a long
    column ``count`` (``limit`` means "at least"), ``"canon"`` a string column ``canonical``,
    ``"rate"`` a double column ``rating`` and a boolean column ``singles`` (``samples``
    isomorphs, ``seed``), ``"check"`` none: its verdict is the status, for the solutions in
    ``solution_column``. ``output`` renames the first result column, ``names`` all of them.
    ``status`` holds ``solved``/``ok``, ``unsolvable``, ``wrong: ...`` or ``invalid: ...``. A
    column that already has a result column's name is replaced in place (solve: filled, a row
    without an answer keeping its value, as the CLI fills a solution column); every other
    column is kept as it is. Runs inside ``mapInPandas``, so rows stay in their partitions and
    in order.
    """
    from pyspark.sql.types import StringType, StructField, StructType

    if task not in _TASKS:
        raise ValueError(f"task must be one of {sorted(_TASKS)}, not {task!r}")
    if task == "check" and solution_column is None:
        raise ValueError("task='check' needs solution_column")
    results = list(_native.result_columns(task))
    if output is not None and not results:
        raise ValueError(f"task {task!r} adds no result column (its verdict is the status); output= does not apply")
    outs = list(names) if names is not None else [name for name, _ in results]
    if output is not None and outs:
        outs[0] = output
    if len(outs) != len(results):
        raise ValueError(f"task {task!r} has {len(results)} result columns, {len(outs)} names given")
    fields = list(df.schema.fields)
    added = [(out, _spark_type(kind)) for out, (_, kind) in zip(outs, results)] + [(status, StringType())]
    for name, kind in added:
        field = StructField(name, kind, True)
        names_now = [f.name for f in fields]
        if name in names_now:
            fields[names_now.index(name)] = field
        else:
            fields.append(field)
    schema = StructType(fields)
    options = dict(lexmin=bool(lexmin), limit=int(limit), unique=bool(unique), samples=int(samples), seed=int(seed))

    def answer_batches(batches: Iterator[Any]) -> Iterator[Any]:
        n = _task_threads(threads)
        native = _native.Options(task, threads=n or 0, with_status=True, with_columns=True, **options)
        for pdf in batches:
            puzzles = sb._records(pdf[column], "puzzles")
            solutions = sb._records(pdf[solution_column], "solutions") if task == "check" else None
            rows, statuses = _native.run_list(puzzles, solutions, native)
            values = {out: [row[i] for row in rows] for i, out in enumerate(outs)}
            if task == "solve" and outs[0] in pdf.columns:
                # Filled in place, as the CLI does: a row without an answer keeps its value.
                values[outs[0]] = [a if a is not None else old for a, old in zip(values[outs[0]], pdf[outs[0]])]
            yield pdf.assign(**values, **{status: statuses})[[f.name for f in fields]]

    return df.mapInPandas(answer_batches, schema)


def solve_column(df: Any, column: str, **options: Any) -> Any:
    """``answer_column(df, column, task="solve", ...)``: adds ``solution`` and ``status``."""
    return answer_column(df, column, task="solve", **options)


def answer_lines(
    df: Any,
    *,
    task: str = "solve",
    lexmin: bool = False,
    limit: int = 2,
    unique: bool = False,
    samples: int = 16,
    seed: int = 0,
) -> Any:
    """A DataFrame of line-format input lines (one string column, as ``spark.read.text``
    gives) to the CLI's output lines for its records, partition by partition, in order."""

    def answer_batches(batches: Iterator[Any]) -> Iterator[Any]:
        import pandas as pd

        n = _task_threads(None)
        for pdf in batches:
            lines = pdf.iloc[:, 0].tolist()
            text = ("\n".join(l if l is not None else "" for l in lines) + "\n").encode("utf-8", "surrogateescape")
            options = _native.Options(
                task,
                threads=n or 0,
                lexmin=bool(lexmin),
                limit=int(limit),
                unique=bool(unique),
                samples=int(samples),
                seed=int(seed),
            )
            out = _native.answer_lines(text, options)
            text = out.decode("utf-8", "replace")
            yield pd.DataFrame({"value": text.split("\n")[:-1] if text else []})

    return df.mapInPandas(answer_batches, "value string")


def _input_size(spark: Any, path: str) -> Optional[int]:
    if "://" not in path or path.startswith("file://"):
        try:
            return os.path.getsize(path[len("file://") :] if path.startswith("file://") else path)
        except OSError:
            return None
    try:  # any file system Spark reads, through Hadoop's API
        jvm, conf = spark.sparkContext._jvm, spark.sparkContext._jsc.hadoopConfiguration()
        p = jvm.org.apache.hadoop.fs.Path(path)
        return int(p.getFileSystem(conf).getFileStatus(p).getLen())
    except Exception:
        return None


def _head(spark: Any, path: str, size: int = 64 << 10) -> bytes:
    """The first bytes of the input, for format detection."""
    local = path[len("file://") :] if path.startswith("file://") else path
    if "://" not in local:
        with open(local, "rb") as f:
            return f.read(size)
    lines = spark.read.text(path).limit(200).collect()
    return "\n".join(r[0] for r in lines).encode()[:size]


def run(args: argparse.Namespace) -> None:
    from pyspark.sql import SparkSession

    if (args.master or "").startswith("local"):
        # Local workers run this interpreter, which has the package (a cluster's workers get it
        # from the job's environment: see docs/scale-out.md).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("sudoku-batch")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    try:
        size = _input_size(spark, args.input)
        if args.partitions and size:
            # One file read in about N byte ranges, in order (Spark keeps a file's splits in order).
            split = max(4096, -(-size // args.partitions))
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(split))
            spark.conf.set("spark.sql.files.minPartitionNum", str(args.partitions))
        fmt = args.format
        if fmt == "auto":
            fmt = _native.detect_format(_head(spark, args.input), args.column)
        if fmt == "grid":
            raise SystemExit("sudoku_batch.spark: grid input is not supported; use the CLI with --shard")
        if fmt == "line":
            lines = spark.read.text(args.input)
            answered = answer_lines(
                lines,
                task=args.task,
                lexmin=args.lexmin,
                limit=args.limit,
                unique=args.unique,
                samples=args.samples,
                seed=args.seed,
            )
            answered.write.mode("errorifexists").text(args.output)
            return
        reader = spark.read.option("header", True).option("multiLine", args.multiline)
        df = reader.option("comment", "#").csv(args.input)
        column = args.column or next(
            (c for name in _native.PUZZLE_NAMES for c in df.columns if c.strip().lower() == name),
            None,
        )
        if column is None:
            raise SystemExit(f"sudoku_batch.spark: no puzzle column in {df.columns}; name it with --column")
        solution_column = next(
            (c for name in _native.SOLUTION_NAMES for c in df.columns if c.strip().lower() == name and c != column),
            None,
        )
        answered = answer_column(
            df,
            column,
            task=args.task,
            solution_column=solution_column,
            # As the CLI does: solve fills an existing solution column in place, and any other
            # result column takes a name the input does not have (`rating_2` beside sudoku-extreme's
            # own `rating`).
            names=[solution_column]
            if args.task == "solve" and solution_column is not None
            else _fresh_all([name for name, _ in _native.result_columns(args.task)], df.columns),
            status=_fresh("status", df.columns),
            lexmin=args.lexmin,
            limit=args.limit,
            unique=args.unique,
            samples=args.samples,
            seed=args.seed,
        )
        answered.write.mode("errorifexists").option("header", False).csv(args.output)
        import csv

        with open(os.path.join(args.output, "_header.csv"), "w", newline="") if "://" not in args.output else open(os.devnull, "w") as f:
            csv.writer(f, lineterminator="\n").writerow(answered.columns)
    finally:
        spark.stop()


def main(argv: Optional[list] = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m sudoku_batch.spark", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="one file: a local path or any URL Spark reads")
    ap.add_argument("output", help="output directory (must not exist)")
    ap.add_argument("--master", help="Spark master URL, e.g. local[4] or spark://host:7077 (default: spark-submit's)")
    ap.add_argument("--partitions", type=int, help="read the input in about N partitions")
    ap.add_argument("--task", choices=_TASKS, default="solve")
    ap.add_argument("--format", choices=["auto", "line", "csv"], default="auto")
    ap.add_argument("--column", help="CSV: the puzzle column")
    ap.add_argument("--multiline", action="store_true", help="CSV: quoted fields may hold line feeds")
    ap.add_argument("--lexmin", action="store_true", help="solve: the lexicographically smallest solution")
    ap.add_argument("--limit", type=int, default=2, help="count: stop at N solutions")
    ap.add_argument("--unique", action="store_true", help="check: also require a unique solution")
    ap.add_argument("--samples", type=int, default=16, help="rate: isomorphs searched per puzzle")
    ap.add_argument("--seed", type=int, default=0, help="rate: seed of the isomorphs")
    args = ap.parse_args(argv)
    if args.partitions is not None and args.partitions < 1:
        ap.error("--partitions must be at least 1")
    if args.limit < 1:
        ap.error("--limit must be at least 1")
    if not 1 <= args.samples <= 4096:
        ap.error("--samples must be from 1 to 4096")
    run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
