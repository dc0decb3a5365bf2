"""Parquet and Arrow files written by pyarrow, pandas and polars, answered by the CLI and by
`solve_file`: every column kept with its type and row order, typed result columns, statuses."""

import subprocess

import pytest

from conftest import puzzles_of, solves

pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (CI installs it)")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is not installed (CI installs it)")
feather = pytest.importorskip("pyarrow.feather", reason="pyarrow is not installed (CI installs it)")

import sudoku_batch as sb


def _rows():
    puzzles = puzzles_of("generated_unique25_2000.txt")[:500]
    puzzles[3] = None
    puzzles[4] = "not a puzzle"
    return puzzles


def _check_solved(puzzles, answers, statuses):
    for i, (p, a, s) in enumerate(zip(puzzles, answers, statuses)):
        if i in (3, 4):
            assert a is None and s.startswith("invalid: "), (i, a, s)
        else:
            assert s == "solved" and solves(a, p), (i, a, s)


def test_cli_on_a_pandas_parquet_file_keeps_index_columns_and_types(cli, tmp_path):
    pd = pytest.importorskip("pandas", reason="pandas is not installed (CI installs it)")
    puzzles = _rows()
    df = pd.DataFrame(
        {"question": puzzles, "rating": [float(i) / 3 for i in range(len(puzzles))]},
        index=pd.Index(range(100, 100 + len(puzzles)), name="row"),
    )
    df.to_parquet(tmp_path / "x.parquet", row_group_size=128)
    run = subprocess.run(
        [cli, "solve", str(tmp_path / "x.parquet"), "-o", str(tmp_path / "y.parquet")],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 1, run.stderr
    assert "x.parquet:4: invalid: the puzzle is null" in run.stderr
    assert "x.parquet:5: invalid: expected 81 cells, found 12" in run.stderr
    out = pd.read_parquet(tmp_path / "y.parquet")
    assert list(out.columns) == ["question", "rating", "solution", "status"]
    assert out.index.name == "row" and list(out.index) == list(df.index)
    assert out["rating"].tolist() == df["rating"].tolist()
    assert pq.ParquetFile(tmp_path / "y.parquet").metadata.num_row_groups == 4
    table = pq.read_table(tmp_path / "y.parquet")
    _check_solved(puzzles, table.column("solution").to_pylist(), table.column("status").to_pylist())


def test_a_pandas_answer_column_of_none_alone_is_filled_in_place(cli, tmp_path):
    # pandas writes a column of None alone with Arrow's null type; solve fills it as text.
    pd = pytest.importorskip("pandas", reason="pandas is not installed (CI installs it)")
    puzzles = _rows()
    df = pd.DataFrame({"quizzes": puzzles, "answer": [None] * len(puzzles)})
    df.to_parquet(tmp_path / "x.parquet")
    assert pq.read_schema(tmp_path / "x.parquet").field("answer").type == pa.null()
    summary = sb.solve_file(tmp_path / "x.parquet", tmp_path / "y.parquet")
    assert summary["filled_column"] == "answer" and summary["solved"] == 498
    assert list(pd.read_parquet(tmp_path / "y.parquet").columns) == ["quizzes", "answer", "status"]
    out = pq.read_table(tmp_path / "y.parquet")
    assert out.schema.field("answer").type == pa.string()
    _check_solved(puzzles, out.column("answer").to_pylist(), out.column("status").to_pylist())
    run = subprocess.run([cli, "check", str(tmp_path / "x.parquet"), "-o", "-"], capture_output=True, text=True)
    assert run.returncode == 2 and '"answer"' in run.stderr and run.stdout == "", run


def test_cli_on_polars_and_feather_files(cli, tmp_path):
    pl = pytest.importorskip("polars", reason="polars is not installed (CI installs it)")
    puzzles = _rows()
    frame = pl.DataFrame({"id": list(range(len(puzzles))), "quizzes": puzzles})
    frame.write_parquet(tmp_path / "p.parquet")  # zstd, string_view columns
    subprocess.run([cli, "count", "-q", str(tmp_path / "p.parquet"), "-o", str(tmp_path / "c.feather")])
    table = feather.read_table(tmp_path / "c.feather")
    assert table.column_names == ["id", "quizzes", "count", "status"]
    assert table.schema.field("count").type == pa.int64()
    counts = table.column("count").to_pylist()
    assert counts[3] is None and counts[4] is None
    assert all(c == 1 for i, c in enumerate(counts) if i not in (3, 4))
    assert table.column("id").to_pylist() == list(range(len(puzzles)))
    back = pl.read_ipc(tmp_path / "c.feather")
    assert back["quizzes"].to_list() == puzzles


def test_solve_file_reads_and_writes_parquet(tmp_path):
    puzzles = _rows()
    pq.write_table(pa.table({"question": puzzles, "answer": pa.nulls(len(puzzles), pa.string())}), tmp_path / "x.parquet")
    summary = sb.solve_file(tmp_path / "x.parquet", tmp_path / "y.parquet")
    assert summary["format"] == "parquet" and summary["note"] is None
    assert (summary["records"], summary["solved"], summary["invalid"]) == (500, 498, 2)
    assert [m[0] for m in summary["messages"]] == [4, 5]
    out = pq.read_table(tmp_path / "y.parquet")
    assert out.column_names == ["question", "answer", "status"]
    _check_solved(puzzles, out.column("answer").to_pylist(), out.column("status").to_pylist())
    sb.solve_file(tmp_path / "x.parquet", tmp_path / "y.csv")
    assert (tmp_path / "y.csv").read_text().splitlines()[0] == "question,answer,status"


def test_solve_file_says_which_unnamed_column_it_took(tmp_path):
    # The CLI says this on stderr; Python callers get it in the summary.
    puzzles = puzzles_of("generated_unique25_2000.txt")[:10]
    pq.write_table(pa.table({"id": list(range(10)), "grid": puzzles}), tmp_path / "x.parquet")
    summary = sb.solve_file(tmp_path / "x.parquet", tmp_path / "y.parquet")
    assert summary["solved"] == 10
    assert 'column "grid" holds 81-cell puzzles' in summary["note"], summary["note"]
    # A CSV whose header names no puzzle column is detected the same way, with its own note.
    (tmp_path / "x.csv").write_text("id,grid\n" + "".join(f"{i},{p}\n" for i, p in enumerate(puzzles)))
    summary = sb.solve_file(tmp_path / "x.csv", tmp_path / "y.csv")
    assert summary["solved"] == 10 and "grid" in summary["note"], summary["note"]


def test_a_binary_file_that_is_not_columnar_is_refused(tmp_path):
    (tmp_path / "x.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(60))
    with pytest.raises(ValueError, match="gzip-compressed"):
        sb.solve_file(tmp_path / "x.gz", tmp_path / "out.txt")
    assert not (tmp_path / "out.txt").exists()
