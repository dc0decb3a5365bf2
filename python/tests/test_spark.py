"""Both Spark routes on a real local Spark (`local[2]`): the package inside mapInArrow (line
input, as the lines' bytes; CSV and Parquet tables: the `python -m sudoku_batch.spark` job and
`solve_column` in a user's job), and the CLI as a strict line filter under
`rdd.pipe(..., checkCode=True)`. Outputs are checked record by record."""

import os
import subprocess
import sys

import pytest

import sudoku_batch as sb
from conftest import DATA, has_solution, puzzles_of, solves

if os.environ.get("CI"):
    import pyspark  # noqa: F401  (CI installs it: a missing pyspark must fail, not skip)
else:
    pyspark = pytest.importorskip("pyspark")

MASTER = "local[2]"


def mixed_lines(n=3000):
    """Line-format text: puzzles with bad lines, comments, blank lines and CRLF among them."""
    puzzles = puzzles_of("generated_unique25_2000.txt") + puzzles_of("generated_minimal_2000.txt")
    lines = ["# made for the Spark test", ""]
    for i in range(n):
        if i % 401 == 7:
            lines.append("not a puzzle")
        elif i % 997 == 3:
            lines.append("")
        else:
            lines.append(puzzles[i % len(puzzles)] + ("\r" if i % 3 == 0 else ""))
    return "\n".join(lines) + "\n"


def check_line_output(text, output):
    """One answer per record, in order: a valid solution of its puzzle, or a status."""
    records = [l.rstrip("\r") for l in text.split("\n") if l.strip() and not l.startswith("#")]
    answers = output.splitlines()
    assert len(answers) == len(records)
    for record, answer in zip(records, answers):
        if record == "not a puzzle":
            assert answer == "invalid: expected 81 cells, found 3"
        else:
            assert solves(answer, record), (record, answer)


def part_files(outdir):
    return sorted(p for p in os.listdir(outdir) if p.startswith("part-"))


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    # No web UI: it would take a port from 4040 up, which other jobs on the machine may hold.
    session = SparkSession.builder.master(MASTER).appName("sudoku-batch-tests").config("spark.ui.enabled", "false").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.mark.parametrize("task", [["solve"], ["canon"], ["rate", "--samples", "3"]])
def test_the_spark_job_on_line_input_equals_the_cli(cli, tmp_path, task):
    text = mixed_lines()
    src = tmp_path / "puzzles.txt"
    src.write_text(text)
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER, "--partitions", "4"]
        + ["--task"]
        + task,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    parts = part_files(out)
    assert len(parts) >= 3, parts  # the order across part files is under test
    joined = "".join((out / p).read_text() for p in parts)
    if task == ["solve"]:
        check_line_output(text, joined)
    cli_out = subprocess.run([cli, *task, "-q", str(src)], capture_output=True, text=True)
    assert joined == cli_out.stdout


def test_the_spark_job_skips_a_line_files_header_row_as_the_cli_does(cli, tmp_path):
    lines = mixed_lines().split("\n")
    # After 8 KB of comments, more than a split of the 40 asked for would hold; the same line
    # later is a record (invalid) in both.
    preamble = ["# " + "comment " * 10] * 100
    text = "\n".join(lines[:2] + preamble + ["puzzle rating"] + lines[2:1500] + ["puzzle rating"] + lines[1500:])
    src = tmp_path / "puzzles.txt"
    src.write_text(text)
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER, "--partitions", "40"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    assert len(part_files(out)) >= 10
    joined = "".join((out / p).read_text() for p in part_files(out))
    cli_out = subprocess.run([cli, "solve", "-q", str(src)], capture_output=True, text=True)
    assert joined == cli_out.stdout
    assert joined.count("invalid: expected 81 cells, found 6") == 1


