"""The engine on Spark: every executor answers its partitions with this package, no CLI needed.

Command line::

    python -m sudoku_batch.spark INPUT OUTDIR [--master URL] [--partitions N]
        [--task solve|count|check|canon|rate|grade] [--format auto|line|csv|parquet]
        [--output-format auto|csv|parquet] [--column NAME]
        [--lexmin] [--limit N] [--unique] [--samples K] [--seed S]

INPUT is one file (or a directory of Parquet files), a local path or any URL Spark reads
(``hdfs://``, ``s3a://``). OUTDIR is written as Spark writes: part files which, concatenated in
name order, hold one answer per record in input order.

- Line input (one puzzle per line): each part file holds the CLI's line output for its records
  (a solution, a count, a canonical form, a rating, or a status such as ``invalid: ...``),
  byte for byte what
  ``sudoku-batch`` prints for the same lines.
- Table input, CSV (with a header) or Parquet (a ``.parquet`` path, a
  directory of Parquet files, or ``--format parquet``): every input column is kept, in order,
  then the task's result columns and ``status`` are added (solve fills an existing
  ``solution``/``solutions``/``answer`` column in place; see :func:`result_names`). The output
  is in the input's format unless ``--output-format`` says otherwise; Parquet output has typed
  columns (string, long, double, boolean). For CSV output the header row is written to
  ``OUTDIR/_header.csv`` (files starting with ``_`` are ignored by Spark's readers, and the name
  sorts before the part files, so ``cat OUTDIR/_header.csv OUTDIR/part-*`` is the whole table).
  Rows are read one per line: a quoted field with a line feed in it needs ``--multiline`` (which
  makes the file one partition). The puzzle column is ``--column``, else the first with a usual
  name (``quizzes``, ``puzzle``, ...), else the one whose first rows hold puzzles, as the CLI
  finds it.

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

    return {"grid": StringType(), "text": StringType(), "count": LongType(), "float": DoubleType(), "bool": BooleanType()}[kind]


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


def _checked(limit: Any, samples: Any, seed: Any) -> dict:
    """The numeric options in the CLI's ranges, else ValueError: said on the driver, before a
    job starts, not as an exception inside every executor."""
    return dict(
        limit=sb._int(limit, "limit", 1, 2**32 - 1),
        samples=sb._int(samples, "samples", 1, 4096),
        seed=sb._int(seed, "seed", 0, 2**64 - 1),
    )


def _is_text(data_type: Any, task: str) -> bool:
    """Whether the CLI takes a column of this Spark type as a solution column: text (string or
    binary), or, for solve, which fills it, nulls alone (what an all-None pandas column is)."""
    from pyspark.sql.types import BinaryType, NullType, StringType

    kinds: tuple = (StringType, BinaryType, NullType) if task == "solve" else (StringType, BinaryType)
    return isinstance(data_type, kinds)


def _text_columns(schema: Any, task: str) -> list:
    """The columns of a DataFrame `schema` that the CLI takes as a solution column (`_is_text`)."""
    return [f.name for f in schema.fields if _is_text(f.dataType, task)]


def _solution_column(columns: Any, puzzle_column: str) -> Optional[str]:
    """The input's solution column, by the CLI's names (``solution``, ``answer``, ...), if any."""
    return next(
        (c for name in _native.SOLUTION_NAMES for c in columns if c.strip().lower() == name and c != puzzle_column),
        None,
    )


def result_names(
    task: str,
    columns: Any,
    puzzle_column: str,
    solution_column: Optional[str] = None,
    fillable: Optional[Any] = None,
) -> list:
    """The names of a task's result columns for a table with ``columns``, by the CLI's rule:
    ``solve`` fills the input's solution column in place (``solution_column``, else the first
    column named ``solution``, ``solutions``, ``answer``, ... among ``fillable``, the columns
    of text or of nulls alone, by default all of ``columns``) if it has one; every other result
    column is added, under a name the input does not have (``rating_2`` beside an input
    ``rating``)."""
    if task == "solve":
        existing = solution_column or _solution_column(columns if fillable is None else fillable, puzzle_column)
        if existing is not None:
            return [existing]
    return _fresh_all([name for name, _ in _native.result_columns(task)], columns)


def answer_column(
    df: Any,
    column: str,
    *,
    task: str = "solve",
    solution_column: Optional[str] = None,
    output: Optional[str] = None,
    status: Optional[str] = None,
    lexmin: bool = False,
    limit: int = 2,
    unique: bool = False,
    samples: int = 16,
    seed: int = 0,
    nested: bool = False,
    threads: Optional[int] = None,
    names: Optional[list] = None,
    as_text: bool = False,
) -> Any:
    """Returns `df` with the task's result columns for the puzzles of `column`, and their status.

    The result columns are the CLI's (``sudoku_batch._native.result_columns(task)``):
    ``task="solve"`` a string column ``solution`` (null where there is none), ``"count"`` a long
    column ``count`` (``limit`` means "at least"), ``"canon"`` a string column ``canonical``,
    ``"rate"`` a double column ``rating`` and a boolean column ``singles`` (``samples``
    isomorphs, ``seed``), ``"grade"`` the grade's six (``nested``: see
    :func:`sudoku_batch.grade`), ``"check"`` none: its verdict is the status, for the solutions in
    ``solution_column``. ``status`` (default ``status``) holds ``solved``/``ok``,
    ``unsolvable``, ``wrong: ...`` or ``invalid: ...``.

    Names follow the CLI's rule (:func:`result_names`): solve fills the input's solution column
    (``solution_column``, or one named ``solution``/``answer``/... of strings, bytes or nulls
    alone) in place, a row without an answer keeping its value; other result columns, and the
    status, are added under names the input does not have (``rating_2``, ``status_2``). ``output`` names the first result column
    and ``names`` all of them, ``status`` the status column; a given name that the input has is
    replaced (solve: filled). Every other column is kept as it is. ``as_text=True`` makes each
    result column a string column of the CLI's CSV text (``2+`` for a count at the limit,
    ``30.00`` for a rating), as the job writes CSV. Runs inside ``mapInArrow``, each batch read in
    place by the engine, so rows stay in their partitions and in order.
    """
    from pyspark.sql.types import StringType, StructField, StructType

    if task not in _TASKS:
        raise ValueError(f"task must be one of {sorted(_TASKS)}, not {task!r}")
    numbers = _checked(limit, samples, seed)
    if threads is not None:
        threads = sb._threads(threads)
    if task == "check" and solution_column is None:
        raise ValueError("task='check' needs solution_column")
    if solution_column is not None and solution_column == column:
        raise ValueError(f"solution_column {solution_column!r} names the puzzle column")
    for what, name in (("column", column), ("solution_column", solution_column)):
        if name is not None and name not in df.columns:
            raise ValueError(f"{what}: no column named {name!r} in {df.columns}")
    # A name's first column (after a join, two may share it), as the batches below read it.
    at = {name: i for i, name in reversed(list(enumerate(df.columns)))}
    kinds = [f.dataType for f in df.schema.fields]
    # As the CLI: puzzles are text (or nulls alone); a solution column too (nulls alone for solve
    # only, which fills it). Said here, not as an exception inside every executor.
    for what, name, rule in (("column", column, "solve"), ("solution_column", solution_column, task)):
        if name is not None and rule in ("solve", "check") and not _is_text(kinds[at[name]], rule):
            kind = kinds[at[name]].simpleString()
            raise ValueError(f"{what}: column {name!r} holds {kind}, not text (puzzles and solutions are strings)")
    text = _text_columns(df.schema, task)
    results = list(_native.result_columns(task))
    if output is not None and not results:
        raise ValueError(f"task {task!r} adds no result column (its verdict is the status); output= does not apply")
    if names is not None:
        outs = list(names)
    elif output is not None:
        outs = [output] + _fresh_all([name for name, _ in results[1:]], list(df.columns) + [output])
    else:
        outs = result_names(task, df.columns, column, solution_column if task == "solve" else None, fillable=text)
    if len(outs) != len(results):
        raise ValueError(f"task {task!r} has {len(results)} result columns, {len(outs)} names given")
    if status is None:
        status = _fresh("status", list(df.columns) + outs)
    if len(set(outs + [status])) != len(outs) + 1:
        raise ValueError(f"the result columns and the status need names of their own, not {outs + [status]}")
    # Each output field with the position of the input column it copies (None: a result),
    # by position, so that columns of the same name (after a join) each keep their own data.
    fields = list(df.schema.fields)
    sources: list = list(range(len(fields)))
    added = [(out, StringType() if as_text else _spark_type(kind)) for out, (_, kind) in zip(outs, results)]
    added += [(status, StringType())]
    for name, kind in added:
        field = StructField(name, kind, True)
        names_now = [f.name for f in fields]
        if name in names_now:
            sources[names_now.index(name)] = None
            fields[names_now.index(name)] = field
        else:
            fields.append(field)
            sources.append(None)
    fill = outs[0] if task == "solve" and outs[0] in df.columns else None
    options = dict(lexmin=bool(lexmin), unique=bool(unique), nested=bool(nested), **numbers)
    # Columns are passed by position under plain names and named again after: PySpark's
    # mapInArrow looks its input columns up by name, which fails for a name with a dot in it.
    column_at, solution_at = at[column], at.get(solution_column)
    fill_at = None if fill is None else at[fill]
    plain = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
    schema = StructType([StructField(f"o{i}", f.dataType, f.nullable, f.metadata) for i, f in enumerate(fields)])

    def answer_batches(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        n = _task_threads(threads)
        native = _native.Options(
            task, threads=n or 0, with_status=True, with_columns=True, text_columns=bool(as_text), **options
        )
        for batch in batches:
            solutions = batch.column(solution_at) if task == "check" else None
            answers = _native.run_arrow(batch.column(column_at), solutions, native)
            values = {name: pa.array(a) for name, a in zip(outs + [status], answers)}
            if fill is not None:
                # Filled in place, as the CLI does: a row without an answer keeps its value.
                old = batch.column(fill_at).cast(pa.string())
                values[fill] = pc.coalesce(values[fill], old)
            arrays = [values[f.name] if src is None else batch.column(src) for f, src in zip(fields, sources)]
            yield pa.RecordBatch.from_arrays(arrays, names=schema.names)

    return plain.mapInArrow(answer_batches, schema).toDF(*[f.name for f in fields])


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

    from pyspark.sql import functions as F

    if task not in _TASKS:
        raise ValueError(f"task must be one of {sorted(_TASKS)}, not {task!r}")
    numbers = _checked(limit, samples, seed)

    def answer_batches(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa

        n = _task_threads(None)
        options = _native.Options(task, threads=n or 0, lexmin=bool(lexmin), unique=bool(unique), **numbers)
        for batch in batches:
            # The lines' bytes as they are in the file: a line that is not UTF-8 is a record
            # like any other (`invalid: ...`), as in the CLI, not a failed conversion.
            lines = batch.column(0).to_pylist()
            text = b"\n".join(l if l is not None else b"" for l in lines) + b"\n"
            out = _native.answer_lines(text, options).decode("utf-8", "replace")
            yield pa.RecordBatch.from_arrays([pa.array(out.split("\n")[:-1] if out else [], pa.string())], names=["value"])

    plain = df.toDF(*[f"c{i}" for i in range(len(df.columns))])  # any name, dots included
    lines = plain.select(F.col("c0").cast("binary").alias("value"))
    return lines.mapInArrow(answer_batches, "value string")


def _local(path: str) -> Optional[str]:
    """The local path of an input given as a path or a ``file://`` URL; None for other URLs."""
    if path.startswith("file://"):
        return path[len("file://") :]
    return None if "://" in path else path


