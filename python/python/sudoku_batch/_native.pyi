# Type stubs of the native module (python/src/lib.rs). Use the functions of `sudoku_batch`,
# which check and normalize their arguments; these are the engine's entry points.
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import numpy.typing as npt

def run_list(
    puzzles: List[Any],
    solutions: Optional[List[Any]],
    task_name: str,
    threads: int,
    lexmin: bool,
    limit: int,
    unique: bool,
    with_status: bool,
    samples: int = 16,
    seed: int = 0,
    exact: bool = False,
) -> Tuple[List[Any], Optional[List[str]]]: ...
def dedupe_list(
    puzzles: List[Any], against: Optional[List[Any]], threads: int, exact: bool
) -> List[bool]: ...
def solve_array(
    puzzles: npt.NDArray[np.uint8], threads: int, lexmin: bool, with_status: bool
) -> Tuple[npt.NDArray[np.uint8], Optional[List[str]]]: ...
def count_array(
    puzzles: npt.NDArray[np.uint8], threads: int, limit: int, with_status: bool
) -> Tuple[npt.NDArray[np.int32], Optional[List[str]]]: ...
def run_file(
    input: str,
    output: str,
    task_name: str,
    format: str,
    column: Optional[str],
    threads: int,
    lexmin: bool,
    limit: int,
    unique: bool,
    max_messages: int,
    shard: Optional[Tuple[int, int]],
    solution_column: Optional[str] = None,
    samples: int = 16,
    seed: int = 0,
    exact: bool = False,
    against: Optional[str] = None,
) -> Dict[str, Any]: ...