@pytest.mark.parametrize("sep", [",", "\t", ";"])
def test_the_spark_job_on_csv_keeps_every_column(tmp_path, sep):
    import csv

    puzzles = puzzles_of("generated_unique25_2000.txt")[:500]
    src = tmp_path / "set.csv"
    with open(src, "w", newline="") as f:
        # A tab- or semicolon-separated table is read and written in its separator, as by the CLI.
        w = csv.writer(f, delimiter=sep)
        w.writerow(["source", "question", "answer", "rating"])
        for i, p in enumerate(puzzles):
            # A row that starts with `#` is a record, as in the CLI (no comments after the header).
            w.writerow([f"#gen{i}" if i == 4 else f"gen{i}", p if i % 50 != 9 else "xyz", "", i % 7])
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER, "--partitions", "3"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    header = (out / "_header.csv").read_text()
    # As the CLI does: the answer column is filled in place.
    assert header == sep.join(["source", "question", "answer", "rating", "status"]) + "\n"
    text = "".join((out / p).read_text() for p in part_files(out))
    rows = list(csv.reader(text.splitlines(), delimiter=sep))
    assert len(rows) == len(puzzles)
    for i, (row, p) in enumerate(zip(rows, puzzles)):
        assert row[0] == (f"#gen{i}" if i == 4 else f"gen{i}") and row[3] == str(i % 7)
        if i % 50 == 9:
            assert row[2] == "" and row[4] == "invalid: expected 81 cells, found 3"
        else:
            assert row[1] == p and solves(row[2], p) and row[4] == "solved"


def test_the_spark_job_refuses_comments_before_a_csv_header(tmp_path):
    src = tmp_path / "set.csv"
    src.write_text("# made by hand\nid,puzzle\n1," + puzzles_of("sample.txt")[0] + "\n")
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(tmp_path / "out"), "--master", MASTER],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode != 0
    assert "starts with comment or blank lines" in job.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("flags", [["--seed", "-1"], ["--task", "count", "--limit", "5000000000"]])
def test_the_spark_job_refuses_options_out_of_range_before_it_starts(tmp_path, flags):
    src = tmp_path / "set.txt"
    src.write_text(puzzles_of("sample.txt")[0] + "\n")
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(tmp_path / "out"), *flags],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 2
    assert f"{flags[-2]} must be an int from" in job.stderr
    assert not (tmp_path / "out").exists()


