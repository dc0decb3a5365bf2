# Type stubs of the native module (python/src/lib.rs). Use the functions of `sudoku_batch`,
# which check and normalize their arguments; these are the engine's entry points.
from typing import Any, Dict, List, Optional, Tuple, final

import numpy as np
import numpy.typing as npt

PUZZLE_NAMES: List[str]
SOLUTION_NAMES: List[str]
STATUS: str
TASK_NAMES: List[str]
GRADE_VERSION: int
RATE_VERSION: int

__all__ = [
    "Options",
    "answer_lines",
    "detect_format",
    "csv_separator",
    "line_header",
    "result_columns",
    "puzzle_column_by_values",
    "PUZZLE_NAMES",
    "SOLUTION_NAMES",
    "STATUS",
    "TASK_NAMES",
    "GRADE_VERSION",
    "RATE_VERSION",
    "run_list",
    "solve_array",
    "count_array",
    "run_file",
    "dedupe_list",
    "cell_encoding",
    "run_arrow",
    "dedupe_arrow",
]

@final
class Options:
    """Everything a call may set: the task (solve, count, check, canon, rate, dedupe) and its
    options, threads (0: one per core), and for files the format, columns, message cap, shard
    and dedupe's `against` file and its puzzle column. Raises ValueError for an unknown task or format, a zero limit
    or sample count, or a shard that is not (k, n) with 1 <= k <= n."""

    def __new__(
        cls,
        task: str,
        *,
        threads: int = 0,
        with_status: bool = False,
        with_columns: bool = False,
        text_columns: bool = False,
        lexmin: bool = False,
        limit: int = 2,
        unique: bool = False,
        samples: int = 16,
        seed: int = 0,
        exact: bool = False,
        nested: bool = False,
        format: str = "auto",
        output_format: str = "auto",
        column: Optional[str] = None,
        solution_column: Optional[str] = None,
        keep_solution_column: bool = False,
        max_messages: int = 20,
        shard: Optional[Tuple[int, int]] = None,
        against: Optional[str] = None,
        against_column: Optional[str] = None,
    ) -> "Options": ...

def run_list(
    puzzles: List[Any], solutions: Optional[List[Any]], options: Options
) -> Tuple[List[Any], Optional[List[str]]]: ...
def dedupe_list(puzzles: List[Any], against: Optional[List[Any]], options: Options) -> List[bool]: ...
def solve_array(
    puzzles: npt.NDArray[np.uint8], options: Options
) -> Tuple[npt.NDArray[np.uint8], Optional[List[str]]]: ...
def count_array(
    puzzles: npt.NDArray[np.uint8], options: Options
) -> Tuple[npt.NDArray[np.int32], Optional[List[str]]]: ...
def run_arrow(puzzles: Any, solutions: Optional[Any], options: Options) -> List[Any]:
    """Any task but dedupe over an Arrow column of strings (an object with `__arrow_c_array__`
    or `__arrow_c_stream__`), and for check an Arrow column of solutions of the same length,
    read in place with the GIL released. Returns the answer column (with `with_columns`, each
    result column instead; with `text_columns` too, each as the CLI's CSV text, such as `2+`)
    and, with `with_status`, the statuses: each an object with
    `__arrow_c_array__` if the puzzles were one array, else one with `__arrow_c_stream__` (a
    chunk per puzzle chunk). TypeError for a column that is not text; ValueError for lengths
    that differ."""
    ...

def dedupe_arrow(puzzles: Any, against: Optional[Any], options: Options) -> Any:
    """Dedupe over Arrow columns: a boolean Arrow column, True for the records to keep."""
    ...

def cell_encoding(puzzles: npt.NDArray[np.uint8]) -> str:
    """"values" (0-9, 0 blank) or "ascii" ('0'-'9', '.'): how a uint8 (N, 81) array holds its
    cells. ValueError if it holds both."""
    ...

def run_file(input: str, output: str, options: Options) -> Dict[str, Any]: ...
def answer_lines(text: bytes, options: Options) -> bytes: ...
def detect_format(prefix: bytes, column: Optional[str] = None) -> str: ...
def csv_separator(header: bytes) -> str: ...
def line_header(prefix: bytes, complete: bool) -> Optional[Tuple[int, int]]: ...
def result_columns(task: str) -> List[Tuple[str, str]]: ...
def puzzle_column_by_values(batch: Any) -> Optional[int]: ...