def _is_parquet(path: str) -> bool:
    """A Parquet input: a path ending in ``.parquet``, or a local directory of Parquet files (as
    Spark and pyarrow write them)."""
    if path.rstrip("/").lower().endswith(".parquet"):
        return True
    local = _local(path)
    if local is None or not os.path.isdir(local):
        return False
    return any(name.lower().endswith(".parquet") for _, _, files in os.walk(local) for name in files)


def _data_files(spark: Any, path: str) -> list:
    """The files of a directory input in name order (their paths from the directory, sorted), as
    Spark's readers list them: hidden files (``_SUCCESS``, ``.crc``, names starting with ``_`` or
    ``.``) left out. One file is itself."""
    hidden = lambda name: name.startswith(("_", "."))  # noqa: E731
    local = _local(path)
    if local is not None:
        if not os.path.isdir(local):
            return [path]
        found = []
        for d, dirs, files in os.walk(local):
            dirs[:] = [x for x in dirs if not hidden(x)]
            found += [os.path.join(d, f) for f in files if not hidden(f)]
        scheme = "file://" if path.startswith("file://") else ""
        return [scheme + f for f in sorted(found)]
    jvm, conf = spark.sparkContext._jvm, spark.sparkContext._jsc.hadoopConfiguration()
    root = jvm.org.apache.hadoop.fs.Path(path)
    fs = root.getFileSystem(conf)
    try:
        if not fs.getFileStatus(root).isDirectory():
            return [path]
    except Exception:  # a glob (`s3a://b/d/*.parquet`) or a missing path: Spark's to read
        return [path]
    found, listing = [], fs.listFiles(root, True)
    while listing.hasNext():
        p = listing.next().getPath()
        relative = str(p.toUri().getPath())[len(str(root.toUri().getPath())) :]
        if not any(hidden(part) for part in relative.split("/") if part):
            found.append(str(p))
    return sorted(found)


