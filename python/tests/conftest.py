"""Shared helpers: the shipped puzzle files, an independent checker written from the rules of
Sudoku (no code shared with the engine), and the CLI binary for side-by-side checks."""

import os
import pathlib
import shutil

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "data"

UNITS = (
    [[r * 9 + c for c in range(9)] for r in range(9)]
    + [[r * 9 + c for r in range(9)] for c in range(9)]
    + [
        [(br * 3 + r) * 9 + bc * 3 + c for r in range(3) for c in range(3)]
        for br in range(3)
        for bc in range(3)
    ]
)

PUZZLE = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"
SOLUTION = "534678912672195348198342567859761423426853791713924856961537284287419635345286179"


def puzzles_of(name):
    """The puzzles of a shipped line-format file (first 81 characters of each record line)."""
    lines = (DATA / name).read_text().splitlines()
    return [l.strip()[:81] for l in lines if l.strip() and not l.lstrip().startswith("#")]


def solves(solution, puzzle):
    """True if `solution` is a complete valid grid that keeps every given of `puzzle`."""
    if not isinstance(solution, str) or len(solution) != 81 or not solution.isdigit():
        return False
    if any(set(solution[i] for i in unit) != set("123456789") for unit in UNITS):
        return False
    return all(p in ".0" or p == s for p, s in zip(puzzle, solution))


def has_solution(puzzle):
    """Plain backtracking on the most constrained cell: does `puzzle` have a solution?"""
    g = [0 if c in ".0" else int(c) for c in puzzle]
    peers = [set() for _ in range(81)]
    for unit in UNITS:
        for i in unit:
            peers[i].update(j for j in unit if j != i)
    if any(g[i] and any(g[j] == g[i] for j in peers[i]) for i in range(81)):
        return False

    def search():
        best = None
        for i in range(81):
            if not g[i]:
                options = set(range(1, 10)) - {g[j] for j in peers[i]}
                if best is None or len(options) < len(best[1]):
                    best = (i, options)
        if best is None:
            return True
        i, options = best
        for d in options:
            g[i] = d
            if search():
                return True
        g[i] = 0
        return False

    return search()


@pytest.fixture(scope="session")
def cli():
    """The CLI binary: $SUDOKU_BATCH_BIN, else target/release/sudoku-batch of this checkout."""
    path = os.environ.get("SUDOKU_BATCH_BIN") or str(REPO / "target" / "release" / "sudoku-batch")
    if not os.path.isfile(path):
        if os.environ.get("CI"):
            pytest.fail(f"the CLI binary is missing at {path} (build it with cargo build --release)")
        pytest.skip(f"the CLI binary is not built at {path} (cargo build --release)")
    return path
