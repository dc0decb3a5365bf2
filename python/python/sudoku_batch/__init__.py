"""Batch Sudoku solving from Python, NumPy, pandas, Arrow and polars on every core.

The engine is the ``sudoku-batch`` Rust library (the same one as the command-line tool); this
package is a thin layer over it. Puzzles are 81-character strings (``1``-``9`` givens, ``0`` or
``.`` blanks), rows of a ``uint8`` NumPy array of shape ``(N, 81)`` (cell values, ``0`` blank,
or ASCII text), or an Arrow column of strings (a pyarrow ``Array``/``ChunkedArray``, a polars
``Series``, an Arrow-backed pandas ``Series``, a ``datasets`` column in Arrow format, or any
object with ``__arrow_c_array__``/``__arrow_c_stream__``), read in place with no Python object
per puzzle. Answers come back in the kind that went in: a list for a list, an array for an
array, an Arrow array for Arrow (a polars ``Series`` for polars), a ``Series`` with the same
index for a pandas ``Series``, named for what it holds (``solution``, ``count``, ``check``,
``canonical``, ``rating``, ``keep``, ``status``, or grade's column names), so that it joins a
``DataFrame`` under that name.

A bad record never raises and never stops the batch: it gets ``None`` (or a row of zeros, or
-1) in its place, and ``with_status=True`` tells why. Work runs on ``threads`` workers (default:
every core) with the GIL released; Ctrl-C raises ``KeyboardInterrupt`` within a second.

>>> import sudoku_batch
>>> sudoku_batch.solve(["53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"])
['534678912672195348198342567859761423426853791713924856961537284287419635345286179']
"""

from __future__ import annotations

import operator
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _native

__all__ = ["solve", "count", "check", "canon", "rate", "grade", "dedupe", "solve_file"]
__version__ = "0.1.0"

Puzzles = Union[Sequence[Union[str, bytes]], "np.ndarray[Any, Any]", Any]

_TEXT_HINT = "read puzzle columns as text, for example pd.read_csv(..., dtype=str)"


def _int(value: Any, name: str, lo: int, hi: int) -> int:
    """`value` as an int in [lo, hi] (NumPy integers too; not bool), else ValueError."""
    try:
        if isinstance(value, bool):
            raise TypeError
        n = operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be an int from {lo} to {hi}, not {value!r}") from None
    if not lo <= n <= hi:
        raise ValueError(f"{name} must be an int from {lo} to {hi}, not {value!r}")
    return n


def _threads(threads: Optional[int]) -> int:
    if threads is None:
        return 0  # the engine's "one per core"
    return _int(threads, "threads", 0, 1024)  # 0: one per core, as the CLI's -j 0


def _as_array(puzzles: Any) -> Optional[np.ndarray]:
    """The puzzles as a C-contiguous uint8 (N, 81) array if they are a numeric array; None for
    records given as strings (a list, a tuple, a pandas Series, an object or str array)."""
    if not isinstance(puzzles, np.ndarray):
        return None
    if puzzles.dtype.kind in "OUST":  # object, str, bytes, NumPy 2's variable-width StringDType
        return None
    if puzzles.dtype != np.uint8:
        raise TypeError(
            f"expected a uint8 array of shape (N, 81) (0 = blank) or puzzle strings, got dtype "
            f"{puzzles.dtype} and shape {puzzles.shape}: {_TEXT_HINT}"
        )
    if puzzles.ndim != 2 or puzzles.shape[1] != 81:
        raise ValueError(
            f"expected a uint8 array of shape (N, 81) (0 = blank), got shape {puzzles.shape}"
        )
    return np.ascontiguousarray(puzzles)


def _is_table(records: Any) -> bool:
    """A DataFrame or table (pandas, polars, pyarrow): its rows are not puzzles."""
    return hasattr(records, "columns") or hasattr(records, "column_names")


def _is_pandas(records: Any) -> bool:
    return type(records).__module__.startswith("pandas") and hasattr(records, "index")


