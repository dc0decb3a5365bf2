"""Columnar inputs: Arrow arrays of every string layout (pyarrow, polars, Arrow-backed pandas,
datasets), numbers from pandas.read_csv, ASCII uint8 arrays, and the wrong types refused with an
error. Answers are compared with the list route and solutions checked independently."""

import numpy as np
import pytest

import sudoku_batch as sb
from conftest import PUZZLE, SOLUTION, puzzles_of, solves

UNSOLVABLE = "12345678.........9" + "." * 63


def need(module):
    return pytest.importorskip(module, reason=f"{module} is not installed (pip install {module})")


def records():
    """Puzzles with every kind of bad row: a null, a short row, a clash, an unsolvable one."""
    good = puzzles_of("sample.txt") + puzzles_of("generated_minimal_2000.txt")[:200]
    return good[:3] + [None, "bad", "55" + PUZZLE[2:], UNSOLVABLE] + good[3:]


def list_route(task, values, **kw):
    """The list route's answers and statuses; a null's status is the Arrow route's own."""
    answers, statuses = getattr(sb, task)(values, with_status=True, **kw)
    statuses = ["invalid: the puzzle is null" if v is None else s for v, s in zip(values, statuses)]
    return answers, statuses


STRING_TYPES = ["string", "large_string", "string_view", "binary", "large_binary", "dictionary"]


def arrow_of(pa, values, type_name, chunks=None):
    def one(vals):
        if type_name == "dictionary":
            return pa.array(vals, type=pa.string()).dictionary_encode()
        if "binary" in type_name:
            vals = [None if v is None else v.encode() for v in vals]
        return pa.array(vals, type=getattr(pa, type_name)())

    if chunks is None:
        return one(values)
    bounds = [0, *chunks, len(values)]
    return pa.chunked_array([one(values[a:b]) for a, b in zip(bounds, bounds[1:])])


@pytest.mark.parametrize("type_name", STRING_TYPES)
def test_pyarrow_arrays_of_every_string_type_match_the_list_route(type_name):
    pa = need("pyarrow")
    values = records()
    expected, expected_status = list_route("solve", values)
    array = arrow_of(pa, values, type_name)
    answers, statuses = sb.solve(array, with_status=True)
    assert isinstance(answers, pa.Array) and answers.type == pa.string()
    assert answers.to_pylist() == expected
    assert statuses.to_pylist() == expected_status
    assert statuses[3].as_py() == "invalid: the puzzle is null"
    assert all(solves(s, p) for p, s in zip(values, answers.to_pylist()) if s is not None)
    assert sum(s is not None for s in expected) == len(values) - 4

    chunked = arrow_of(pa, values, type_name, chunks=[2, 2, 50])  # an empty chunk, too
    answers, statuses = sb.solve(chunked, with_status=True)
    assert isinstance(answers, pa.ChunkedArray)
    assert [len(c) for c in answers.chunks] == [len(c) for c in chunked.chunks]
    assert answers.to_pylist() == expected and statuses.to_pylist() == expected_status


def test_every_task_over_arrow_matches_the_list_route():
    pa = need("pyarrow")
    values = records()
    chunked = pa.chunked_array([values[:100], values[100:]])
    for task, kw, arrow_type in [
        ("count", {"limit": 3}, pa.int64()),
        ("canon", {}, pa.string()),
        ("rate", {"samples": 4}, pa.float64()),
    ]:
        expected, expected_status = list_route(task, values, **kw)
        answers, statuses = getattr(sb, task)(chunked, with_status=True, **kw)
        assert answers.type == arrow_type, task
        assert answers.to_pylist() == expected, task
        assert statuses.to_pylist() == expected_status, task
    # check: solutions chunked differently from the puzzles, a wrong one and a null one.
    puzzles = [p for p in values if p is not None]
    solutions = sb.solve(puzzles)
    solutions[0] = SOLUTION
    solutions[1] = None
    expected, expected_status = sb.check(puzzles, solutions, with_status=True)
    verdicts, statuses = sb.check(
        pa.chunked_array([puzzles[:7], puzzles[7:]]),
        pa.chunked_array([solutions[:1], solutions[1:150], solutions[150:]]),
        with_status=True,
    )
    assert verdicts.type == pa.bool_() and verdicts.null_count == 0
    assert verdicts.to_pylist() == expected and statuses.to_pylist() == expected_status
    assert expected.count(True) == len(puzzles) - 5  # all but the wrong, the null, bad, clash, unsolvable
    assert statuses.to_pylist()[1] == "invalid: the solution is null"
    with pytest.raises(ValueError, match="one solution per puzzle"):
        sb.check(pa.array(puzzles), pa.array(solutions[:-1]))


