"""The Python API: answers checked independently and against the CLI, bad records, both input
kinds, thread counts, count/check, solve_file, pandas, errors."""

import csv
import io
import os
import subprocess

import numpy as np
import pytest

import sudoku_batch as sb
from conftest import PUZZLE, SOLUTION, has_solution, puzzles_of, solves

UNSOLVABLE = "12345678.........9" + "." * 63  # cell 9 of row 1 needs a 9, column 9 has one


def as_array(puzzles):
    return np.array([[0 if c in ".0" else int(c) for c in p] for p in puzzles], dtype=np.uint8)


def test_solutions_are_valid_and_match_the_cli(cli, tmp_path):
    puzzles = puzzles_of("generated_minimal_2000.txt") + puzzles_of("sample.txt")
    answers = sb.solve(puzzles)
    assert len(answers) == len(puzzles)
    assert all(solves(s, p) for p, s in zip(puzzles, answers))
    path = tmp_path / "p.txt"
    path.write_text("\n".join(puzzles) + "\n")
    cli_out = subprocess.run([cli, "solve", "-q", str(path)], capture_output=True, text=True, check=True)
    assert cli_out.stdout.splitlines() == answers


def test_lexmin_and_counts_match_the_cli(cli, tmp_path):
    # Many-solution puzzles: blank out cells of a solved grid.
    puzzles = [SOLUTION[:k] + "." * 50 + SOLUTION[k + 50 :] for k in range(0, 31)]
    path = tmp_path / "multi.txt"
    path.write_text("\n".join(puzzles) + "\n")
    lexmin = subprocess.run([cli, "solve", "-q", "--lexmin", str(path)], capture_output=True, text=True)
    assert sb.solve(puzzles, lexmin=True) == lexmin.stdout.splitlines()
    counts = subprocess.run([cli, "count", "-q", "--limit", "7", str(path)], capture_output=True, text=True)
    expected = [int(c.rstrip("+")) for c in counts.stdout.splitlines()]
    assert sb.count(puzzles, limit=7) == expected
    assert all(c == 7 for c in expected)


def test_bad_records_get_none_and_a_status_and_never_stop_the_batch():
    clash = "55" + PUZZLE[2:]
    records = [PUZZLE, "bad", None, float("nan"), [PUZZLE], clash, UNSOLVABLE, PUZZLE.encode(), "", " " + PUZZLE + "\n", "\ud800" * 81]
    answers, statuses = sb.solve(records, with_status=True)
    assert answers == [SOLUTION, None, None, None, None, None, None, SOLUTION, None, SOLUTION, None]
    assert statuses[0] == "solved"
    assert statuses[1] == "invalid: expected 81 cells, found 3"
    assert statuses[2] == statuses[3] == statuses[4] == "invalid: not a puzzle string (str or bytes)"
    assert statuses[5].startswith("invalid: givens clash: digit 5 appears twice in row 1")
    assert statuses[6] == "unsolvable"
    assert not has_solution(UNSOLVABLE)
    assert statuses[10].startswith("invalid")


def test_a_record_may_start_with_a_byte_order_mark_as_a_line_of_a_file_may(tmp_path):
    # Read without utf-8-sig, the first line of a file saved with a mark starts with U+FEFF.
    path = tmp_path / "puzzles.txt"
    path.write_text(PUZZLE + "\n" + PUZZLE + "\n", encoding="utf-8-sig")
    records = path.read_text(encoding="utf-8").splitlines()
    assert records[0].startswith("\ufeff")
    assert sb.solve(records) == [SOLUTION, SOLUTION]
    assert sb.solve([r.encode() for r in records]) == [SOLUTION, SOLUTION]
    pa = pytest.importorskip("pyarrow")
    assert sb.solve(pa.array(records)).to_pylist() == [SOLUTION, SOLUTION]
    # Anywhere else a mark is a damaged record.
    answers, statuses = sb.solve([PUZZLE + "\ufeff"], with_status=True)
    assert answers == [None] and statuses[0].startswith("invalid"), statuses