def _arrow_kind(records: Any, what: str) -> Optional[str]:
    """How an Arrow column was given: ``"pyarrow"``, ``"polars"``, ``"pandas"`` (an Arrow-backed
    Series) or ``"arrow"`` (another producer of the Arrow PyCapsule protocol); None for
    anything else. Raises TypeError for a numeric pandas Series, which holds no puzzle."""
    if isinstance(records, (np.ndarray, list, tuple, str, bytes, bytearray, memoryview)) or _is_table(records):
        return None
    module = type(records).__module__
    if _is_pandas(records) and hasattr(records, "dtype"):
        dtype = records.dtype
        # A categorical column's values are its categories' (none, where every value is missing).
        categories = getattr(dtype, "categories", None)
        values = getattr(categories, "dtype", dtype)
        no_categories = categories is not None and len(categories) == 0
        # A numeric column of missing values alone (pandas reads an empty column as NaN floats)
        # holds no number: it is a batch of missing puzzles, each answered with its status.
        numeric = getattr(values, "kind", "O") in "iufcb"
        if numeric and not no_categories and not bool(records.isna().all()):
            raise TypeError(
                f"{what}: expected puzzle strings, got a pandas Series of dtype {dtype} (numbers "
                f"lose a puzzle's leading zeros): {_TEXT_HINT}"
            )
        # Arrow-backed text goes to the engine as it is; missing numbers (`int64[pyarrow]`) are
        # read one by one, as in any other numeric Series.
        pyarrow_text = not numeric and getattr(dtype, "storage", None) == "pyarrow"
        if pyarrow_text and hasattr(records.array, "__arrow_array__"):
            return "pandas"
        return None
    if module.startswith("datasets") and _dataset_column(records) is not None:
        return "datasets"
    if module.startswith("polars"):
        import polars as pl

        if isinstance(records, pl.Expr):
            raise TypeError(
                f"{what}: expected a column of puzzle strings, got a polars {type(records).__name__} "
                f"(an expression is not a column: pass the Series, df['question'], or use "
                f"map_batches)"
            )
        if getattr(records, "dtype", None) == pl.Object:
            # Its Arrow export holds the objects' addresses, not their text.
            raise TypeError(
                f"{what}: expected a column of puzzle strings, got a polars Series of dtype Object "
                f"(make it a String column: pl.Series(values, dtype=pl.String))"
            )
        return "polars"
    if module.startswith("pyarrow"):
        return "pyarrow" if hasattr(records, "__arrow_c_stream__") or hasattr(records, "__arrow_c_array__") else None
    if hasattr(records, "__arrow_c_array__") or hasattr(records, "__arrow_c_stream__"):
        return "arrow"
    return None


def _dataset_column(records: Any) -> Any:
    """A ``datasets.Dataset`` column (``ds["question"]``, a sequence of str) as the pyarrow
    ChunkedArray behind it, in the dataset's row order; None for anything else, and for a
    dataset with a transform (``with_transform``), whose values are not the table's: that column
    is read as the sequence it is."""
    import sys

    datasets = sys.modules.get("datasets")
    source, name = getattr(records, "source", None), getattr(records, "column_name", None)
    if datasets is None or not isinstance(source, datasets.Dataset) or not isinstance(name, str):
        return None
    form = source.format
    if form.get("type") == "custom" or form.get("format_kwargs", {}).get("transform") is not None:
        return None
    return source.with_format("arrow")[name]


def _arrow_in(records: Any, kind: str) -> Any:
    """The object to hand to the engine's Arrow reader."""
    if kind == "datasets":
        return _dataset_column(records)
    if kind == "pandas":
        return records.array.__arrow_array__()  # the pyarrow ChunkedArray behind it, not a copy
    if kind == "polars" and str(records.dtype) == "Null":
        import polars as pl

        return records.cast(pl.String)  # a column of nulls only: null records, as strings
    return records