def test_the_spark_job_refuses_what_the_cli_refuses_before_reading(cli, tmp_path):
    puzzle = puzzles_of("sample.txt")[0]
    cases = {
        # A table's rows without their header row: never answered `invalid` row by row.
        "rows.csv": ("".join(f"{i},{p}\n" for i, p in enumerate(puzzles_of("sample.txt"))), [], "no header row names the columns"),
        # Told it is CSV, a first row holding a puzzle is no header (Spark would drop it as one).
        "first.csv": (f"1,{puzzle}\n2,{puzzle}\n", ["--format", "csv"], "the CSV input has no header row"),
    }
    for name, (text, flags, message) in cases.items():
        src = tmp_path / name
        src.write_text(text)
        job = subprocess.run(
            [sys.executable, "-m", "sudoku_batch.spark", str(src), str(tmp_path / "out"), "--master", MASTER, *flags],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert job.returncode != 0 and message in job.stderr, job.stderr
        assert not (tmp_path / "out").exists()
        cli_run = subprocess.run([cli, "solve", str(src), *flags], capture_output=True, text=True)
        assert cli_run.returncode == 2 and message in cli_run.stderr, cli_run.stderr
    # An output that exists is refused before Spark starts.
    (tmp_path / "out").mkdir()
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(tmp_path / "first.csv"), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode != 0 and "out exists; the output is a new directory" in job.stderr, job.stderr


def test_the_spark_job_refuses_check_on_lines_without_solutions_as_the_cli_does(cli, tmp_path):
    # A file of bare puzzles would give one `invalid` per line; the CLI refuses it up front.
    # With comments and a blank line; with a byte-order mark, a header row and CRLF; with lone
    # CRs and more than the 64 KiB the job looks at; after a damaged record.
    bare = puzzles_of("sample.txt")
    for name, text in [
        ("commented.txt", "# bare puzzles\n\n" + "\n".join(bare) + "\n"),
        ("header.txt", "\ufeffpuzzle rating\r\n" + "".join(f"{p}\r\n" for p in bare)),
        ("cr.txt", "".join(f"{p}\r" for p in bare * 50)),
        # A damaged record first says nothing of the others.
        ("damaged.txt", "x" + bare[0][1:] + "\n" + "".join(f"{p}\n" for p in bare)),
    ]:
        src = tmp_path / name
        src.write_bytes(text.encode())
        out = tmp_path / f"out-{name}"
        job = subprocess.run(
            [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER, "--task", "check"],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert job.returncode != 0, name
        cli_out = subprocess.run([cli, "check", str(src)], capture_output=True, text=True)
        assert cli_out.returncode == 2, (name, cli_out.stderr)
        said = cli_out.stderr.strip().split(": ", 3)[3]
        assert said.startswith("check needs a solution after each puzzle"), cli_out.stderr
        assert said in job.stderr, (name, job.stderr[-3000:])
        assert not out.exists()
    # Lines that carry their solutions are checked.
    pairs = tmp_path / "pairs.txt"
    solved = sb.solve(puzzles_of("sample.txt"))
    pairs.write_text("".join(f"{p},{s}\n" for p, s in zip(puzzles_of("sample.txt"), solved)))
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(pairs), str(tmp_path / "out2"), "--master", MASTER, "--task", "check"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    joined = "".join((tmp_path / "out2" / p).read_text() for p in part_files(tmp_path / "out2"))
    assert joined == subprocess.run([cli, "check", "-q", str(pairs)], capture_output=True, text=True).stdout
    assert set(joined.split()) == {"ok"}


@pytest.mark.parametrize("task", [["count", "--limit", "1"], ["check"], ["canon"], ["rate", "--samples", "3"], ["grade"]])
def test_the_spark_job_on_csv_has_the_clis_columns_and_statuses(cli, tmp_path, task):
    import csv

    puzzles = puzzles_of("generated_unique25_2000.txt")[:200]
    solutions = sb.solve(puzzles)
    src = tmp_path / "set.csv"
    with open(src, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "question", "answer", "rating"])
        for i, (p, s) in enumerate(zip(puzzles, solutions)):
            bad = i % 50 == 9
            wrong = i % 30 == 4
            w.writerow([f"gen{i}", "xyz" if bad else p, s[::-1] if wrong else s, i % 7])
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER, "--task", task[0]]
        + task[1:],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    cli_out = subprocess.run([cli, *task, "-q", str(src)], capture_output=True, text=True).stdout
    cli_rows = list(csv.reader(cli_out.splitlines()))
    # The same result columns, by the same names, as the CLI (one source: the task layer).
    header = (out / "_header.csv").read_text()
    assert header == ",".join(cli_rows[0]) + "\n"
    rows = list(csv.reader("".join((out / p).read_text() for p in part_files(out)).splitlines()))
    assert [r[-1] for r in rows] == [r[-1] for r in cli_rows[1:]]
    assert len(rows[0]) == len(cli_rows[0])
    # The result columns hold the CLI's text (`1+` at the limit, `30.00`), row for row.
    assert [r[4:] for r in rows] == [r[4:] for r in cli_rows[1:]]


def write_parquet_set(path, n=600):
    """A small Parquet table in row groups of 100: an id, a source, puzzles (a null and bad ones
    among them), an answer column (empty but for a value on a bad row) and a rating."""
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
    import pyarrow.parquet as pq

    puzzles = puzzles_of("generated_unique25_2000.txt")[:n]
    question = [None if i == 17 else "xyz" if i % 50 == 9 else p for i, p in enumerate(puzzles)]
    answer = ["kept" if i == 59 else None for i in range(n)]
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "source": [f"gen{i}" for i in range(n)],
            "question": question,
            "answer": answer,
            "rating": pa.array([i % 7 / 2 for i in range(n)], pa.float64()),
        }
    )
    pq.write_table(table, path, row_group_size=100)
    return table