def _read_in_order(spark: Any, path: str, fmt: str, files: list) -> Any:
    """``spark.read.text`` or ``.parquet`` of ``path`` (whose files are ``files``, from
    :func:`_data_files`); for a directory, each file read on its
    own (with the directory as ``basePath``, so that partition directories such as ``year=2024``
    still give their columns) and the results joined in name order. Spark would read a
    directory's files in one scan, packed into partitions largest first, which loses the
    input's order."""
    import functools

    read = lambda reader, p: reader.text(p) if fmt == "line" else reader.parquet(p)  # noqa: E731
    if files == [path] or not files:
        return read(spark.read, path)
    # The directory's schema, partition columns included, for every file: each is then read
    # without inferring its own (a partition value `007` stays the string it is in the whole).
    schema = read(spark.read, path).schema
    parts = [read(spark.read.schema(schema).option("basePath", path), f) for f in files]
    # Joined pairwise, so the plan is as deep as log2 of the files, not their number.
    while len(parts) > 1:
        parts = [functools.reduce(lambda a, b: a.union(b), parts[i : i + 2]) for i in range(0, len(parts), 2)]
    return parts[0]


def _input_size(spark: Any, path: str) -> Optional[int]:
    local = _local(path)
    if local is not None:
        try:
            if os.path.isdir(local):
                return sum(os.path.getsize(os.path.join(d, f)) for d, _, files in os.walk(local) for f in files)
            return os.path.getsize(local)
        except OSError:
            return None
    try:  # any file system Spark reads, through Hadoop's API
        jvm, conf = spark.sparkContext._jvm, spark.sparkContext._jsc.hadoopConfiguration()
        p = jvm.org.apache.hadoop.fs.Path(path)
        return int(p.getFileSystem(conf).getFileStatus(p).getLen())
    except Exception:
        return None