def _arrow_out(kind: str, answers: Any, like: Any) -> Any:
    """Answers built by the engine (an object with ``__arrow_c_array__`` or, for a chunked input,
    ``__arrow_c_stream__``) in the kind of ``like``: a pyarrow Array or ChunkedArray, a polars
    Series, a pandas Series with ``like``'s index; for another producer, a pyarrow array if
    pyarrow is installed, else the engine's object."""
    if kind == "polars":
        import polars as pl

        return pl.Series(answers)
    if kind == "datasets":  # a sequence in, a list out, as for any sequence
        import pyarrow as pa

        array = pa.array(answers) if hasattr(answers, "__arrow_c_array__") else pa.chunked_array(answers)
        return array.to_pylist()
    try:
        import pyarrow as pa
    except ImportError:
        return answers
    array = pa.array(answers) if hasattr(answers, "__arrow_c_array__") else pa.chunked_array(answers)
    if kind == "pandas":
        import pandas as pd

        if _missing_is_nan(like.dtype):
            series = array.to_pandas()
        else:
            series = array.to_pandas(types_mapper=pd.ArrowDtype)
        series.index = like.index
        return series
    return array


def _missing_is_nan(dtype: Any) -> bool:
    """Whether a pandas string dtype marks missing values with NaN: pandas 3's default ``str``.
    Its answers take pandas' default dtypes, as ``read_parquet`` gives them (``str``; ``int64``,
    or ``float64`` with NaN where an answer is missing; ``bool``, or ``object`` with None); a
    column typed with Arrow's missing values (``string[pyarrow]``, ``pd.ArrowDtype``) gets
    Arrow-typed answers."""
    import pandas as pd

    na_value = getattr(dtype, "na_value", pd.NA)
    return isinstance(dtype, pd.StringDtype) and na_value is not pd.NA


def _partner_as_arrow(records: Any, what: str) -> Tuple[Any, Optional[str]]:
    """Strings given beside an Arrow column (``check``'s solutions, ``dedupe``'s ``against``)
    as a pyarrow array, so that the answer takes the column's Arrow route and kind; the records
    as they are (and None) where pyarrow is missing or they are not all strings and nulls."""
    if _as_array(records) is not None:
        return records, None  # uint8 cells: the list route reads them
    try:
        import pyarrow as pa
    except ImportError:
        return records, None
    # Read once: a generator's records are used up by the reading, so the list is what goes on
    # to the list route when pyarrow refuses them.
    try:
        listed = _as_list(records, what)
    except (TypeError, ValueError, pa.ArrowException):
        return records, None  # the list route says what is wrong
    try:
        return pa.array(listed, type=pa.large_string()), "pyarrow"
    except (TypeError, ValueError, pa.ArrowException):
        return listed, None


def _list_out(kind: Optional[str], values: list, like: Any) -> Any:
    """Answers of the list route in the kind of ``like`` (a list for anything not Arrow or pandas)."""
    if _is_pandas(like):
        import pandas as pd

        # Missing answers stay None (an object Series), except for a NaN-marked `str` column
        # (pandas 3's default without pyarrow), whose answers take pandas' default dtypes.
        missing = not values or any(v is None for v in values)
        keep_none = missing and not _missing_is_nan(getattr(like, "dtype", None))
        return pd.Series(values, index=like.index, dtype=object if keep_none else None)
    if kind == "polars":
        import polars as pl

        return pl.Series(values)
    if kind == "datasets":
        return values
    if kind is not None:
        import pyarrow as pa

        # The kind the Arrow route gives: chunked for a column given as a stream (a ChunkedArray).
        array = pa.array(values)
        stream = hasattr(like, "__arrow_c_stream__") and not hasattr(like, "__arrow_c_array__")
        return pa.chunked_array([array]) if stream else array
    return values