def test_arrays_in_and_out():
    puzzles = puzzles_of("sample.txt")[:5] + [UNSOLVABLE]
    arr = as_array(puzzles)
    out, statuses = sb.solve(arr, with_status=True)
    assert out.dtype == np.uint8 and out.shape == (6, 81)
    for p, row in zip(puzzles[:5], out[:5]):
        assert solves("".join(map(str, row)), p)
    assert not out[5].any()
    assert statuses == ["solved"] * 5 + ["unsolvable"]
    bad = arr.copy()
    bad[0, 3] = 10
    out, statuses = sb.solve(bad, with_status=True)
    assert not out[0].any() and statuses[0].startswith("invalid: character 0x0a at position 4")
    # Strided (non-contiguous) input is accepted too, and a 1-D string array.
    assert (sb.solve(np.repeat(arr, 2, axis=0)[::2]) == sb.solve(arr)).all()
    assert sb.solve(np.array(puzzles, dtype=object)) == sb.solve(puzzles)


def test_wrong_dtype_or_shape_raises_naming_what_was_expected():
    with pytest.raises(TypeError, match=r"uint8 array of shape \(N, 81\).*int64"):
        sb.solve(np.zeros((2, 81), dtype=np.int64))
    with pytest.raises(ValueError, match=r"shape \(N, 81\).*\(2, 80\)"):
        sb.solve(np.zeros((2, 80), dtype=np.uint8))
    with pytest.raises(TypeError, match="sequence of puzzle strings"):
        sb.solve(PUZZLE)
    with pytest.raises(ValueError, match="threads"):
        sb.solve([PUZZLE], threads=-1)
    assert sb.solve([PUZZLE], threads=0) == [SOLUTION]  # 0: one per core, as the CLI's -j 0
    with pytest.raises(ValueError, match="limit"):
        sb.count([PUZZLE], limit=0)
    # A uint8 array of another shape is a shape error, whatever its dimensions.
    for shape in [(81,), (2, 81, 1)]:
        with pytest.raises(ValueError, match=r"shape \(N, 81\)"):
            sb.solve(np.zeros(shape, dtype=np.uint8))
    # Bytes objects are one value, not a sequence of puzzles.
    for one in [PUZZLE.encode(), bytearray(b"12"), memoryview(b"12")]:
        with pytest.raises(TypeError, match="sequence of puzzle strings"):
            sb.solve(one)


def test_thread_counts_give_the_same_answers():
    puzzles = puzzles_of("generated_unique25_2000.txt") * 3 + ["bad"] * 7
    one = sb.solve(puzzles, threads=1, with_status=True)
    assert sb.solve(puzzles, threads=4, with_status=True) == one
    assert sb.solve(puzzles, with_status=True) == one
    arr = as_array(puzzles_of("generated_unique25_2000.txt"))
    assert (sb.solve(arr, threads=1) == sb.solve(arr, threads=4)).all()
    assert (sb.count(arr, threads=1) == sb.count(arr, threads=4)).all()


def test_worker_pools_of_many_thread_counts_are_not_all_kept():
    with open("/proc/self/status") as f:
        if not any(line.startswith("Threads:") for line in f):
            pytest.skip("no /proc/self/status thread count on this system")

    def threads_now():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("Threads:"))

    before = threads_now()
    for k in range(1, 41):
        assert sb.solve([PUZZLE], threads=k) == [SOLUTION]
    # Kept: the pools of the last four counts (37 to 40), 154 threads; all forty would be 820.
    # Shut-down pools' threads exit on their own: allow them a moment.
    for _ in range(100):
        if threads_now() - before <= 37 + 38 + 39 + 40:
            break
        import time

        time.sleep(0.05)
    assert threads_now() - before <= 37 + 38 + 39 + 40