# As many bytes as the engine reads to detect a format (`sudoku_batch::PEEK`).
_HEAD_BYTES = 64 << 10


def _head(spark: Any, path: str, size: int = _HEAD_BYTES) -> bytes:
    """The first bytes of the input, for format detection."""
    local = _local(path)
    if local is not None:
        if os.path.isdir(local):
            raise SystemExit(f"sudoku_batch.spark: {path} is a directory with no .parquet file; give one file, or --format")
        with open(local, "rb") as f:
            head = f.read(size)
        return _decompressed_head(local, head, size)
    lines = spark.read.text(path).limit(200).collect()
    return "\n".join(r[0] for r in lines).encode()[:size]


def _decompressed_head(path: str, head: bytes, size: int) -> bytes:
    """The first bytes of a local input as Spark reads it: Spark (Hadoop) decompresses a gzip
    or bzip2 file named ``.gz`` or ``.bz2`` itself, so its format is detected from its
    decompressed text. Any other compressed file is refused, as the CLI refuses it."""
    import bz2
    import gzip

    kinds = {b"\x1f\x8b": ("gzip", ".gz", gzip.open), b"BZh": ("bzip2", ".bz2", bz2.open)}
    for magic, (name, suffix, opener) in kinds.items():
        if head.startswith(magic):
            if not path.endswith(suffix):  # Hadoop picks the codec by this suffix, case and all
                raise SystemExit(
                    f"sudoku_batch.spark: {path}: it is {name}-compressed, but its name does not end in "
                    f"{suffix}, which Spark needs to decompress it; rename it or decompress it first"
                )
            try:
                with opener(path, "rb") as f:
                    return f.read(size)
            except (OSError, EOFError) as e:
                raise SystemExit(f"sudoku_batch.spark: {path}: read error: {e}") from None
    others = {b"\x28\xb5\x2f\xfd": "zstd", b"\xfd7zXZ\x00": "xz", b"PK\x03\x04": "ZIP"}
    for magic, name in others.items():
        if head.startswith(magic):
            raise SystemExit(
                f"sudoku_batch.spark: {path}: it is {name}-compressed, which Spark does not read; "
                "decompress it first (or compress it with gzip or bzip2)"
            )
    return head