def _as_list(records: Any, what: str) -> list:
    """Records given as strings, as a list (a list is used as is, without a copy)."""
    if isinstance(records, list):
        return records
    if isinstance(records, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"{what}: expected a sequence of puzzle strings, got one {type(records).__name__}")
    if isinstance(records, (dict, set, frozenset)) or _is_table(records):
        # A mapping or a DataFrame iterates over its keys or column names, not over puzzles.
        raise TypeError(
            f"{what}: expected a sequence of puzzle strings (a list, a Series, a column such as "
            f"df['question']), got a {type(records).__name__}"
        )
    if isinstance(records, np.generic):
        raise TypeError(f"{what}: expected a sequence of puzzle strings, got a scalar {records!r}")
    if isinstance(records, np.ndarray):
        if records.ndim != 1:
            raise ValueError(f"{what}: expected a 1-D array of strings, got shape {records.shape}")
        return records.tolist()
    kind = _arrow_kind(records, what)
    if kind == "polars":
        return records.to_list()
    if kind == "datasets":
        return _dataset_column(records).to_pylist()
    if kind in ("pyarrow", "arrow"):
        import pyarrow as pa

        column = records if hasattr(records, "to_pylist") else pa.chunked_array(records)
        return column.to_pylist()
    tolist = getattr(records, "tolist", None)  # pandas Series, Index
    if callable(tolist):
        return tolist()
    try:
        return list(records)
    except TypeError:
        raise TypeError(
            f"{what}: expected a sequence of puzzle strings or a uint8 array of shape (N, 81), "
            f"got {type(records).__name__}"
        ) from None


# The name of each task's answer, as a pandas or polars Series gives it: the column the CLI adds
# to a table (the first, for rate), else what the answer is.
_ANSWER_NAMES = {"solve": "solution", "count": "count", "check": "check", "canon": "canonical", "rate": "rating"}


def _named(answers: Any, name: str) -> Any:
    """``answers`` with the name ``name`` if it is a pandas or polars Series (one this module
    made), so that both name an answer alike, whichever route made it."""
    if _is_pandas(answers):
        answers.name = name
    elif type(answers).__module__.startswith("polars"):
        answers = answers.alias(name)
    return answers


def _answer(task: str, puzzles: Any, solutions: Any, with_status: bool, **options: Any) -> Any:
    """Any task but dedupe over records given as strings or Arrow (arrays of shape (N, 81) are
    read as text rows); answers in the kind of ``puzzles``."""
    native = _native.Options(task, with_status=bool(with_status), **options)
    kind = _arrow_kind(puzzles, "puzzles")
    solution_kind = None if solutions is None else _arrow_kind(solutions, "solutions")
    if kind is not None and solutions is not None and solution_kind is None:
        solutions, solution_kind = _partner_as_arrow(solutions, "solutions")
    if kind is not None and (solutions is None or solution_kind is not None):
        outputs = _native.run_arrow(
            _arrow_in(puzzles, kind),
            None if solutions is None else _arrow_in(solutions, solution_kind),
            native,
        )
        outputs = [_arrow_out(kind, o, puzzles) for o in outputs]
        answers = _named(outputs[0], _ANSWER_NAMES[task])
        return (answers, _named(outputs[1], "status")) if with_status else answers
    records = _records(puzzles, "puzzles")
    others = None if solutions is None else _records(solutions, "solutions")
    answers, statuses = _native.run_list(records, others, native)
    if task == "check":
        answers = [v is True for v in answers]
    answers = _named(_list_out(kind, answers, puzzles), _ANSWER_NAMES[task])
    if with_status:
        statuses = _null_statuses(puzzles, records, statuses)
        return answers, _named(_list_out(kind, statuses, puzzles), "status")
    return answers


def _null_statuses(puzzles: Any, records: list, statuses: List[str]) -> List[str]:
    """For a pandas Series, a missing value (None, NaN, ``pd.NA``) is a null puzzle, as in an
    Arrow column or a Parquet file: its status says so rather than that it is not a string."""
    if not _is_pandas(puzzles):
        return statuses
    import pandas as pd

    return [
        "invalid: the puzzle is null" if pd.api.types.is_scalar(r) and pd.isna(r) else s
        for r, s in zip(records, statuses)
    ]