def test_count_and_check():
    records = [PUZZLE, "." * 81, UNSOLVABLE, "bad"]
    counts, statuses = sb.count(records, with_status=True)
    assert counts == [1, 2, 0, None]
    assert statuses == ["ok", "ok", "unsolvable", "invalid: expected 81 cells, found 3"]
    arr_counts = sb.count(as_array(records[:3]), limit=5)
    assert arr_counts.dtype == np.int32 and list(arr_counts) == [1, 5, 0]
    wrong = SOLUTION[1] + SOLUTION[0] + SOLUTION[2:]
    verdicts, statuses = sb.check([PUZZLE, PUZZLE, PUZZLE, "bad"], [SOLUTION, wrong, None, SOLUTION], with_status=True)
    assert verdicts == [True, False, False, False]
    assert statuses[0] == "ok" and statuses[1].startswith("wrong: ")
    assert statuses[2] == "invalid: the solution is null"
    assert statuses[3].startswith("invalid: expected 81 cells")
    _, statuses = sb.check([PUZZLE, PUZZLE, "bad"], [float("nan"), 1.5, None], with_status=True)
    assert statuses[0] == "invalid: the solution is null"
    assert statuses[1] == "invalid: the solution is not a string (str or bytes)"
    assert statuses[2].startswith("invalid: expected 81 cells"), "the puzzle's problem comes first"
    many = "." * 81
    any_grid = sb.solve([many])[0]
    assert sb.check([many], [any_grid]) == [True]
    assert sb.check([many], [any_grid], unique=True) == [False]
    assert sb.check(as_array([PUZZLE]), as_array([SOLUTION])) == [True]
    with pytest.raises(ValueError, match="one solution per puzzle"):
        sb.check([PUZZLE], [])


def test_pandas_columns_work_with_no_extra_code():
    pd = pytest.importorskip("pandas")
    puzzles = puzzles_of("sample.txt")
    df = pd.DataFrame({"source": "sample", "question": puzzles + ["bad"], "rating": 1.5})
    df["answer"] = sb.solve(df["question"].tolist())
    df["answer2"] = sb.solve(df["question"])
    assert pd.isna(df["answer"].iloc[-1])
    assert (df["answer"][:-1] == df["answer2"][:-1]).all()
    assert all(solves(s, p) for p, s in zip(puzzles, df["answer"][:-1]))
    assert sb.count(df["question"].to_numpy())[:3] == [1, 1, 1]


def test_a_missing_value_in_a_pandas_series_is_a_null_puzzle():
    pd = pytest.importorskip("pandas")
    # What read_csv gives for an empty cell of a text column, and the other missing values.
    series = pd.Series([PUZZLE, None, float("nan"), pd.NA, 5.0, "bad"], dtype=object)
    null = "invalid: the puzzle is null"
    expected = ["solved", null, null, null, "invalid: not a puzzle string (str or bytes)",
                "invalid: expected 81 cells, found 3"]
    answers, statuses = sb.solve(series, with_status=True)
    assert statuses.tolist() == expected
    assert answers.tolist()[0] == SOLUTION and answers[1:].isna().all()
    assert sb.grade(series, with_status=True)["status"].tolist() == ["ok"] + expected[1:]
    # A list keeps its own words for a value that is not a string.
    assert sb.solve([PUZZLE, None], with_status=True)[1][1] == expected[4]


