"""The dataset tools from Python: canon, rate and dedupe, checked against the CLI and against an
independent isomorph transform written here; solve_file on a sudoku-extreme-style CSV."""

import csv
import random
import subprocess

import numpy as np
import pytest

import sudoku_batch as sb
from conftest import puzzles_of, solves

HARD = "100007090030020008009600500005300900010080002600004000300000010040000007007000300"


def isomorph(puzzle, rng):
    """A random isomorph: bands, rows, stacks, columns, transposition, digit relabelling."""
    def order():
        return [o * 3 + i for o in rng.sample(range(3), 3) for i in rng.sample(range(3), 3)]

    rows, cols, digits = order(), order(), rng.sample("123456789", 9)
    transpose = rng.random() < 0.5
    out = []
    for r in range(9):
        for c in range(9):
            rr, cc = (c, r) if transpose else (r, c)
            v = puzzle[rows[rr] * 9 + cols[cc]]
            out.append("0" if v in ".0" else digits[int(v) - 1])
    return "".join(out)


def test_canon_is_a_class_invariant_and_matches_the_cli(cli, tmp_path):
    puzzles = puzzles_of("generated_unique25_2000.txt")[:300]
    rng = random.Random(4)
    forms = sb.canon(puzzles, threads=3)
    assert forms == sb.canon([isomorph(p, rng) for p in puzzles])
    assert len(set(forms)) == len(puzzles)
    path = tmp_path / "p.txt"
    path.write_text("\n".join(puzzles) + "\n")
    out = subprocess.run([cli, "canon", "-q", str(path)], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == forms
    array = np.array([[0 if c in ".0" else int(c) for c in p] for p in puzzles[:5]], dtype=np.uint8)
    assert sb.canon(array) == forms[:5]
    forms, statuses = sb.canon(["bad", None, puzzles[0]], with_status=True)
    assert forms[:2] == [None, None] and statuses[2] == "ok"
    assert statuses[0].startswith("invalid: ")


def test_rate_is_seeded_and_matches_the_cli(cli, tmp_path):
    puzzles = puzzles_of("generated_minimal_2000.txt")[:60] + [HARD]
    ratings = sb.rate(puzzles, samples=4, threads=1)
    assert ratings == sb.rate(puzzles, samples=4, threads=4)
    assert ratings[-1] > 0 and all(isinstance(r, float) for r in ratings)
    rng = random.Random(9)
    assert ratings == sb.rate([isomorph(p, rng) for p in puzzles], samples=4)
    path = tmp_path / "p.txt"
    path.write_text("\n".join(puzzles) + "\n")
    out = subprocess.run([cli, "rate", "-q", "--samples", "4", str(path)], capture_output=True, text=True)
    assert out.stdout.splitlines() == [f"{r:.2f}" for r in ratings]
    assert sb.rate(["12345678.........9" + "." * 63]) == [None]


def test_dedupe_mask_keeps_the_first_of_each_class_and_drops_leaks():
    puzzles = puzzles_of("generated_unique25_2000.txt")[:50]
    rng = random.Random(2)
    records = puzzles + [isomorph(p, rng) for p in puzzles[:10]] + ["bad", puzzles[3]]
    keep = sb.dedupe(records)
    assert keep == [True] * 50 + [False] * 10 + [True, False]
    exact = sb.dedupe(records, exact=True)
    assert exact == [True] * 60 + [True, False]
    against = sb.dedupe(puzzles[20:30], against=[isomorph(p, rng) for p in puzzles[:25]])
    assert against == [False] * 5 + [True] * 5


def test_solve_file_keeps_every_column_of_a_sudoku_extreme_table(tmp_path):
    puzzles = puzzles_of("generated_unique25_2000.txt")[:20]
    src = tmp_path / "extreme.csv"
    with open(src, "w", newline="", encoding="utf-8-sig") as f:  # with a byte-order mark
        w = csv.writer(f)
        w.writerow(["source", "question", "answer", "rating"])
        for i, p in enumerate(puzzles):
            w.writerow([f"src,{i}", p, "", i])
    out = tmp_path / "solved.csv"
    summary = sb.solve_file(src, out)
    assert summary["format"] == "csv" and summary["solved"] == 20
    rows = list(csv.reader(open(out, newline="")))
    assert rows[0] == ["source", "question", "answer", "rating", "status"]
    assert all(solves(r[2], r[1]) and r[0] == f"src,{i}" for i, r in enumerate(rows[1:]))
    rated = tmp_path / "rated.csv"
    sb.solve_file(src, rated, task="rate", samples=2)
    # The table has its own `rating`: ours takes the next free name.
    assert list(csv.reader(open(rated)))[0][-3:] == ["rating_2", "singles", "status"]
    deduped = tmp_path / "deduped.csv"
    summary = sb.solve_file(src, deduped, task="dedupe", against=src)
    assert summary["duplicates"] == 20
    # As the CLI's --stats json: kept records, no `solved` (dedupe answers nothing).
    assert summary["kept"] == 0 and "solved" not in summary
    assert summary["against_unread"] == 0 and summary["against_first"] is None
    assert summary["against_note"] is None
    assert open(deduped).read() == "source,question,answer,rating\n"
    # A malformed record of the other file is counted and the first named by file and line.
    other = tmp_path / "other.txt"
    other.write_text(puzzles[0] + "\nx\n")
    summary = sb.solve_file(src, deduped, task="dedupe", against=other)
    assert summary["against_unread"] == 1
    assert summary["against_first"] == f"{other}:2: invalid: expected 81 cells, found 1"
    # The other file's puzzle column by name: its first column holds puzzles too.
    split = tmp_path / "split.csv"
    split.write_text(f"old,new\n{puzzles[5]},{puzzles[0]}\n")
    summary = sb.solve_file(src, deduped, task="dedupe", against=split)
    assert summary["duplicates"] == 1 and open(deduped).read().count("\n") == 20
    # Two columns of puzzles and no usual name: the first is taken, and the note says so.
    assert '"old"' in summary["against_note"], summary["against_note"]
    summary = sb.solve_file(src, deduped, task="dedupe", against=split, against_column="new")
    assert summary["duplicates"] == 1 and puzzles[0] not in open(deduped).read()
    with pytest.raises(ValueError, match='no column named "nope"'):
        sb.solve_file(src, deduped, task="dedupe", against=split, against_column="nope")