def solve(
    puzzles: Puzzles,
    *,
    threads: Optional[int] = None,
    lexmin: bool = False,
    with_status: bool = False,
) -> Any:
    """Solve every puzzle.

    ``puzzles``: a sequence of 81-character ``str`` (or ``bytes``, or ``int`` digits, read
    left-padded with zeros), ``.`` or ``0`` for blanks (a list, a tuple, a pandas Series, a 1-D
    object array); an Arrow column of strings (a pyarrow ``Array``/``ChunkedArray``, a polars
    ``Series``, an Arrow-backed pandas ``Series``, any object with ``__arrow_c_array__`` or
    ``__arrow_c_stream__``), read in place; or a ``uint8`` array of shape ``(N, 81)`` of cell
    values (0 blank) or ASCII text (``'0'``/``'.'`` blank).

    Returns, for strings, a ``list`` with one 81-digit ``str`` per puzzle, ``None`` where the
    puzzle has no solution or is malformed (for an Arrow column, an Arrow ``string`` array in
    the input's kind, null where none; for a pandas Series, a Series with its index); for an
    array, a new ``uint8`` array of shape ``(N, 81)`` in the input's encoding, a row of blanks
    where there is no solution. With ``lexmin=True`` each solution is the lexicographically
    smallest (row-major). With ``with_status=True``, returns ``(answers, statuses)``, where each
    status is ``"solved"``, ``"unsolvable"`` or ``"invalid: <reason>"``.

    Raises ``TypeError`` for puzzles of the wrong type (a numeric column: read it with
    ``dtype=str``), ``ValueError`` for an array of the wrong shape or mixing cell values with
    ASCII; never for a bad record.
    """
    n = _threads(threads)
    array = _as_array(puzzles)
    if array is None:
        return _answer("solve", puzzles, None, with_status, threads=n, lexmin=bool(lexmin))
    answers, statuses = _native.solve_array(
        array, _native.Options("solve", threads=n, lexmin=bool(lexmin), with_status=bool(with_status))
    )
    return (answers, statuses) if with_status else answers


def count(
    puzzles: Puzzles,
    *,
    limit: int = 2,
    threads: Optional[int] = None,
    with_status: bool = False,
) -> Any:
    """Count the solutions of every puzzle, stopping at ``limit`` (2: the uniqueness check).

    ``puzzles`` as for :func:`solve`. Returns, for strings, a ``list`` of ``int`` (``0`` no
    solution, ``1`` unique, ``limit`` means "``limit`` or more"), ``None`` where the puzzle is
    malformed (Arrow in: an ``int64`` Arrow array, null where malformed); for a ``uint8`` array
    of shape ``(N, 81)``, an ``int32`` array of shape ``(N,)``, -1 where malformed. With
    ``with_status=True``, returns ``(counts, statuses)``: ``"ok"``, ``"unsolvable"`` or
    ``"invalid: <reason>"``.
    """
    limit = _int(limit, "limit", 1, 2**31 - 1)
    n = _threads(threads)
    array = _as_array(puzzles)
    if array is None:
        return _answer("count", puzzles, None, with_status, threads=n, limit=limit)
    counts, statuses = _native.count_array(
        array, _native.Options("count", threads=n, limit=limit, with_status=bool(with_status))
    )
    return (counts, statuses) if with_status else counts


def _array_rows_as_text(array: np.ndarray) -> List[Union[str, bytes]]:
    if _native.cell_encoding(array) == "ascii":
        return [row.tobytes() for row in array]
    # Digits as text; a value above 9 becomes '?' so that the record is reported as malformed.
    text = np.where(array <= 9, array + ord("0"), ord("?")).astype(np.uint8)
    return [row.tobytes().decode("ascii") for row in text]


def check(
    puzzles: Puzzles,
    solutions: Puzzles,
    *,
    unique: bool = False,
    threads: Optional[int] = None,
    with_status: bool = False,
) -> Any:
    """Verify a solution for every puzzle: complete, valid, keeping every given and (with
    ``unique=True``) the puzzle's only solution.

    ``puzzles`` and ``solutions`` have the same length: sequences of strings, Arrow columns or
    ``uint8`` arrays of shape ``(N, 81)``. Returns a ``list`` of ``bool`` (``False`` also for a
    malformed puzzle); Arrow in (both columns), a ``bool`` Arrow array. With ``with_status=True``, returns ``(verdicts, statuses)``: ``"ok"``,
    ``"wrong: <reason>"`` or ``"invalid: <reason>"``.
    """
    if _is_pandas(puzzles) and _is_pandas(solutions) and not puzzles.index.equals(solutions.index):
        # Records are paired by position; pandas users expect pairs by label.
        raise ValueError(
            "puzzles and solutions are pandas objects with different indexes: align them first, "
            "for example solutions.reindex(puzzles.index)"
        )
    return _answer("check", puzzles, solutions, with_status, threads=_threads(threads), unique=bool(unique))