def test_dedupe_over_arrow_matches_the_list_route():
    pa = need("pyarrow")
    puzzles = puzzles_of("generated_unique25_2000.txt")[:200]
    test_split = puzzles[:20]
    train = puzzles[10:] + puzzles[50:60] + [None, "bad"]
    expected = sb.dedupe(train, against=test_split)
    mask = sb.dedupe(pa.chunked_array([train[:30], train[30:]]), against=pa.array(test_split))
    assert mask.to_pylist() == expected
    assert expected.count(False) == 10 + 10  # the leaks, then the repeats
    assert sb.dedupe(pa.array(train), exact=True).to_pylist() == sb.dedupe(train, exact=True)


def test_polars_series_in_polars_series_out():
    pl = need("polars")
    values = records()
    expected, expected_status = list_route("solve", values)
    series = pl.Series("question", values)
    answers, statuses = sb.solve(series, with_status=True)
    assert isinstance(answers, pl.Series) and answers.dtype == pl.String
    assert answers.to_list() == expected and statuses.to_list() == expected_status
    counts = sb.count(series)
    assert isinstance(counts, pl.Series) and counts.to_list() == sb.count(values)
    assert sb.dedupe(series).to_list() == sb.dedupe(values)
    with pytest.raises(TypeError, match="dtype=str"):
        sb.solve(pl.Series([1, 2]))
    # A column of nulls only (polars' Null dtype) is null records; an expression is no column.
    answers, statuses = sb.solve(pl.DataFrame({"q": [None, None]})["q"], with_status=True)
    assert answers.to_list() == [None, None] and statuses.to_list() == ["invalid: the puzzle is null"] * 2
    with pytest.raises(TypeError, match="expression is not a column"):
        sb.solve(pl.col("q"))
    # An Object column's Arrow export holds addresses, not text: refused, never read as cells.
    with pytest.raises(TypeError, match="dtype Object"):
        sb.solve(pl.Series(values[:3], dtype=pl.Object))


def test_arrow_backed_pandas_series_keep_their_index():
    pd = need("pandas")
    pa = need("pyarrow")
    values = records()
    expected, _ = list_route("solve", values)
    index = pd.RangeIndex(1000, 1000 + 2 * len(values), 2)
    for dtype in ["string[pyarrow]", pd.ArrowDtype(pa.string()), pd.ArrowDtype(pa.large_string())]:
        series = pd.Series(values, dtype=dtype, index=index)
        answers = sb.solve(series)
        assert isinstance(answers, pd.Series) and (answers.index == index).all()
        assert [None if pd.isna(a) else a for a in answers] == expected
    df = pd.DataFrame({"question": pd.Series(values + values[:5], dtype="string[pyarrow]")})
    df["answer"] = sb.solve(df["question"])
    mask = sb.dedupe(df["question"])
    expected_mask = sb.dedupe(values + values[:5])
    assert mask.tolist() == expected_mask and expected_mask.count(False) >= 3
    assert len(df[mask]) == sum(expected_mask)
    # An object Series goes by the list route and gives a Series with the same index too.
    obj = sb.solve(pd.Series(values, dtype=object, index=index))
    assert (obj.index == index).all() and obj.tolist() == expected


