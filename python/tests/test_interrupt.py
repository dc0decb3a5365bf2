"""Long calls release the GIL and stop within a second on Ctrl-C (SIGINT), leaving no output."""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import sudoku_batch as sb
from conftest import DATA, puzzles_of

# About 2 s of solving on one thread (2,000 puzzles of 2 µs each, 500 times over).
LONG = "puzzles_of('generated_minimal_2000.txt') * 500"


def interrupt(script, tmp_path):
    """Runs `script` (whose long call is the line `CALL`) in a fresh interpreter; sends SIGINT
    once it prints 'go' and 0.3 s have passed; returns (seconds from the signal to the call's
    raising KeyboardInterrupt, exit code, stderr).

    The time is taken inside the child, where the exception arrives (CLOCK_MONOTONIC is one clock
    for every process), so the interpreter's exit and a busy machine's scheduling of the child's
    shutdown do not count: what is timed is how soon the call itself gives up."""
    lines = textwrap.dedent(script).splitlines()
    (at,) = [i for i, line in enumerate(lines) if line.endswith("# CALL")]
    call = lines[at]
    indent = call[: len(call) - len(call.lstrip())]
    lines[at : at + 1] = [
        indent + "try:",
        indent + "    " + call.lstrip(),
        indent + "except KeyboardInterrupt:",
        indent + "    print('raised at', time.monotonic(), file=sys.stderr, flush=True)",
        indent + "    raise",
    ]
    path = tmp_path / "long.py"
    path.write_text("\n".join(["import sys, time", *lines]) + "\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(__file__))
    child = subprocess.Popen([sys.executable, str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    assert child.stdout.readline().strip() == "go"
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, err = child.communicate(timeout=30)
    raised = [float(line.split()[-1]) for line in err.splitlines() if line.startswith("raised at ")]
    assert raised, f"the call did not raise KeyboardInterrupt:\n{err}"
    return raised[0] - sent, child.returncode, err


def test_ctrl_c_stops_a_long_solve_within_a_second(tmp_path):
    took, code, err = interrupt(
        f"""
        import time, sudoku_batch as sb
        from conftest import puzzles_of
        puzzles = {LONG}
        print("go", flush=True)
        t = time.monotonic()
        sb.solve(puzzles, threads=1)  # CALL
        print("finished after", time.monotonic() - t)
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in err, err
    assert code != 0
    assert took < 1.0, f"{took:.2f} s from SIGINT to KeyboardInterrupt"


def test_ctrl_c_stops_a_task_of_slow_records_within_a_second(tmp_path):
    # Each record is 4,096 searches (about 10 ms): a fixed segment of 4,096 records would run
    # for most of a minute before Ctrl-C is looked at.
    took, code, err = interrupt(
        """
        import sudoku_batch as sb
        from conftest import puzzles_of
        puzzles = puzzles_of('generated_minimal_2000.txt') * 4
        print("go", flush=True)
        sb.rate(puzzles, samples=4096, threads=1)  # CALL
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in err, err
    assert took < 1.0, f"{took:.2f} s from SIGINT to KeyboardInterrupt"


@pytest.mark.parametrize("kind", ["list", "arrow"])
def test_ctrl_c_stops_a_count_to_a_high_limit_within_a_second(tmp_path, kind):
    # Each record is an empty grid counted to 500,000 solutions (a fraction of a second): taken
    # for a fast task, a first segment of 16 records (64 from Arrow) would run for seconds.
    if kind == "arrow":
        pytest.importorskip("pyarrow")
    took, code, err = interrupt(
        f"""
        import sudoku_batch as sb
        puzzles = ["." * 81] * 1000
        if {kind!r} == "arrow":
            import pyarrow as pa
            puzzles = pa.array(puzzles)
        print("go", flush=True)
        sb.count(puzzles, limit=500_000, threads=1)  # CALL
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in err, err
    assert took < 1.0, f"{took:.2f} s from SIGINT to KeyboardInterrupt"


def test_ctrl_c_stops_solve_file_and_leaves_no_output(tmp_path):
    src = tmp_path / "big.txt"
    src.write_text("\n".join(puzzles_of("generated_minimal_2000.txt") * 500) + "\n")
    out = tmp_path / "out.txt"
    took, code, err = interrupt(
        f"""
        import sudoku_batch as sb
        print("go", flush=True)
        sb.solve_file({str(src)!r}, {str(out)!r}, threads=1)  # CALL
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in err, err
    assert took < 1.0, f"{took:.2f} s from SIGINT to KeyboardInterrupt"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "long.py"], "no output, no temporary file"


@pytest.mark.parametrize("table", [False, True])
def test_ctrl_c_stops_solve_file_of_slow_records_and_its_workers(tmp_path, table):
    # 8,000 records of 4,096 searches each (about 10 ms a record): the run must not finish the
    # block or the table's batch it is in (minutes of work) before it stops, nor let its
    # workers go on with them after the exception.
    puzzles = puzzles_of("generated_minimal_2000.txt") * 4
    if table:
        pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
        import pyarrow.parquet as pq

        src = tmp_path / "slow.parquet"
        pq.write_table(pa.table({"question": puzzles}), src)
    else:
        src = tmp_path / "slow.txt"
        src.write_text("\n".join(puzzles) + "\n")
    out = tmp_path / "out.txt"
    took, code, err = interrupt(
        f"""
        import atexit, time, sudoku_batch as sb

        def burned():
            # CPU time of the whole process over half a second after the exception.
            start = time.process_time()
            time.sleep(0.5)
            print("burned", time.process_time() - start, file=sys.stderr, flush=True)

        atexit.register(burned)
        print("go", flush=True)
        sb.solve_file({str(src)!r}, {str(out)!r}, task="rate", samples=4096, threads=2)  # CALL
        """,
        tmp_path,
    )
    assert "KeyboardInterrupt" in err, err
    assert took < 1.0, f"{took:.2f} s from SIGINT to KeyboardInterrupt"
    (burned,) = [float(line.split()[-1]) for line in err.splitlines() if line.startswith("burned ")]
    assert burned < 0.2, f"the workers went on: {burned:.2f} s of CPU in the half second after"
    assert not out.exists()


@pytest.mark.parametrize("kind", ["list", "arrow"])
def test_the_gil_is_released_while_solving(kind):
    puzzles = puzzles_of("generated_minimal_2000.txt") * 100
    if kind == "arrow":
        pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install pyarrow)")
        puzzles = pa.chunked_array([puzzles[:50_000], puzzles[50_000:]])
    ticks = 0
    done = threading.Event()

    def count_ticks():
        nonlocal ticks
        while not done.is_set():
            ticks += 1
            time.sleep(0)  # yields the GIL: counts how often this thread got it

    ticker = threading.Thread(target=count_ticks)
    ticker.start()
    start = time.monotonic()
    sb.solve(puzzles, threads=1)
    elapsed = time.monotonic() - start
    done.set()
    ticker.join()
    # A thread that never got the GIL would tick a handful of times at each boundary of the
    # segments the call solves with the GIL released (4,096 puzzles each); one that runs beside
    # the solve ticks hundreds of times per segment, even on a loaded machine (a count, not
    # a rate, so a slow machine does not fail it).
    segments = -(-len(puzzles) // 4096)
    assert elapsed > 0.1
    assert ticks > 10 * segments, f"{ticks} ticks in {elapsed:.2f} s over {segments} segments"