def _records(puzzles: Puzzles, what: str) -> list:
    array = _as_array(puzzles)
    return _array_rows_as_text(array) if array is not None else _as_list(puzzles, what)


def canon(
    puzzles: Puzzles,
    *,
    threads: Optional[int] = None,
    with_status: bool = False,
) -> Any:
    """The canonical (minlex) form of every puzzle: the same 81-digit ``str`` (``0`` blanks) for
    every puzzle of one equivalence class (the 3,359,232 grid symmetries times the 9! digit
    relabellings), different across classes: the lexicographically smallest string of the class.

    Returns a ``list`` of ``str``, ``None`` where the puzzle is malformed or its givens clash
    (Arrow in: a ``string`` Arrow array).
    With ``with_status=True``, returns ``(forms, statuses)``.
    """
    return _answer("canon", puzzles, None, with_status, threads=_threads(threads))


def rate(
    puzzles: Puzzles,
    *,
    samples: int = 16,
    seed: int = 0,
    threads: Optional[int] = None,
    with_status: bool = False,
) -> Any:
    """A difficulty figure for every puzzle: the mean number of guesses of the engine's search
    over ``samples`` random isomorphs of the puzzle, seeded by the puzzle's class and ``seed`` (so
    the same on any machine, at any thread count, and for every isomorph of the puzzle). ``0.0``
    means no guess was needed.

    Returns a ``list`` of ``float``, ``None`` where the puzzle has no solution or is malformed
    (Arrow in: a ``float64`` Arrow array).
    With ``with_status=True``, returns ``(ratings, statuses)``.
    """
    samples = _int(samples, "samples", 1, 4096)
    seed = _int(seed, "seed", 0, 2**64 - 1)
    return _answer("rate", puzzles, None, with_status, threads=_threads(threads), samples=samples, seed=seed)


def grade(
    puzzles: Puzzles,
    *,
    threads: Optional[int] = None,
    with_status: bool = False,
    nested: bool = False,
) -> Any:
    """A human-style grade for every puzzle: a logical solver applies a fixed ladder of
    techniques, always the easiest that makes progress (docs/grading.md).

    Returns a ``dict`` of columns, each in the kind of ``puzzles`` (a ``list``; Arrow in, Arrow
    arrays): ``grade`` (the band: ``easy`` to ``extreme``, or ``trial``), ``se_estimate`` (a
    ``float`` on the Sudoku Explainer scale), ``hardest`` (the hardest technique used;
    ``"none"`` for a full grid), ``steps`` (an ``int``), ``se_pearl`` and ``se_diamond``
    (``float``: Sudoku Explainer's EP and ED, the highest score up to the first placement and
    the first step's score); ``None`` where the puzzle has no solution or is malformed. With
    ``with_status=True``, the dict also has ``status``. With ``nested=True``, where trial of
    depth 1 finds nothing, each candidate is assumed and followed with chains, then forcing
    chains, then trial of depth 1 inside the assumption, which ranks the hardest puzzles among
    themselves (up to a second or two for each one that needs it).
    """
    native = _native.Options(
        "grade", with_status=bool(with_status), with_columns=True, threads=_threads(threads), nested=bool(nested)
    )
    names = [name for name, _ in _native.result_columns("grade")]
    kind = _arrow_kind(puzzles, "puzzles")
    if kind is not None:
        outputs = [_arrow_out(kind, o, puzzles) for o in _native.run_arrow(_arrow_in(puzzles, kind), None, native)]
        columns = {name: _named(o, name) for name, o in zip(names, outputs)}
        if with_status:
            columns["status"] = _named(outputs[-1], "status")
        return columns
    records = _records(puzzles, "puzzles")
    answers, statuses = _native.run_list(records, None, native)
    columns = {
        name: _named(_list_out(kind, [None if a is None else a[i] for a in answers], puzzles), name)
        for i, name in enumerate(names)
    }
    if with_status:
        statuses = _null_statuses(puzzles, records, statuses)
        columns["status"] = _named(_list_out(kind, statuses, puzzles), "status")
    return columns