def test_default_pandas_str_columns_get_default_pandas_dtypes():
    pd = need("pandas")
    need("pyarrow")
    values = records()
    index = pd.RangeIndex(7, 7 + len(values))
    expected, statuses = list_route("solve", values)
    # pandas 3's default for strings (`pd.Series(values)` makes it there): stored by Arrow when
    # pyarrow is installed, else by Python; either way its answers are the same.
    def nan_str(dtype):  # a `str` dtype, however stored
        return isinstance(dtype, pd.StringDtype) and dtype.na_value is not pd.NA

    for storage in ["pyarrow", "python"]:
        try:
            dtype = pd.StringDtype(storage, na_value=np.nan)
        except TypeError:
            pytest.skip("pandas before 2.3 has no NaN-marked string dtype")
        series = pd.Series(values, dtype=dtype, index=index)
        answers, status = sb.solve(series, with_status=True)
        assert nan_str(answers.dtype), storage
        assert (answers.index == index).all()
        assert [None if pd.isna(a) else a for a in answers] == expected
        assert nan_str(status.dtype) and status.tolist() == statuses
        counts = sb.count(series)
        assert counts.dtype == np.float64 and counts.isna().any()
        assert [None if pd.isna(c) else int(c) for c in counts] == sb.count(values)
        assert sb.count(series[~counts.isna()]).dtype == np.int64
        grades = sb.grade(series)
        assert nan_str(grades["grade"].dtype) and grades["se_estimate"].dtype == np.float64
        assert sb.dedupe(series).dtype == bool
    # An Arrow-typed column keeps Arrow-typed answers.
    assert isinstance(sb.count(series.astype("string[pyarrow]")).dtype, pd.ArrowDtype)


def test_a_datasets_column_and_a_batched_map():
    datasets = need("datasets")
    pa = need("pyarrow")
    puzzles = puzzles_of("sample.txt") + ["bad"]
    ds = datasets.Dataset.from_dict({"question": puzzles, "source": ["s"] * len(puzzles)})
    column = ds.with_format("arrow")["question"]
    assert sb.solve(column).to_pylist() == sb.solve(puzzles)

    def add_answers(batch):  # a pyarrow Table: no Python object per puzzle
        answers, statuses = sb.solve(batch["question"], with_status=True)
        return batch.append_column("answer", answers).append_column("status", statuses)

    solved = ds.with_format("arrow").map(add_answers, batched=True, batch_size=3).with_format(None)
    assert solved.column_names == ["question", "source", "answer", "status"]
    assert list(solved["answer"]) == sb.solve(puzzles)
    assert all(solves(s, p) for p, s in zip(puzzles[:-1], solved["answer"]))
    assert list(solved["status"])[-1] == "invalid: expected 81 cells, found 3"
    # The default format's column is a sequence of str: read through the Arrow table behind it
    # (in the dataset's row order, after a select too), answered as a list.
    assert sb.solve(ds["question"]) == sb.solve(puzzles)
    picked = ds.select([4, 0, len(puzzles) - 1])
    answers, statuses = sb.solve(picked["question"], with_status=True)
    assert answers == sb.solve([puzzles[4], puzzles[0], "bad"]) and statuses[-1].startswith("invalid: ")
    with_null = datasets.Dataset.from_dict({"question": [puzzles[0], None]})["question"]
    assert sb.solve(with_null, with_status=True)[1] == ["solved", "invalid: the puzzle is null"]
    # A transform's values are what the column holds, not the table's.
    hidden = datasets.Dataset.from_dict({"question": [p.replace(".", "x") for p in puzzles[:3]]})
    shown = hidden.with_transform(lambda b: {"question": [q.replace("x", ".") for q in b["question"]]})
    assert sb.solve(shown["question"]) == sb.solve(puzzles[:3])
    assert sb.grade(shown["question"]) == sb.grade(puzzles[:3])