def test_solve_file_runs_the_engine_with_the_cli_formats(cli, tmp_path):
    src = tmp_path / "in.csv"
    puzzles = puzzles_of("sample.txt")
    src.write_text("id,puzzle,rating\n" + "".join(f"{i},{p},3\n" for i, p in enumerate(puzzles)) + "99,xyz,1\n")
    out = tmp_path / "out.csv"
    summary = sb.solve_file(src, out, threads=2)
    assert summary["records"] == len(puzzles) + 1
    assert summary["solved"] == len(puzzles) and summary["invalid"] == 1
    assert summary["format"] == "csv"
    assert summary["messages"] == [(len(puzzles) + 2, "invalid: expected 81 cells, found 3")]
    cli_out = subprocess.run([cli, "solve", "-q", str(src)], capture_output=True, text=True)
    assert out.read_text() == cli_out.stdout
    counted = sb.solve_file(src, tmp_path / "counts.csv", task="count", limit=3)
    assert counted["unique"] == len(puzzles)
    # An option the task does not take is refused, as the CLI refuses its flag, before any work.
    for task, option in [("solve", {"limit": 3}), ("count", {"lexmin": True}), ("solve", {"nested": True}),
                         ("count", {"solution_column": "puzzle"}), ("solve", {"against": src}),
                         ("dedupe", {"shard": (1, 2)})]:
        name = next(iter(option))
        with pytest.raises(ValueError, match=f"{name}= does not apply to task='{task}'"):
            sb.solve_file(src, tmp_path / "never.csv", task=task, **option)
    with pytest.raises(ValueError, match="against_column= names a column of against="):
        sb.solve_file(src, tmp_path / "never.csv", task="dedupe", against_column="puzzle")
    assert not (tmp_path / "never.csv").exists()
    with pytest.raises(FileNotFoundError):
        sb.solve_file(tmp_path / "missing.txt", out)
    with pytest.raises(ValueError, match="no puzzle column"):
        bad = tmp_path / "bad.csv"
        bad.write_text("a,b\n1,2\n")
        sb.solve_file(bad, out, format="csv")
    with pytest.raises(ValueError, match="check needs puzzles that carry solutions"):
        sb.solve_file(sb.__file__ and (tmp_path / "g.txt").write_text("103000509\n" * 9) and tmp_path / "g.txt", out, task="check")


def test_solve_file_says_which_column_it_filled_and_can_keep_it(cli, tmp_path):
    src = tmp_path / "in.csv"
    puzzles = puzzles_of("sample.txt")[:3]
    src.write_text("id,question,answer\n" + "".join(f"{i},{p},old\n" for i, p in enumerate(puzzles)))
    filled = sb.solve_file(src, tmp_path / "filled.csv")
    assert filled["filled_column"] == "answer"
    assert "old" not in (tmp_path / "filled.csv").read_text()
    kept = sb.solve_file(src, tmp_path / "kept.csv", keep_solution_column=True)
    assert kept["filled_column"] is None
    text = (tmp_path / "kept.csv").read_text()
    cli_out = subprocess.run([cli, "solve", "-q", "--keep-solution-column", str(src)], capture_output=True, text=True)
    assert text == cli_out.stdout
    rows = text.splitlines()
    assert rows[0] == "id,question,answer,solution,status"
    assert all(r.split(",")[2] == "old" and solves(r.split(",")[3], p) for r, p in zip(rows[1:], puzzles))


def test_containers_that_are_not_sequences_of_puzzles_are_refused():
    pd = pytest.importorskip("pandas")
    with pytest.raises(TypeError, match=r"df\['question'\]"):
        sb.solve(pd.DataFrame({"question": [PUZZLE]}))
    with pytest.raises(TypeError, match="sequence of puzzle strings"):
        sb.solve({PUZZLE: 1})
    with pytest.raises(TypeError, match="scalar"):
        sb.solve(np.uint8(3))
    # Generators and tuples are sequences of puzzles; NumPy integers are ints.
    assert sb.solve(p for p in [PUZZLE]) == [SOLUTION]
    assert sb.count((PUZZLE,), limit=np.int64(3), threads=np.int32(2)) == [1]
    with pytest.raises(ValueError, match="threads"):
        sb.solve([PUZZLE], threads=True)
    # Numbers as categories are still numbers; records paired by position must have one index.
    with pytest.raises(TypeError, match="dtype=str"):
        sb.solve(pd.Series([1, 2], dtype="category"))
    assert sb.solve(pd.Series([PUZZLE], dtype="category")).tolist() == [SOLUTION]
    with pytest.raises(ValueError, match="different indexes"):
        sb.check(pd.Series([PUZZLE, PUZZLE], index=[0, 1]), pd.Series([SOLUTION, SOLUTION], index=[1, 0]))
    assert sb.check(pd.Series([PUZZLE], index=[7]), pd.Series([SOLUTION], index=[7])).tolist() == [True]