def dedupe(
    puzzles: Puzzles,
    *,
    exact: bool = False,
    against: Optional[Puzzles] = None,
    threads: Optional[int] = None,
) -> Any:
    """Which records to keep: ``True`` for the first record of each equivalence class (with
    ``exact=True``, of each distinct puzzle; ``.`` and ``0`` are both blank), ``False`` for later
    ones and for any record equivalent to a record of ``against`` (for example a test split).
    A malformed record is kept (``True``): it belongs to no class. Arrow in (and ``against``
    Arrow or absent), a ``bool`` Arrow array; a pandas Series in, a boolean Series (a mask).

    >>> df = df[sudoku_batch.dedupe(df["question"])]   # doctest: +SKIP
    """
    options = _native.Options("dedupe", threads=_threads(threads), exact=bool(exact))
    kind = _arrow_kind(puzzles, "puzzles")
    against_kind = None if against is None else _arrow_kind(against, "against")
    if kind is not None and against is not None and against_kind is None:
        against, against_kind = _partner_as_arrow(against, "against")
    if kind is not None and (against is None or against_kind is not None):
        other = None if against is None else _arrow_in(against, against_kind)
        return _named(_arrow_out(kind, _native.dedupe_arrow(_arrow_in(puzzles, kind), other, options), puzzles), "keep")
    records = _records(puzzles, "puzzles")
    other = None if against is None else _records(against, "against")
    return _named(_list_out(kind, _native.dedupe_list(records, other, options), puzzles), "keep")


# The options of solve_file that each task takes (as the CLI's flags of each command).
_FILE_OPTIONS = {
    "solve": {"lexmin", "solution_column", "keep_solution_column", "shard"},
    "count": {"limit", "shard"},
    "check": {"unique", "solution_column", "shard"},
    "canon": {"shard"},
    "rate": {"samples", "seed", "shard"},
    "grade": {"nested", "shard"},
    "dedupe": {"exact", "against", "against_column"},
}