def test_numbers_from_pandas_read_csv_are_read_exactly(tmp_path):
    pd = need("pandas")
    puzzles = [p.replace(".", "0") for p in puzzles_of("generated_minimal_2000.txt")[:40]]
    puzzles = [p for p in puzzles if p[0] == "0"][:10] + [p for p in puzzles if p[0] != "0"][:10]
    solutions = sb.solve(puzzles)
    path = tmp_path / "train.csv"
    path.write_text("question,answer\n" + "".join(f"{p},{s}\n" for p, s in zip(puzzles, solutions)))
    df = pd.read_csv(path)  # no dtype: every cell becomes a Python int, leading zeros dropped
    assert isinstance(df["question"][0], int) and len(str(df["question"][0])) < 81
    assert sb.check(df["question"], df["answer"]).tolist() == [True] * len(puzzles)
    assert sb.solve(df["question"]).tolist() == solutions
    answers, statuses = sb.solve([-int(puzzles[-1]), int("9" * 82)], with_status=True)
    assert answers == [None, None]
    assert statuses == [
        "invalid: a negative number is not a puzzle",
        "invalid: a number of more than 81 digits is not a puzzle",
    ]
    # Few givens fit in int64: pandas makes an int64 column, which cannot hold puzzles.
    short = tmp_path / "short.csv"
    short.write_text("question\n" + "0" * 80 + "1\n" + "0" * 79 + "12\n")
    with pytest.raises(TypeError, match="dtype=str"):
        sb.solve(pd.read_csv(short)["question"])
    assert sb.count(pd.read_csv(short, dtype=str)["question"]).tolist() == [2, 2]


def test_ascii_uint8_arrays_answer_in_ascii():
    puzzles = [p.replace(".", "0") for p in puzzles_of("sample.txt")] + [UNSOLVABLE.replace(".", "0")]
    text = np.frombuffer("".join(puzzles).encode(), np.uint8).reshape(-1, 81)
    solved, statuses = sb.solve(text, with_status=True)
    rows = [row.tobytes().decode() for row in solved]
    assert rows[:-1] == sb.solve(puzzles)[:-1] and all(solves(s, p) for p, s in zip(puzzles, rows[:-1]))
    assert rows[-1] == "0" * 81 and statuses[-1] == "unsolvable"
    assert list(sb.count(text)) == sb.count(puzzles)
    assert sb.canon(text) == sb.canon(puzzles)
    answers = np.frombuffer("".join(rows[:-1]).encode(), np.uint8).reshape(-1, 81)
    assert sb.check(text[:-1], answers) == [True] * (len(puzzles) - 1)
    dots = np.frombuffer(PUZZLE.encode(), np.uint8).reshape(1, 81)  # '.' blanks
    assert sb.solve(dots).tobytes().decode() == SOLUTION
    mixed = np.vstack([text[:1], text[:1] - ord("0")])  # one ASCII row, one row of values
    for task in (sb.solve, sb.count, sb.canon):
        with pytest.raises(ValueError, match="mixes cell values 0-9 with ASCII"):
            task(mixed)


def test_wrong_types_raise_instead_of_answering_all_invalid():
    pa = need("pyarrow")
    pd = need("pandas")
    with pytest.raises(TypeError, match=r"Arrow type Int64.*dtype=str"):
        sb.solve(pa.array([1, 2]))
    with pytest.raises(TypeError, match=r"float64.*dtype=str"):
        sb.solve(pd.Series([1.5e80, float("nan")]))
    with pytest.raises(TypeError, match=r"int64.*dtype=str"):
        sb.count(np.arange(3))
    with pytest.raises(TypeError, match=r"no record is a puzzle string \(the first is a float\)"):
        sb.solve([1.5e80, float("nan")])
    with pytest.raises(TypeError, match="dtype=str"):
        sb.dedupe(pa.chunked_array([[1.5]]))
    # A column of nulls only is not a wrong type: every record is an invalid one.
    assert sb.solve(pa.nulls(2), with_status=True)[1].to_pylist() == ["invalid: the puzzle is null"] * 2
    assert sb.solve([None, None]) == [None, None]