def test_solve_file_shards_add_up(tmp_path):
    puzzles = puzzles_of("generated_easy_2000.txt")[:300] + ["bad"]
    src = tmp_path / "in.txt"
    src.write_text("\n".join(puzzles) + "\n")
    whole = tmp_path / "whole.txt"
    sb.solve_file(src, whole)
    parts = []
    for k in range(1, 4):
        out = tmp_path / f"part{k}.txt"
        summary = sb.solve_file(src, out, shard=(k, 3))
        parts.append(out.read_text())
        for line, _ in summary["messages"]:
            assert line == len(puzzles), "whole-file line numbers"
    assert "".join(parts) == whole.read_text()
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert sb.solve_file(empty, tmp_path / "e.out", shard=(2, 5))["records"] == 0
    with pytest.raises(ValueError, match="shard"):
        sb.solve_file(src, whole, shard=(0, 3))
    with pytest.raises(ValueError, match="shard"):
        sb.solve_file(src, whole, shard=(1, 2**64))


def test_grade_columns_match_the_cli_and_bad_records_are_none(cli, tmp_path):
    puzzles = puzzles_of("sample.txt")[:8]
    path = tmp_path / "g.txt"
    path.write_text("\n".join(puzzles) + "\n")
    lines = subprocess.run([cli, "grade", "-q", str(path)], capture_output=True, text=True, check=True)
    graded = sb.grade(puzzles + ["oops", UNSOLVABLE], with_status=True)
    assert list(graded) == ["grade", "se_estimate", "hardest", "steps", "se_pearl", "se_diamond", "status"]
    for i, line in enumerate(lines.stdout.splitlines()):
        se, band, hardest = line.split(" ", 2)
        assert (graded["se_estimate"][i], graded["grade"][i], graded["hardest"][i]) == (float(se), band, hardest)
        assert graded["steps"][i] > 0 and graded["status"][i] == "ok"
        assert 1.0 <= graded["se_diamond"][i] <= graded["se_pearl"][i] <= graded["se_estimate"][i]
    # The CLI's CSV output has the same pearl and diamond.
    table = subprocess.run(
        [cli, "grade", "-q"], input="puzzle\n" + "\n".join(puzzles) + "\n", capture_output=True, text=True, check=True
    )
    rows = list(csv.DictReader(io.StringIO(table.stdout)))
    assert [float(r["se_pearl"]) for r in rows] == graded["se_pearl"][:8]
    assert [float(r["se_diamond"]) for r in rows] == graded["se_diamond"][:8]
    assert [graded[c][8] for c in ("grade", "se_estimate", "hardest", "steps", "se_pearl", "se_diamond")] == [None] * 6
    assert graded["status"][8].startswith("invalid") and graded["status"][9] == "unsolvable"
    assert isinstance(sb._native.GRADE_VERSION, int)
    assert isinstance(sb._native.RATE_VERSION, int) and sb._native.RATE_VERSION >= 1


def test_grade_nested_ranks_a_puzzle_the_standard_grade_leaves_at_the_top(cli):
    # From the forum's hardest list: the standard grade stops at "Trial depth 2+".
    hard = "..39.....4...8..36..8...1...4..6..738......1......2.....4.7..686........7.....5.."
    standard = sb.grade([hard])
    nested = sb.grade([hard], nested=True)
    assert standard["hardest"] == ["Trial depth 2+"] and standard["se_estimate"] == [10.5]
    assert nested["hardest"] == ["Trial with Forcing Chains"] and 10.0 < nested["se_estimate"][0] < 12.0
    line = subprocess.run([cli, "grade", "-q", "--nested"], input=hard + "\n", capture_output=True, text=True, check=True)
    assert line.stdout == f"{nested['se_estimate'][0]:.1f} trial Trial with Forcing Chains\n"