def solve_file(
    input: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"],
    output: Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"],
    *,
    task: str = "solve",
    format: str = "auto",
    output_format: str = "auto",
    column: Optional[str] = None,
    lexmin: bool = False,
    limit: int = 2,
    unique: bool = False,
    threads: Optional[int] = None,
    max_messages: int = 20,
    shard: Optional[Tuple[int, int]] = None,
    solution_column: Optional[str] = None,
    samples: int = 16,
    seed: int = 0,
    exact: bool = False,
    against: Optional[Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]] = None,
    keep_solution_column: bool = False,
    against_column: Optional[str] = None,
    nested: bool = False,
) -> Dict[str, Any]:
    """Run the batch engine on a file, exactly as ``sudoku-batch TASK`` does.

    ``input`` (a path: ``str``, ``bytes`` or path-like, as ``output`` and ``against``) is a
    file in the line, grid or CSV format (``format="auto"`` detects it), or a
    Parquet or Arrow IPC (Feather) file, known by its first bytes; ``output`` is written
    atomically (a temporary file renamed into place when the run is complete), with one answer
    per record in input order (CSV, Parquet, Arrow: every input column kept, result columns and
    ``status`` appended, or the solution column filled). A text input is answered in its own
    format; a Parquet or Arrow input in the format ``output``'s name says (``.parquet``,
    ``.arrow``/``.feather``, ``.csv``, else lines) unless ``output_format`` (``"line"``,
    ``"csv"``, ``"parquet"``, ``"arrow"``) names one. A binary input of another kind (gzip,
    ZIP, ...) is a ``ValueError``; for Parquet and Arrow, ``messages`` give row numbers. ``task`` is ``"solve"``, ``"count"`` (with ``limit``), ``"check"``
    (with ``unique``), ``"canon"``, ``"rate"`` (with ``samples`` and ``seed``), ``"grade"`` (with
    ``nested``, as :func:`grade`) or
    ``"dedupe"`` (with ``exact`` and ``against``, another file, whose puzzle column
    ``against_column`` names when no usual name says which it is); ``column`` names a CSV
    puzzle column and ``solution_column`` its solution column, which ``"solve"`` fills in place
    unless ``keep_solution_column=True`` (then the answers go to a new ``solution`` column).
    ``shard=(k, n)`` answers only part ``k`` of ``n`` (1-based), as the CLI's ``--shard k/n``
    does.

    Returns the run summary as a ``dict``: ``records``, ``solved`` (for dedupe, ``kept``),
    ``unsolvable``,
    ``invalid``, ``wrong``, ``unique``, ``multiple``, ``duplicates``, ``against_unread`` (dedupe
    with ``against``: malformed records of that file, else ``None``), ``against_first`` (the
    first of them as ``"file:line: problem"``, else ``None``), ``against_note`` (as ``note``,
    for that file), ``filled_column`` (the
    input's solution column that ``"solve"`` filled in place, else ``None``), ``seconds``, ``puzzles_per_second``,
    ``format``, ``threads``, ``note`` (what the CLI says on stderr before the run: why the
    format or puzzle column was chosen when that was not plain, or that a line input goes to a
    ``.csv`` name in its own format; else ``None``), ``messages``
    (``(line, text)`` for the first ``max_messages`` bad records) and ``messages_not_shown``.

    Raises ``FileNotFoundError``/``PermissionError``/``OSError`` for I/O problems and
    ``ValueError`` for an input that does not suit the task (for example no puzzle column) or an
    option the task does not take (``limit`` for ``"solve"``), as the CLI refuses its flag.
    """
    limit = _int(limit, "limit", 1, 2**32 - 1)
    samples = _int(samples, "samples", 1, 4096)
    seed = _int(seed, "seed", 0, 2**64 - 1)
    max_messages = _int(max_messages, "max_messages", 0, 2**63 - 1)
    # As the CLI refuses a flag its command does not take: an option given to a task that does
    # not use it is an error, not silently ignored.
    given = {
        "lexmin": bool(lexmin),
        "limit": limit != 2,
        "unique": bool(unique),
        "samples": samples != 16,
        "seed": seed != 0,
        "exact": bool(exact),
        "against": against is not None,
        "against_column": against_column is not None,
        "keep_solution_column": bool(keep_solution_column),
        "solution_column": solution_column is not None,
        "nested": bool(nested),
        "shard": shard is not None,
    }
    takes = _FILE_OPTIONS.get(task)
    if takes is not None:
        for name, on in given.items():
            if on and name not in takes:
                users = [t for t, names in _FILE_OPTIONS.items() if name in names]
                which = "every task but 'dedupe'" if name == "shard" else "task " + " or ".join(map(repr, users))
                raise ValueError(f"{name}= does not apply to task={task!r} (it is for {which})")
    if against_column is not None and against is None:
        raise ValueError("against_column= names a column of against=, which is not given")
    if shard is not None:
        if not isinstance(shard, tuple) or len(shard) != 2:
            raise ValueError(f"shard must be a tuple (k, n) with 1 <= k <= n, not {shard!r}")
        n = _int(shard[1], "shard's n", 1, 2**63 - 1)
        shard = (_int(shard[0], "shard's k", 1, n), n)
    options = _native.Options(
        task,
        threads=_threads(threads),
        lexmin=bool(lexmin),
        limit=limit,
        unique=bool(unique),
        samples=samples,
        seed=seed,
        exact=bool(exact),
        nested=bool(nested),
        format=format,
        output_format=output_format,
        column=column,
        solution_column=solution_column,
        keep_solution_column=bool(keep_solution_column),
        max_messages=max_messages,
        shard=shard,
        against=None if against is None else os.fsdecode(against),
        against_column=against_column,
    )
    return _native.run_file(os.fsdecode(input), os.fsdecode(output), options)