def test_any_arrow_producer_and_mixed_kinds():
    pa = need("pyarrow")
    values = records()
    expected = sb.solve(values)

    class Stream:  # a producer that is neither pyarrow nor polars: only the protocol
        def __init__(self, chunked):
            self.chunked = chunked

        def __arrow_c_stream__(self, requested_schema=None):
            return self.chunked.__arrow_c_stream__(requested_schema)

    class Single:
        def __init__(self, array):
            self.array = array

        def __arrow_c_array__(self, requested_schema=None):
            return self.array.__arrow_c_array__(requested_schema)

    out = sb.solve(Stream(pa.chunked_array([values[:5], values[5:]])))
    assert isinstance(out, pa.ChunkedArray) and out.to_pylist() == expected
    out = sb.solve(Single(pa.array(values)))
    assert isinstance(out, pa.Array) and out.to_pylist() == expected
    # One column Arrow, the other not: the list route, answers in the kind of the puzzles.
    puzzles = [p for p in values if p is not None]
    solutions = sb.solve(puzzles)
    verdicts = sb.check(pa.array(puzzles), solutions)
    assert isinstance(verdicts, pa.Array) and verdicts.to_pylist() == sb.check(puzzles, solutions)
    assert sb.check(puzzles, pa.array(solutions)) == sb.check(puzzles, solutions)
    mask = sb.dedupe(pa.array(puzzles + puzzles[:3]), against=puzzles[:2])
    assert mask.to_pylist() == sb.dedupe(puzzles + puzzles[:3], against=puzzles[:2])
    # A generator beside an Arrow column is read once: when pyarrow refuses its values (a NaN
    # among them), the list route still gets every one of them.
    against = puzzles[:2] + [float("nan")]
    mask = sb.dedupe(pa.array(puzzles + puzzles[:3]), against=(a for a in against))
    assert mask.to_pylist() == sb.dedupe(puzzles + puzzles[:3], against=against)
    assert mask.to_pylist()[:2] == [False, False]  # the two in `against` are dropped
    verdicts = sb.check(pa.array(puzzles), (s for s in solutions))
    assert verdicts.to_pylist() == sb.check(puzzles, solutions)
    # Either route answers a ChunkedArray with a ChunkedArray, an Array with an Array.
    chunked = pa.chunked_array([puzzles[:4], puzzles[4:]])
    for partner in (solutions, solutions[:-1] + [float("nan")]):
        verdicts = sb.check(chunked, partner)
        assert isinstance(verdicts, pa.ChunkedArray), type(verdicts)
        assert verdicts.to_pylist()[:-1] == sb.check(puzzles, solutions)[:-1]
        assert isinstance(sb.check(pa.array(puzzles), partner), pa.Array)
    assert isinstance(sb.dedupe(chunked, against=against), pa.ChunkedArray)
    assert isinstance(sb.dedupe(chunked, against=puzzles[:2]), pa.ChunkedArray)


