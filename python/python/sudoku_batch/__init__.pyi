# Types of the public API. Answers come back in the kind of the input: the overloads type the
# list and NumPy routes; pandas, Arrow and polars inputs give `Any` (their answers are a Series
# or an Arrow array of the input's kind; see the docstrings).
import os
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__all__ = ["solve", "count", "check", "canon", "rate", "grade", "dedupe", "solve_file"]
__version__: str

# A sequence of puzzle strings (list, tuple); a `None` in it is an invalid record.
_Records = Sequence[Optional[Union[str, bytes]]]
# Cell values (0 blank) or ASCII text, shape (N, 81).
_Cells = npt.NDArray[np.uint8]
_Puzzles = Union[_Records, _Cells, Any]
_PathArg = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_Statuses = List[str]

@overload
def solve(
    puzzles: _Cells, *, threads: Optional[int] = ..., lexmin: bool = ..., with_status: Literal[False] = ...
) -> _Cells: ...
@overload
def solve(
    puzzles: _Cells, *, threads: Optional[int] = ..., lexmin: bool = ..., with_status: Literal[True]
) -> Tuple[_Cells, _Statuses]: ...
@overload
def solve(
    puzzles: _Records, *, threads: Optional[int] = ..., lexmin: bool = ..., with_status: Literal[False] = ...
) -> List[Optional[str]]: ...
@overload
def solve(
    puzzles: _Records, *, threads: Optional[int] = ..., lexmin: bool = ..., with_status: Literal[True]
) -> Tuple[List[Optional[str]], _Statuses]: ...
@overload
def solve(puzzles: Any, *, threads: Optional[int] = ..., lexmin: bool = ..., with_status: bool = ...) -> Any: ...
@overload
def count(
    puzzles: _Cells, *, limit: int = ..., threads: Optional[int] = ..., with_status: Literal[False] = ...
) -> npt.NDArray[np.int32]: ...
@overload
def count(
    puzzles: _Cells, *, limit: int = ..., threads: Optional[int] = ..., with_status: Literal[True]
) -> Tuple[npt.NDArray[np.int32], _Statuses]: ...
@overload
def count(
    puzzles: _Records, *, limit: int = ..., threads: Optional[int] = ..., with_status: Literal[False] = ...
) -> List[Optional[int]]: ...
@overload
def count(
    puzzles: _Records, *, limit: int = ..., threads: Optional[int] = ..., with_status: Literal[True]
) -> Tuple[List[Optional[int]], _Statuses]: ...
@overload
def count(puzzles: Any, *, limit: int = ..., threads: Optional[int] = ..., with_status: bool = ...) -> Any: ...
@overload
def check(
    puzzles: Union[_Records, _Cells],
    solutions: Union[_Records, _Cells],
    *,
    unique: bool = ...,
    threads: Optional[int] = ...,
    with_status: Literal[False] = ...,
) -> List[bool]: ...
@overload
def check(
    puzzles: Union[_Records, _Cells],
    solutions: Union[_Records, _Cells],
    *,
    unique: bool = ...,
    threads: Optional[int] = ...,
    with_status: Literal[True],
) -> Tuple[List[bool], _Statuses]: ...
@overload
def check(
    puzzles: Any, solutions: Any, *, unique: bool = ..., threads: Optional[int] = ..., with_status: bool = ...
) -> Any: ...
@overload
def canon(
    puzzles: Union[_Records, _Cells], *, threads: Optional[int] = ..., with_status: Literal[False] = ...
) -> List[Optional[str]]: ...
@overload
def canon(
    puzzles: Union[_Records, _Cells], *, threads: Optional[int] = ..., with_status: Literal[True]
) -> Tuple[List[Optional[str]], _Statuses]: ...
@overload
def canon(puzzles: Any, *, threads: Optional[int] = ..., with_status: bool = ...) -> Any: ...
@overload
def rate(
    puzzles: Union[_Records, _Cells],
    *,
    samples: int = ...,
    seed: int = ...,
    threads: Optional[int] = ...,
    with_status: Literal[False] = ...,
) -> List[Optional[float]]: ...
@overload
def rate(
    puzzles: Union[_Records, _Cells],
    *,
    samples: int = ...,
    seed: int = ...,
    threads: Optional[int] = ...,
    with_status: Literal[True],
) -> Tuple[List[Optional[float]], _Statuses]: ...
@overload
def rate(
    puzzles: Any, *, samples: int = ..., seed: int = ..., threads: Optional[int] = ..., with_status: bool = ...
) -> Any: ...
@overload
def grade(
    puzzles: Union[_Records, _Cells], *, threads: Optional[int] = ..., with_status: bool = ..., nested: bool = ...
) -> Dict[str, List[Any]]: ...
@overload
def grade(puzzles: Any, *, threads: Optional[int] = ..., with_status: bool = ..., nested: bool = ...) -> Dict[str, Any]: ...
@overload
def dedupe(
    puzzles: Union[_Records, _Cells],
    *,
    exact: bool = ...,
    against: Optional[_Puzzles] = ...,
    threads: Optional[int] = ...,
) -> List[bool]: ...
@overload
def dedupe(puzzles: Any, *, exact: bool = ..., against: Optional[_Puzzles] = ..., threads: Optional[int] = ...) -> Any: ...
def solve_file(
    input: _PathArg,
    output: _PathArg,
    *,
    task: Literal["solve", "count", "check", "canon", "rate", "grade", "dedupe"] = ...,
    format: Literal["auto", "line", "grid", "csv"] = ...,
    output_format: Literal["auto", "line", "csv", "parquet", "arrow"] = ...,
    column: Optional[str] = ...,
    lexmin: bool = ...,
    limit: int = ...,
    unique: bool = ...,
    threads: Optional[int] = ...,
    max_messages: int = ...,
    shard: Optional[Tuple[int, int]] = ...,
    solution_column: Optional[str] = ...,
    samples: int = ...,
    seed: int = ...,
    exact: bool = ...,
    against: Optional[_PathArg] = ...,
    keep_solution_column: bool = ...,
    against_column: Optional[str] = ...,
    nested: bool = ...,
) -> Dict[str, Any]: ...
