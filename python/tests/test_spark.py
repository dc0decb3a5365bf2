"""Both Spark routes on a real local Spark (`local[2]`): the package inside mapInPandas (the
`python -m sudoku_batch.spark` job and `solve_column` in a user's job), and the CLI as a strict
line filter under `rdd.pipe(..., checkCode=True)`. Outputs are checked record by record."""

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
    session = SparkSession.builder.master(MASTER).appName("sudoku-batch-tests").getOrCreate()
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


def test_the_spark_job_on_csv_keeps_every_column(tmp_path):
    import csv

    puzzles = puzzles_of("generated_unique25_2000.txt")[:500]
    src = tmp_path / "set.csv"
    with open(src, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["source", "question", "answer", "rating"])
        for i, p in enumerate(puzzles):
            w.writerow([f"gen{i}", p if i % 50 != 9 else "xyz", "", i % 7])
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
    assert header == "source,question,answer,rating,status\n"
    rows = list(csv.reader("".join((out / p).read_text() for p in part_files(out)).splitlines()))
    assert len(rows) == len(puzzles)
    for i, (row, p) in enumerate(zip(rows, puzzles)):
        assert row[0] == f"gen{i}" and row[3] == str(i % 7)
        if i % 50 == 9:
            assert row[2] == "" and row[4] == "invalid: expected 81 cells, found 3"
        else:
            assert row[1] == p and solves(row[2], p) and row[4] == "solved"


@pytest.mark.parametrize("task", [["count"], ["check"], ["canon"], ["rate", "--samples", "3"]])
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