def test_the_arrow_route_makes_no_python_object_per_puzzle():
    import tracemalloc

    pa = need("pyarrow")
    puzzles = pa.chunked_array([puzzles_of("generated_easy_2000.txt") * 25] * 2)  # 100,000
    sb.solve(puzzles[:10])  # imports and the pool, before measuring
    tracemalloc.start()
    try:
        answers, statuses = sb.solve(puzzles, with_status=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert answers.null_count == 0 and len(statuses) == len(puzzles)
    # A str per puzzle or per answer would be over 10 MB of Python objects.
    assert peak < 1_000_000, f"{peak:,} bytes of Python objects for {len(puzzles):,} puzzles"


def test_puzzle_column_by_values_is_the_clis_rule():
    # What Spark's route calls on a table's first rows: the first text column holding a puzzle
    # with blanks, else a full grid; nulls, numbers and other text are no puzzles.
    from sudoku_batch import _native

    pa = need("pyarrow")
    solution = SOLUTION
    batch = pa.RecordBatch.from_arrays(
        [pa.array([1, 2]), pa.array([solution, solution]), pa.array(["x", "y"]), pa.array([None, PUZZLE])],
        names=["id", "full", "text", "p"],
    )
    assert _native.puzzle_column_by_values(batch) == 3
    assert _native.puzzle_column_by_values(batch.select([0, 1, 2])) == 1
    assert _native.puzzle_column_by_values(batch.select([0, 2])) is None
    assert _native.puzzle_column_by_values(batch.slice(0, 0)) is None


def test_pandas_answers_are_named_for_what_they_hold():
    pd = need("pandas")
    values = records()[:20]
    solution = sb.solve(values)[0]
    for dtype in [object, "string[pyarrow]"]:
        series = pd.Series(values, dtype=dtype)
        answers, statuses = sb.solve(series, with_status=True)
        assert (answers.name, statuses.name) == ("solution", "status")
        assert sb.count(series).name == "count"
        assert sb.canon(series).name == "canonical"
        assert sb.rate(series, samples=1).name == "rating"
        assert sb.dedupe(series).name == "keep"
        assert sb.check(series, pd.Series([solution] * len(values), dtype=dtype)).name == "check"
        columns = sb.grade(series, with_status=True)
        assert [c.name for c in columns.values()] == list(columns)
        # Named, a Series joins a frame as its own column.
        frame = pd.concat([series.rename("question"), answers], axis=1)
        assert list(frame.columns) == ["question", "solution"]


def test_polars_answers_are_named_as_pandas_answers_are():
    pl = need("polars")
    values = records()[:20]
    solution = sb.solve(values)[0]
    series = pl.Series("question", values)
    answers, statuses = sb.solve(series, with_status=True)
    assert (answers.name, statuses.name) == ("solution", "status")
    assert sb.count(series).name == "count"
    assert sb.canon(series).name == "canonical"
    assert sb.rate(series, samples=1).name == "rating"
    assert sb.dedupe(series).name == "keep"
    assert sb.check(series, pl.Series([solution] * len(values))).name == "check"
    # Solutions that are not all text take the list route: named the same.
    verdicts, statuses = sb.check(series, [solution] * (len(values) - 1) + [7], with_status=True)
    assert (verdicts.name, statuses.name) == ("check", "status")
    assert statuses[-1].startswith("invalid") or statuses[-1].startswith("wrong"), statuses[-1]
    columns = sb.grade(series)
    assert [c.name for c in columns.values()] == list(columns)
    # Named, the answers join a frame as their own columns.
    frame = pl.DataFrame([series, answers, sb.dedupe(series)])
    assert frame.columns == ["question", "solution", "keep"]


def _available_gib():
    try:
        with open("/proc/meminfo") as f:
            fields = dict(line.split(":", 1) for line in f)
        return int(fields["MemAvailable"].split()[0]) / 2**20
    except (OSError, KeyError, ValueError):
        return 0.0


@pytest.mark.skipif(_available_gib() < 8, reason="needs about 3 GiB of memory (checked: 8 available)")
def test_a_dictionary_column_that_decodes_past_2_gib_is_read():
    # 27 million rows of one 81-byte value: 2.2 GB decoded, past a `string` array's 32-bit
    # offsets (it was "decoding a dictionary array: Offset overflow error").
    pa = need("pyarrow")
    rows = 27_000_000
    column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(rows, np.int32)), pa.array([SOLUTION]))
    counts = sb.count(column, limit=1)
    assert len(counts) == rows and pa.compute.min_max(counts).as_py() == {"min": 1, "max": 1}


def test_a_list_beside_an_arrow_column_answers_in_the_column_kind():
    # check's solutions and dedupe's `against` given as lists: the answer is still the puzzles'
    # kind, chunked as they are, typed even when empty.
    pa = need("pyarrow")
    puzzles = pa.chunked_array([[PUZZLE], [PUZZLE, "bad"]])
    checked = sb.check(puzzles, [SOLUTION, SOLUTION[:-1] + "1", SOLUTION])
    assert isinstance(checked, pa.ChunkedArray) and checked.num_chunks == 2
    assert checked.to_pylist() == [True, False, False]
    kept = sb.dedupe(puzzles, against=[PUZZLE])
    assert isinstance(kept, pa.ChunkedArray) and kept.to_pylist() == [False, False, True]
    assert sb.check(pa.array([], pa.string()), []).type == pa.bool_()
    # Solutions a list cannot give as text (ints, read exactly as zero-padded digits) take
    # the list route, as before.
    assert sb.check(pa.array([PUZZLE]), [int(SOLUTION)]).to_pylist() == [True]
    pl = need("polars")
    answer = sb.check(pl.Series("question", [PUZZLE]), [SOLUTION])
    assert isinstance(answer, pl.Series) and answer.to_list() == [True] and answer.dtype == pl.Boolean
