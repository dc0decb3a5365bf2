"""The type stubs: they match the functions at run time (mypy's stubtest), and a type checker
gives a user's code the answers' types for list and NumPy inputs."""

import subprocess
import sys
import textwrap

import pytest

mypy_version = pytest.importorskip("mypy.version", reason="mypy is not installed (CI installs it)")
if tuple(int(p) for p in mypy_version.__version__.split(".")[:2]) < (1, 13):
    pytest.skip(f"mypy {mypy_version.__version__} is older than 1.13", allow_module_level=True)
from mypy import api as mypy_api  # noqa: E402

CONFIG = """
[mypy]
ignore_missing_imports = True
# The Spark job is not part of the typed API.
[mypy-sudoku_batch.spark]
ignore_errors = True
"""


def test_the_stubs_match_the_functions_at_run_time(tmp_path):
    (tmp_path / "mypy.ini").write_text(CONFIG)
    (tmp_path / "allowlist.txt").write_text("sudoku_batch\\.spark.*\n")
    out = subprocess.run(
        [
            sys.executable, "-m", "mypy.stubtest", "sudoku_batch",
            "--mypy-config-file", str(tmp_path / "mypy.ini"),
            "--allowlist", str(tmp_path / "allowlist.txt"),
            "--ignore-unused-allowlist",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_type_checker_sees_the_answers_types(tmp_path):
    # `assert_type` fails the check when the inferred type is another, whatever the spelling
    # of types in the mypy and NumPy releases installed.
    code = textwrap.dedent(
        """
        from typing import Any, Dict, List, Optional, Tuple

        import numpy as np
        import numpy.typing as npt
        from typing_extensions import assert_type

        import sudoku_batch as sb

        puzzles: List[str] = []
        cells = np.zeros((1, 81), dtype=np.uint8)
        assert_type(sb.solve(puzzles), List[Optional[str]])
        assert_type(sb.solve(tuple(puzzles), with_status=True), Tuple[List[Optional[str]], List[str]])
        assert_type(sb.solve(cells), npt.NDArray[np.uint8])
        assert_type(sb.count(cells, with_status=True), Tuple[npt.NDArray[np.int32], List[str]])
        assert_type(sb.count(puzzles), List[Optional[int]])
        assert_type(sb.rate(puzzles), List[Optional[float]])
        assert_type(sb.canon(cells), List[Optional[str]])
        assert_type(sb.check(puzzles, puzzles), List[bool])
        assert_type(sb.dedupe(puzzles), List[bool])
        assert_type(sb.grade(puzzles), Dict[str, List[Any]])
        assert_type(sb.solve_file("in.txt", "out.txt"), Dict[str, Any])
        sb.solve_file("in.txt", "out.txt", task="slove")
        """
    )
    (tmp_path / "user.py").write_text(code)
    (tmp_path / "mypy.ini").write_text(CONFIG)
    stdout, _, _ = mypy_api.run(
        ["--config-file", str(tmp_path / "mypy.ini"), "--cache-dir", str(tmp_path / "cache"), str(tmp_path / "user.py")]
    )
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    # The one error: a task that does not exist, caught before the run.
    assert len(errors) == 1 and "user.py:23:" in errors[0] and "slove" in errors[0], stdout