@pytest.mark.parametrize("task", [["solve"], ["rate", "--samples", "3"], ["count", "--output-format", "csv"]])
def test_the_spark_job_on_parquet_keeps_every_column_type_and_row(tmp_path, task):
    import pyarrow as pa
    import pyarrow.parquet as pq

    src = tmp_path / "set.parquet"
    table = write_parquet_set(src)
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER, "--partitions", "3"]
        + ["--task"]
        + task,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    assert len(part_files(out)) >= 2, "the order across part files is under test"
    question = table["question"].to_pylist()
    if task[0] == "count":  # CSV output: the header, then the rows in order
        import csv

        header = (out / "_header.csv").read_text()
        assert header == "id,source,question,answer,rating,count,status\n"
        rows = list(csv.reader("".join((out / p).read_text() for p in part_files(out)).splitlines()))
        assert [int(r[0]) for r in rows] == list(range(len(question)))
        assert [r[5] for r in rows] == ["" if c is None else str(c) for c in sb.count(question)]
        return
    got = pq.read_table(out)
    assert got.num_rows == table.num_rows
    assert got["id"].to_pylist() == list(range(table.num_rows)), "rows in input order"
    for name in ["source", "question", "rating"]:
        assert got[name].to_pylist() == table[name].to_pylist(), name
    assert got.schema.field("id").type == pa.int64() and got.schema.field("rating").type == pa.float64()
    assert pa.types.is_string(got.schema.field("status").type) or pa.types.is_large_string(got.schema.field("status").type)
    _, statuses = sb.solve(question, with_status=True)
    statuses[17] = "invalid: the puzzle is null"
    if task[0] == "solve":
        # The answer column is filled in place; a row without an answer keeps its value.
        assert got.column_names == ["id", "source", "question", "answer", "rating", "status"]
        assert pa.types.is_string(got.schema.field("answer").type) or pa.types.is_large_string(got.schema.field("answer").type)
        answers = got["answer"].to_pylist()
        for i, (p, a) in enumerate(zip(question, answers)):
            if p is None or p == "xyz":
                assert a == ("kept" if i == 59 else None)
            else:
                assert solves(a, p)
        assert got["status"].to_pylist() == statuses
    else:
        # rate: its columns are added beside the input's own `rating`.
        assert got.column_names == ["id", "source", "question", "answer", "rating", "rating_2", "singles", "status"]
        assert got.schema.field("rating_2").type == pa.float64() and got.schema.field("singles").type == pa.bool_()
        ratings, rate_statuses = sb.rate(question, samples=3, with_status=True)
        assert got["rating_2"].to_pylist() == ratings
        assert got["status"].to_pylist()[:17] == rate_statuses[:17]
        assert got["answer"].to_pylist() == table["answer"].to_pylist()