def _refuse_check_without_solutions(path: str, head: bytes, header: Optional[tuple]) -> None:
    """As the CLI: ``check`` on line records whose first readable puzzle has nothing after it
    is refused, not answered ``invalid`` line by line. The engine answers the head's whole
    lines (past a header row), one answer per record; the first whose puzzle reads decides."""
    text = head[header[1] :] if header else head
    if len(head) >= _HEAD_BYTES:
        text = text[: max(text.rfind(b"\n"), text.rfind(b"\r")) + 1]
    answers = _native.answer_lines(text, _native.Options("check")).split(b"\n")
    unread = (b"invalid: expected 81 cells", b"invalid: character ")  # the puzzle does not read
    first = next((a for a in answers if not a.startswith(unread)), b"")
    if first == b"invalid: no solution after the puzzle":
        raise SystemExit(
            f"sudoku_batch.spark: {path}: check needs a solution after each puzzle "
            "(`puzzle,solution` lines, or CSV with a solution column); the first puzzle has "
            "nothing after it"
        )


def _holds_a_puzzle(head: bytes, sep: str) -> bool:
    """Whether the first row of a CSV's head has a field that reads as a puzzle."""
    import csv
    import io

    first = head.split(b"\n", 1)[0].rstrip(b"\r").decode("utf-8", "replace")
    fields = next(csv.reader(io.StringIO(first), delimiter=sep), [])
    answers = _native.answer_lines("\n".join(f.strip() for f in fields).encode() + b"\n", _native.Options("solve"))
    return any(a and not a.startswith(b"invalid") for a in answers.split(b"\n"))


def _puzzle_column_by_values(df: Any) -> Optional[str]:
    """The puzzle column of a table that names none, as the CLI finds it: the values of the
    first 64 rows decide (the first text column holding a puzzle with a blank, else a full
    grid; see ``_native.puzzle_column_by_values``)."""
    import pyarrow as pa
    from pyspark.sql.types import BinaryType, StringType

    fields = [(i, f) for i, f in enumerate(df.schema.fields) if isinstance(f.dataType, (StringType, BinaryType))]
    if not fields:
        return None
    # By position (a name with a dot in it would be read as a struct's field).
    plain = df.toDF(*[f"c{i}" for i in range(len(df.columns))])
    rows = plain.select([f"c{i}" for i, _ in fields]).limit(64).collect()
    arrays = [
        pa.array([r[k] for r in rows], type=pa.string() if isinstance(f.dataType, StringType) else pa.binary())
        for k, (_, f) in enumerate(fields)
    ]
    found = _native.puzzle_column_by_values(pa.RecordBatch.from_arrays(arrays, names=[f.name for _, f in fields]))
    return None if found is None else fields[found][1].name