def test_solve_file_takes_paths_as_str_bytes_or_path_like(cli, tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("".join(p + "\n" for p in puzzles_of("sample.txt")))
    expected = subprocess.run([cli, "solve", "-q", str(src)], capture_output=True, text=True).stdout
    for kind in [str, os.fsencode, lambda p: p]:
        out = tmp_path / "out.txt"
        summary = sb.solve_file(kind(src), kind(out), task="solve")
        assert summary["records"] == len(puzzles_of("sample.txt"))
        assert out.read_text() == expected
        out.unlink()
    graded = sb.solve_file(os.fsencode(src), os.fsencode(tmp_path / "grades.txt"), task="grade")
    assert graded["records"] == len(puzzles_of("sample.txt"))


def _solve_in_child(queue):
    queue.put(sb.solve([PUZZLE], threads=2))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_a_forked_child_answers_after_the_parent_used_the_engine():
    # The parent's worker threads are not copied by a fork: a child that used the parent's
    # pool waited for them forever (multiprocessing's fork start, datasets' num_proc).
    import multiprocessing

    sb.solve([PUZZLE], threads=2)  # the parent's pool for two threads now exists
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_solve_in_child, args=(queue,))
    child.start()
    child.join(60)
    if child.is_alive():
        child.kill()
        child.join()
        pytest.fail("the forked child did not finish within 60 s")
    assert child.exitcode == 0
    assert queue.get(timeout=5) == [SOLUTION]


def test_a_pandas_batch_of_only_missing_values_is_a_batch_of_null_puzzles():
    # A chunk of a DataFrame may hold no puzzle at all: its records are null, not a wrong type.
    pd = pytest.importorskip("pandas")
    null = "invalid: the puzzle is null"
    for series in [
        pd.Series([pd.NA, pd.NA], dtype="string[python]"),
        pd.Series([float("nan"), None], dtype=object),
        pd.Series([None, None], dtype="category"),
        # What pandas reads an empty column as, and a nullable integer column of nothing.
        pd.Series([float("nan"), float("nan")]),
        pd.Series([pd.NA, pd.NA], dtype="Int64"),
        # The same Arrow-backed (pyarrow is a test dependency).
        pd.Series([None, None], dtype="int64[pyarrow]"),
        pd.Series([None, None], dtype="double[pyarrow]"),
    ]:
        answers, statuses = sb.solve(series, with_status=True)
        assert statuses.tolist() == [null, null], series.dtype
        assert answers.isna().all()
    # A missing solution is a null solution, however pandas writes it.
    puzzles = pd.Series([PUZZLE, PUZZLE, PUZZLE], dtype="string[python]")
    solutions = pd.Series([SOLUTION, pd.NA, None], dtype="string[python]")
    _, statuses = sb.check(puzzles, solutions, with_status=True)
    assert statuses.tolist() == ["ok", "invalid: the solution is null", "invalid: the solution is null"]
    # Numbers are still refused, missing values or not.
    with pytest.raises(TypeError, match="dtype=str"):
        sb.solve([float("nan"), 2.5])
    with pytest.raises(TypeError, match="dtype=str"):
        sb.solve(pd.Series([float("nan"), 2.5]))


def test_numpy_string_dtype_arrays_are_puzzle_strings():
    dtypes = pytest.importorskip("numpy.dtypes")
    if not hasattr(dtypes, "StringDType"):
        pytest.skip("NumPy before 2.0 has no StringDType")
    puzzles = np.array([PUZZLE, "bad"], dtype=dtypes.StringDType())
    assert sb.solve(puzzles, with_status=True) == (
        [SOLUTION, None], ["solved", "invalid: expected 81 cells, found 3"])


def test_solve_file_grades_with_nested_trial_as_the_cli(cli, tmp_path):
    # A puzzle of the forum's hardest list (SE 11.0): `Trial depth 2+` (10.5) without nested.
    src = tmp_path / "hard.txt"
    src.write_text("..39.....4...8..36..8...1...4..6..738......1......2.....4.7..686........7.....5..\n")
    for nested, flags in [(False, []), (True, ["--nested"])]:
        out = tmp_path / f"graded-{nested}.txt"
        summary = sb.solve_file(src, out, task="grade", nested=nested)
        assert summary["records"] == 1
        cli_out = subprocess.run([cli, "grade", "-q", *flags, str(src)], capture_output=True, text=True)
        assert out.read_text() == cli_out.stdout
    assert (tmp_path / "graded-False.txt").read_text().startswith("10.5 ")
    assert (tmp_path / "graded-True.txt").read_text().startswith("11.1 ")
