"""The type stubs: they match the functions at run time (mypy's stubtest), and a type checker
gives a user's code the answers' types for list and NumPy inputs."""

import textwrap

import pytest

mypy_api = pytest.importorskip("mypy.api", reason="mypy is not installed (CI installs it)")

CONFIG = """
[mypy]
ignore_missing_imports = True
# The Spark job is not part of the typed API.
[mypy-sudoku_batch.spark]
ignore_errors = True
"""


def test_the_stubs_match_the_functions_at_run_time(tmp_path):
    import subprocess
    import sys

    config = tmp_path / "mypy.ini"
    config.write_text(CONFIG)
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "sudoku_batch", "--mypy-config-file", str(config)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_type_checker_sees_the_answers_types(tmp_path):
    code = textwrap.dedent(
        """
        import numpy as np
        import sudoku_batch as sb

        puzzles: list[str] = []
        cells = np.zeros((1, 81), dtype=np.uint8)
        reveal_type(sb.solve(puzzles))
        reveal_type(sb.solve(puzzles, with_status=True))
        reveal_type(sb.solve(cells))
        reveal_type(sb.count(cells, with_status=True))
        reveal_type(sb.count(puzzles))
        reveal_type(sb.rate(puzzles))
        reveal_type(sb.canon(cells))
        reveal_type(sb.check(puzzles, puzzles))
        reveal_type(sb.dedupe(puzzles))
        reveal_type(sb.grade(puzzles)["se_estimate"])
        reveal_type(sb.solve_file("in.txt", "out.txt")["records"])
        sb.solve_file("in.txt", "out.txt", task="slove")
        """
    )
    (tmp_path / "user.py").write_text(code)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    stdout, _, _ = mypy_api.run(
        ["--config-file", str(tmp_path / "mypy.ini"), "--cache-dir", str(tmp_path / "cache"), str(tmp_path / "user.py")]
    )
    revealed = [
        line.split('Revealed type is "')[1].rstrip('"').replace("builtins.", "")
        for line in stdout.splitlines()
        if "Revealed type" in line
    ]

    def array_of(t, *names):  # numpy spells dtypes differently from one release to the next
        return t.startswith("numpy.ndarray[") and any(name in t for name in names)

    assert len(revealed) == 11, stdout
    assert revealed[0] == "list[str | None]", stdout
    assert revealed[1] == "tuple[list[str | None], list[str]]", stdout
    assert array_of(revealed[2], "uint8", "unsignedinteger[numpy._typing._nbit_base._8Bit]"), stdout
    assert revealed[3].startswith("tuple[numpy.ndarray[") and revealed[3].endswith(", list[str]]"), stdout
    assert array_of(revealed[3][len("tuple[") :], "int32", "signedinteger[numpy._typing._nbit_base._32Bit]"), stdout
    assert revealed[4:] == [
        "list[int | None]",
        "list[float | None]",
        "list[str | None]",
        "list[bool]",
        "list[bool]",
        "list[Any]",
        "Any",
    ], stdout
    # A task that does not exist is caught before the run.
    assert "user.py:18: error:" in stdout and "slove" in stdout, stdout