def test_the_spark_job_writes_parquet_from_csv_on_request(tmp_path):
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
    import pyarrow.parquet as pq

    puzzles = puzzles_of("generated_unique25_2000.txt")[:300]
    src = tmp_path / "set.csv"
    src.write_text("source,quizzes\n" + "".join(f"s{i},{p}\n" for i, p in enumerate(puzzles)))
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER]
        + ["--partitions", "2", "--task", "count", "--output-format", "parquet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    got = pq.read_table(out)
    assert got.column_names == ["source", "quizzes", "count", "status"]
    assert got.schema.field("count").type == pa.int64()
    assert got["source"].to_pylist() == [f"s{i}" for i in range(len(puzzles))]
    assert got["count"].to_pylist() == sb.count(puzzles) == [1] * len(puzzles)


def spark_job(tmp_path, *args):
    return subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", *map(str, args), "--master", MASTER],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )


def test_the_spark_job_keeps_the_order_of_a_directorys_files(cli, tmp_path):
    # Spark packs a directory's files into partitions largest first; the job reads them in name
    # order. Parquet files of 50, 600 and 200 rows, one with a time zone's timestamps; text
    # files likewise, one with a line that is not UTF-8 (a record like any other, as in the CLI).
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
    import datetime

    import pyarrow.parquet as pq

    puzzles = puzzles_of("generated_unique25_2000.txt")
    tables, lines = tmp_path / "tables", tmp_path / "lines"
    tables.mkdir()
    lines.mkdir()
    start = 0
    when = datetime.datetime(2024, 1, 1, 12, tzinfo=datetime.timezone.utc)
    for name, n in [("a", 50), ("b", 600), ("c", 200)]:
        rows = range(start, start + n)
        pq.write_table(
            pa.table(
                {
                    "id": pa.array(rows, pa.int64()),
                    "at": pa.array([when] * n, pa.timestamp("us", tz="UTC")),
                    "puzzle": [puzzles[i] for i in rows],
                }
            ),
            tables / f"{name}.parquet",
        )
        text = b"".join(puzzles[i].encode() + b"\n" for i in rows)
        (lines / f"{name}.txt").write_bytes(text + (b"caf\xe9\n" if name == "b" else b""))
        start += n
    (tables / "_SUCCESS").write_text("")
    job = spark_job(tmp_path, tables, tmp_path / "out", "--partitions", "3")
    assert job.returncode == 0, job.stderr[-3000:]
    got = pq.read_table(tmp_path / "out")
    assert got["id"].to_pylist() == list(range(start)), "rows in the files' name order"
    assert got.schema.field("at").type == pa.timestamp("us", tz="UTC")
    for p, a in zip(got["puzzle"].to_pylist(), got["solution"].to_pylist()):
        assert solves(a, p)
    job = spark_job(tmp_path, lines, tmp_path / "out_lines", "--format", "line")
    assert job.returncode == 0, job.stderr[-3000:]
    joined = b"".join((tmp_path / "out_lines" / p).read_bytes() for p in part_files(tmp_path / "out_lines"))
    expected = b"".join(
        subprocess.run([cli, "solve", "-q", lines / f"{name}.txt"], capture_output=True).stdout for name in "abc"
    )
    assert joined == expected
    assert b"invalid: expected 81 cells, found 4" in joined


def test_the_spark_job_reads_and_writes_csv_as_the_cli_does(cli, tmp_path):
    # Quotes doubled inside a quoted field (RFC 4180), spaces kept, a column name with a dot, a
    # gzip-compressed file (Spark decompresses it; the format is told from its text) and a
    # --column given in another case.
    import csv
    import gzip

    puzzles = puzzles_of("generated_unique25_2000.txt")[:40]
    rows = [["src.file", "note", "Quizzes"]]
    rows += [[f"f{i}", ['he said "hi", twice', "  padded  ", ""][i % 3], p] for i, p in enumerate(puzzles)]
    text = "".join(",".join('"' + f.replace('"', '""') + '"' if i == 1 else f for i, f in enumerate(r)) + "\n" for r in rows)
    src = tmp_path / "set.csv.gz"
    src.write_bytes(gzip.compress(text.encode()))
    job = spark_job(tmp_path, src, tmp_path / "out", "--column", "QUIZZES")
    assert job.returncode == 0, job.stderr[-3000:]
    out = tmp_path / "out"
    got = list(csv.reader(((out / "_header.csv").read_text() + "".join((out / p).read_text() for p in part_files(out))).splitlines()))
    assert got[0] == ["src.file", "note", "Quizzes", "solution", "status"]
    assert len(got) == len(rows)
    for row, want in zip(got[1:], rows[1:]):
        assert row[:3] == want
        assert solves(row[3], want[2]) and row[4] == "solved"
    plain = tmp_path / "set.csv"
    plain.write_text(text)
    cli_rows = list(csv.reader(subprocess.run([cli, "solve", "-q", "--column", "QUIZZES", plain], capture_output=True, text=True).stdout.splitlines()))
    assert got == cli_rows
    job = spark_job(tmp_path, plain, tmp_path / "out2", "--column", "nope")
    assert job.returncode != 0 and "no column named 'nope'" in job.stderr, job.stderr[-3000:]
    assert not (tmp_path / "out2").exists()


def test_solve_column_in_a_users_job(spark):
    from sudoku_batch.spark import answer_column, solve_column

    puzzles = puzzles_of("generated_minimal_2000.txt")[:1500] + ["bad", None]
    df = spark.createDataFrame([(i, p) for i, p in enumerate(puzzles)], "id long, question string").repartition(1)
    rows = solve_column(df, "question").orderBy("id").collect()
    assert [r.id for r in rows] == list(range(len(puzzles)))
    for r, p in zip(rows, puzzles):
        if p in ("bad", None):
            assert r.solution is None and r.status.startswith("invalid: ")
        else:
            assert solves(r.solution, p) and r.status == "solved"
    counted = answer_column(df, "question", task="count").orderBy("id").collect()
    assert [r["count"] for r in counted[:5]] == [1] * 5
    assert counted[-1]["count"] is None
    # Every grade column, as Python's grade() gives it.
    graded = answer_column(df, "question", task="grade").orderBy("id").collect()
    want = sb.grade(puzzles)
    for name in ("grade", "se_estimate", "hardest", "steps", "se_pearl", "se_diamond"):
        assert [r[name] for r in graded] == want[name], name
    # The CLI's rule: an existing solution column is filled in place (a row without an answer
    # keeps its value); other result columns and the status get names the input does not have.
    rows = [(i, p, "kept" if p == "bad" else None, "x") for i, p in enumerate(puzzles)]
    df = spark.createDataFrame(rows, "id long, question string, answer string, status string")
    filled = solve_column(df, "question")
    assert filled.columns == ["id", "question", "answer", "status", "status_2"]
    filled = filled.orderBy("id").collect()
    assert filled[-2].answer == "kept" and filled[-1].answer is None and filled[-1].status == "x"
    assert all(solves(r.answer, p) for r, p in zip(filled[:-2], puzzles))
    assert filled[-1].status_2 == "invalid: the puzzle is null"
    rated = answer_column(df.withColumnRenamed("answer", "rating"), "question", task="rate", samples=2)
    assert rated.columns == ["id", "question", "rating", "status", "rating_2", "singles", "status_2"]
    # As the CLI's: a solution column of nulls alone (an all-None pandas column) is filled; one
    # of numbers is no solution column (solve adds one beside it), and naming it is refused.
    few = [(i, p) for i, p in enumerate(puzzles[:20])]
    nulls = spark.createDataFrame(few, "id long, question string").selectExpr("id", "question", "NULL AS answer")
    assert dict(nulls.dtypes)["answer"] == "void"
    filled = solve_column(nulls, "question")
    assert filled.columns == ["id", "question", "answer", "status"]
    assert all(solves(r.answer, p) for r, (_, p) in zip(filled.orderBy("id").collect(), few))
    numbers = spark.createDataFrame([(i, p, i) for i, p in few], "id long, question string, answer long")
    assert solve_column(numbers, "question").columns == ["id", "question", "answer", "solution", "status"]
    for task in ("solve", "check"):
        with pytest.raises(ValueError, match="column 'answer' holds bigint, not text"):
            answer_column(numbers, "question", task=task, solution_column="answer")
    # What the engine cannot take is refused on the driver, before any job runs.
    for bad in (dict(limit=0), dict(limit=2**32), dict(seed=-1), dict(samples=0), dict(threads=-1)):
        with pytest.raises(ValueError, match=f"{next(iter(bad))} must be an int from"):
            answer_column(df, "question", task="count", **bad)
    with pytest.raises(ValueError, match="column 'id' holds bigint, not text"):
        answer_column(df, "id")
    with pytest.raises(ValueError, match="names the puzzle column"):
        answer_column(df, "question", solution_column="question")
    with pytest.raises(ValueError, match="names of their own"):
        answer_column(df, "question", task="rate", names=["x", "x"])
    with pytest.raises(ValueError, match="names of their own"):
        answer_column(df, "question", task="canon", output="z", status="z")
    # A table that names no puzzle column: found by its values, whatever the names hold.
    from sudoku_batch.spark import _puzzle_column_by_values

    dotted = spark.createDataFrame([(1, puzzles[0])], "`my.id` long, `the.puzzle` string")
    assert _puzzle_column_by_values(dotted) == "the.puzzle"
    # By the column that is read: the first of a name two columns share.
    twice = spark.createDataFrame([(1, puzzles[0])], "q long, q string")
    with pytest.raises(ValueError, match="column 'q' holds bigint, not text"):
        answer_column(twice, "q")
    # Columns of one name (as a join leaves them) each keep their own data; a name with a dot is
    # a name like any other.
    twins = spark.createDataFrame([(i, -i, p) for i, p in enumerate(puzzles[:50])], ["x", "x", "a.b"])
    got = solve_column(twins, "a.b").collect()
    assert [tuple(r)[:2] for r in got] == [(i, -i) for i in range(50)]
    assert all(solves(r.solution, p) for r, p in zip(got, puzzles))


def test_the_cli_as_a_line_filter_under_rdd_pipe(spark, cli, tmp_path):
    text = mixed_lines(2000)
    src = tmp_path / "puzzles.txt"
    src.write_text(text)
    # --exit-zero: bad records are answered in place and never fail the job.
    piped = spark.sparkContext.textFile(str(src), 4).pipe(f"{cli} solve -q -j 1 --exit-zero -", checkCode=True)
    assert piped.getNumPartitions() == 4
    joined = "\n".join(piped.collect()) + "\n"
    check_line_output(text, joined)
    cli_out = subprocess.run([cli, "solve", "-q", str(src)], capture_output=True, text=True)
    assert joined == cli_out.stdout


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_the_spark_job_finds_an_unnamed_puzzle_column_by_its_values(cli, tmp_path, fmt):
    # No usual name: the CLI takes the column whose first rows hold puzzles (`grid`, not the
    # full grids of `filled` before it), and so must the job.
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
    import pyarrow.parquet as pq

    puzzles = puzzles_of("generated_unique25_2000.txt")[:200]
    filled = sb.solve(puzzles)
    table = pa.table({"id": list(range(len(puzzles))), "filled": filled, "grid": [None] + puzzles[1:]})
    src = tmp_path / f"set.{fmt}"
    if fmt == "csv":
        import pyarrow.csv as pc

        pc.write_csv(table, src)
    else:
        pq.write_table(table, src)
    out = tmp_path / "out"
    job = subprocess.run(
        [sys.executable, "-m", "sudoku_batch.spark", str(src), str(out), "--master", MASTER]
        + ["--task", "canon", "--output-format", "parquet"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert job.returncode == 0, job.stderr[-3000:]
    assert 'names no puzzle column, but column "grid" holds 81-cell puzzles' in job.stderr
    got = pq.read_table(out)
    assert got.column_names == ["id", "filled", "grid", "canonical", "status"]
    assert got["canonical"].to_pylist() == [None] + sb.canon(puzzles[1:])
    # The CLI takes the same column.
    run = subprocess.run([cli, "canon", str(src), "-o", str(tmp_path / f"cli.{fmt}")], capture_output=True, text=True)
    assert run.returncode == 1 and 'column "grid"' in run.stderr, run.stderr  # 1: one invalid record
    if fmt == "csv":
        import csv

        rows = list(csv.reader(open(tmp_path / "cli.csv", newline="")))
        assert rows[0][-2:] == ["canonical", "status"]
        by_cli = [r[-2] or None for r in rows[1:]]
    else:
        by_cli = pq.read_table(tmp_path / "cli.parquet")["canonical"].to_pylist()
    assert by_cli == got["canonical"].to_pylist()