def _write_header(spark: Any, outdir: str, names: list, sep: str) -> None:
    """Writes ``OUTDIR/_header.csv``, the CSV output's header row: with Python's own files for a
    local directory, through Hadoop's file system API for any other URL Spark wrote to."""
    import csv
    import io

    row = io.StringIO()
    if sep == ",":
        csv.writer(row, lineterminator="\n").writerow(names)
    else:
        # As the CLI writes it: a name holding a comma, a semicolon or a tab is quoted, since a
        # header's unquoted bytes decide its separator when the table is read again.
        special = lambda n: any(c in n for c in ',;\t"\r\n')  # noqa: E731
        row.write(sep.join('"' + n.replace('"', '""') + '"' if special(n) else n for n in names) + "\n")
    local = _local(outdir)
    if local is not None:
        with open(os.path.join(local, "_header.csv"), "w", newline="") as f:
            f.write(row.getvalue())
        return
    jvm, conf = spark.sparkContext._jvm, spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(outdir.rstrip("/") + "/_header.csv")
    stream = path.getFileSystem(conf).create(path, False)
    try:
        stream.write(bytearray(row.getvalue().encode("utf-8")))
    finally:
        stream.close()


def run(args: argparse.Namespace) -> None:
    from pyspark.sql import SparkSession

    local_output = _local(args.output)
    if local_output is not None and os.path.exists(local_output):
        raise SystemExit(f"sudoku_batch.spark: {args.output} exists; the output is a new directory")

    if (args.master or "").startswith("local"):
        # Local workers run this interpreter, which has the package (a cluster's workers get it
        # from the job's environment: see docs/scale-out.md).
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("sudoku-batch")
    if args.master:
        builder = builder.master(args.master)
    spark = builder.getOrCreate()
    # Timestamps are written as Parquet's own type, UTC instants (Spark's default, the older
    # INT96, comes back from other readers as nanoseconds without a time zone).
    spark.conf.set("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS")
    try:
        fmt = args.format
        # A directory's files are read one by one, in name order (`_read_in_order`).
        files = _data_files(spark, args.input)
        directory = files != [args.input]
        # A directory of text files (`--format line`) has no one start to look at.
        readable = fmt in ("auto", "csv") or fmt == "line" and not directory
        head = _head(spark, args.input) if readable and not _is_parquet(args.input) else b""
        if fmt == "auto" and _is_parquet(args.input):
            fmt = "parquet"
        elif fmt == "auto":
            try:  # refused as the CLI refuses it: never answered `invalid` row by row
                fmt = _native.detect_format(head, args.column)
            except ValueError as e:
                raise SystemExit(f"sudoku_batch.spark: {args.input}: {e}") from None
        # A line file's header row (`puzzle solution`): its line, and the offset past it.
        header = _native.line_header(head, len(head) < _HEAD_BYTES) if fmt == "line" and not directory else None
        if fmt == "line" and args.task == "check" and not directory:
            _refuse_check_without_solutions(args.input, head, header)
        size = _input_size(spark, args.input)
        if args.partitions and size:
            # One file read in about N byte ranges, in order (Spark keeps a file's splits in
            # order); the first holds the header row, if any (see below).
            split = max(4096, -(-size // args.partitions), header[1] if header else 0)
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(split))
            spark.conf.set("spark.sql.files.minPartitionNum", str(args.partitions))
        if directory:
            # Each file of a directory is a read of its own: a minimum number of partitions
            # would apply to each (a file in N pieces); the size of the pieces alone bounds them.
            spark.conf.set("spark.sql.files.minPartitionNum", "1")
        first = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t")
        if fmt == "csv" and first[:1] in (b"#", b"\n", b"\r"):
            # The CLI skips them; Spark's CSV reader would take the first line for the header,
            # and its `comment` option would also drop data rows that start with `#`.
            raise SystemExit(
                "sudoku_batch.spark: the CSV starts with comment or blank lines; remove them "
                "(Spark reads the first line as the header)"
            )
        if fmt == "csv" and _holds_a_puzzle(first, sep=_native.csv_separator(first)):
            # As the CLI: Spark would read that row as the header, and lose the puzzle.
            raise SystemExit(
                f"sudoku_batch.spark: {args.input}: the CSV input has no header row (a first row "
                "holding a puzzle is not a header)"
            )
        if fmt == "grid":
            raise SystemExit("sudoku_batch.spark: grid input is not supported; use the CLI with --shard")
        output_format = args.output_format
        if output_format == "auto":
            output_format = "parquet" if fmt == "parquet" else fmt
        if fmt == "line" and output_format != "line":
            raise SystemExit("sudoku_batch.spark: line input gives line output; --output-format parquet or csv needs a table (CSV or Parquet)")
        if fmt == "line":
            lines = _read_in_order(spark, args.input, "line", files)
            if header is not None:
                # A header row is no record, as in the CLI. The rows of the file's first split
                # (partition 0, which holds the header row) are numbered from 0 in file order.
                from pyspark.sql import functions as F

                lines = lines.where(F.monotonically_increasing_id() != header[0])
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
        # A header row without a comma but with a tab or semicolon sets the separator, as in the CLI.
        sep = _native.csv_separator(first) if fmt == "csv" else ","
        if fmt == "parquet":
            df = _read_in_order(spark, args.input, "parquet", files)
        else:
            # A quote inside a quoted field is doubled, as in RFC 4180 and the CLI (Spark's
            # default escape is a backslash).
            reader = spark.read.option("header", True).option("multiLine", args.multiline).option("sep", sep).option("escape", '"')
            df = reader.csv(args.input)
        if args.column is not None:
            # As in the CLI: the name as given, else the one name that matches it ignoring case.
            column = args.column if args.column in df.columns else next(
                (c for c in df.columns if c.strip().lower() == args.column.strip().lower()), None
            )
            if column is None:
                raise SystemExit(f"sudoku_batch.spark: {args.input}: no column named {args.column!r} among the columns {df.columns}")
        else:
            column = next(
                (c for name in _native.PUZZLE_NAMES for c in df.columns if c.strip().lower() == name),
                None,
            )
        if column is None:
            column = _puzzle_column_by_values(df)
            if column is None:
                raise SystemExit(f"sudoku_batch.spark: no puzzle column in {df.columns}; name it with --column")
            print(
                f"sudoku_batch.spark: {args.input}: the table names no puzzle column, but column "
                f'"{column}" holds 81-cell puzzles',
                file=sys.stderr,
            )
        solution_column = _solution_column(_text_columns(df.schema, args.task), column)
        if args.task == "check" and solution_column is None:
            raise SystemExit(
                f"sudoku_batch.spark: {args.input}: check needs a solution column; the columns {df.columns} "
                f"hold none of {list(_native.SOLUTION_NAMES)} as text"
            )
        answered = answer_column(
            df,
            column,
            task=args.task,
            solution_column=solution_column,
            lexmin=args.lexmin,
            limit=args.limit,
            unique=args.unique,
            samples=args.samples,
            seed=args.seed,
            # CSV output holds the CLI's text (`2+`, `30.00`); Parquet its typed columns.
            as_text=output_format != "parquet",
        )
        if output_format == "parquet":
            answered.write.mode("errorifexists").parquet(args.output)
            return
        # Kept columns are written as they were read: quotes doubled, surrounding spaces kept
        # (Spark's writer escapes with a backslash and trims by default).
        writer = answered.write.mode("errorifexists").option("header", False).option("sep", sep)
        writer = writer.option("escape", '"').option("ignoreLeadingWhiteSpace", False).option("ignoreTrailingWhiteSpace", False)
        writer.csv(args.output)
        _write_header(spark, args.output, answered.columns, sep)
    finally:
        spark.stop()


def main(argv: Optional[list] = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m sudoku_batch.spark", description=__doc__.split("\n\n")[0])
    ap.add_argument("input", help="one file (or a directory of Parquet files): a local path or any URL Spark reads")
    ap.add_argument("output", help="output directory (must not exist)")
    ap.add_argument("--master", help="Spark master URL, e.g. local[4] or spark://host:7077 (default: spark-submit's)")
    ap.add_argument("--partitions", type=int, help="read the input in about N partitions")
    ap.add_argument("--task", choices=_TASKS, default="solve")
    ap.add_argument(
        "--format",
        choices=["auto", "line", "csv", "parquet"],
        default="auto",
        help="input format (auto: Parquet for a .parquet path or a directory of Parquet files, else detected)",
    )
    ap.add_argument(
        "--output-format",
        choices=["auto", "csv", "parquet"],
        default="auto",
        help="output of a table input (auto: the input's format)",
    )
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
    try:
        _checked(args.limit, args.samples, args.seed)
    except ValueError as e:
        ap.error("--" + str(e))
    run(args)


if __name__ == "__main__":
    main(sys.argv[1:])
