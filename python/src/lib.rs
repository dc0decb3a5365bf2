//! `sudoku_batch._native`: the thin PyO3 layer over the `sudoku_batch` engine. The Python
//! package (`sudoku_batch/__init__.py`) normalizes inputs and calls these functions.
//!
//! Batches of puzzles (a list of `str`/`bytes`, or a `uint8` array of shape `(N, 81)`) are
//! answered in segments: each segment is read from Python with the GIL held, answered on a rayon
//! pool with the GIL released, and written back; between segments pending signals are checked,
//! so Ctrl-C raises `KeyboardInterrupt` within a segment's time (well under a second).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{
    PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyPermissionError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use rayon::prelude::*;

use sudoku_batch::batch::{self, BatchError, Config, Input, Observer, Output, Shard};
use sudoku_batch::dataset::dedupe::Seen;
use sudoku_batch::formats::{
    answer, detect, BlockOut, Format, FormatChoice, Invalid, Message, Outcome, Task,
};
use sudoku_batch::grid::{Grid, CELLS};

/// Puzzles per segment: small enough that a segment of the hardest public puzzles (about 110 µs
/// each for a uniqueness count) ends within half a second on one thread, large enough that the
/// GIL round trips cost nothing.
const SEGMENT: usize = 4096;

/// One record as read from Python: the puzzle (or why it is not one) and, for `check`, the
/// solution text it carries.
struct Item {
    puzzle: Result<Grid, Invalid>,
    solution: Option<Vec<u8>>,
}

/// Answers, and their statuses when asked for.
type Answered<'py, T> = PyResult<(Bound<'py, T>, Option<Bound<'py, PyList>>)>;

/// Rayon pools by thread count.
type Pools = Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>>;

/// The pool for `threads` workers (0: one per core), built once per thread count.
fn pool(threads: usize) -> PyResult<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Pools> = OnceLock::new();
    let mut pools = POOLS
        .get_or_init(Default::default)
        .lock()
        .expect("pool cache");
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(Arc::clone(p));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("sudoku-batch-py-{i}"))
        .build()
        .map_err(|e| PyOSError::new_err(format!("cannot start {threads} threads: {e}")))?;
    let p = Arc::new(p);
    pools.push((threads, Arc::clone(&p)));
    Ok(p)
}

/// The knobs of every task; each task reads its own.
#[derive(Clone, Copy)]
struct Knobs {
    lexmin: bool,
    limit: u32,
    unique: bool,
    samples: u32,
    seed: u64,
    exact: bool,
}

fn task(name: &str, k: Knobs) -> PyResult<Task> {
    match name {
        "solve" => Ok(Task::Solve { lexmin: k.lexmin }),
        "count" if k.limit == 0 => Err(PyValueError::new_err("limit must be at least 1")),
        "count" => Ok(Task::Count { limit: k.limit }),
        "check" => Ok(Task::Check { unique: k.unique }),
        "canon" => Ok(Task::Canon),
        "rate" if k.samples == 0 => Err(PyValueError::new_err("samples must be at least 1")),
        "rate" => Ok(Task::Rate {
            samples: k.samples,
            seed: k.seed,
        }),
        "dedupe" => Ok(Task::Dedupe { exact: k.exact }),
        other => Err(PyValueError::new_err(format!(
            "task must be 'solve', 'count', 'check', 'canon', 'rate' or 'dedupe', not {other:?}"
        ))),
    }
}

/// Answers `items` on the pool with the GIL released.
fn answer_all(
    py: Python<'_>,
    pool: &rayon::ThreadPool,
    task: Task,
    items: &[Item],
) -> Vec<Outcome> {
    py.detach(|| {
        pool.install(|| {
            items
                .par_iter()
                .with_min_len(16)
                .map(|item| match &item.puzzle {
                    Ok(grid) => answer(task, grid, item.solution.as_deref()),
                    Err(invalid) => Outcome::Invalid(*invalid),
                })
                .collect()
        })
    })
}

/// Reads the text of `str` and `bytes` records.
struct TextReader {
    /// Python 3.10 or later: `PyUnicode_AsUTF8AndSize` is in the limited API there and gives the
    /// string's own UTF-8 buffer, with no copy; on 3.9 a `str` is encoded to a temporary `bytes`.
    /// (Not on Windows, where an abi3 module links against python3.dll, whose 3.9 version does
    /// not export the function.)
    borrow_utf8: bool,
}

#[cfg(not(windows))]
extern "C" {
    // Declared here because pyo3-ffi declares it only for builds that require 3.10; it is called
    // only when the running interpreter is 3.10 or later (`TextReader::borrow_utf8`).
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut pyo3::ffi::PyObject,
        size: *mut pyo3::ffi::Py_ssize_t,
    ) -> *const std::ffi::c_char;
}

impl TextReader {
    fn new(py: Python<'_>) -> TextReader {
        TextReader {
            borrow_utf8: cfg!(not(windows)) && py.version_info() >= (3, 10),
        }
    }

    /// The record's puzzle (or why it is not one): the text of a `str` or `bytes`, surrounding
    /// whitespace ignored.
    fn puzzle(&self, item: &Bound<'_, PyAny>) -> Result<Grid, Invalid> {
        self.with_text(item, |text| match text {
            Some(t) => Grid::parse(t.trim_ascii()).map_err(Invalid::from),
            None => Err(Invalid::NotText),
        })
    }

    /// The record's text as owned bytes (`check` solutions); `None` if it is not text.
    fn owned(&self, item: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
        self.with_text(item, |text| text.map(|t| t.trim_ascii().to_vec()))
    }

    fn with_text<R>(&self, item: &Bound<'_, PyAny>, f: impl FnOnce(Option<&[u8]>) -> R) -> R {
        if let Ok(s) = item.cast::<PyString>() {
            #[cfg(not(windows))]
            if self.borrow_utf8 {
                let mut size: pyo3::ffi::Py_ssize_t = 0;
                // SAFETY: `s` is a live `str` (the GIL is held and `item` keeps it alive while
                // `f` runs); the returned buffer belongs to it and holds `size` bytes.
                let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
                if data.is_null() {
                    // Not encodable (lone surrogates): clear the error, it is a bad record.
                    let _ = PyErr::take(item.py());
                    return f(None);
                }
                let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size as usize) };
                return f(Some(bytes));
            }
            return match s.to_cow() {
                Ok(text) => f(Some(text.as_bytes())),
                Err(_) => f(None),
            };
        }
        match item.cast::<PyBytes>() {
            Ok(b) => f(Some(b.as_bytes())),
            Err(_) => f(None),
        }
    }
}

/// The status text of an outcome: `solved`, `ok`, `unsolvable`, `wrong: ...`, `invalid: ...`.
fn status(outcome: &Outcome) -> String {
    let mut s = Vec::new();
    outcome.write_status(&mut s);
    String::from_utf8(s).expect("statuses are ASCII")
}

/// One answer as a Python object: a solution or canonical form `str` (solve, canon), a count
/// `int` (count), a `bool` (check; dedupe: kept), a rating `float` (rate); `None` where there is
/// none.
fn answer_object<'py>(py: Python<'py>, outcome: &Outcome) -> Bound<'py, PyAny> {
    match *outcome {
        Outcome::Solved(grid) | Outcome::Canonical(grid) => {
            let mut digits = [0u8; CELLS];
            grid.write_digits(&mut digits);
            let text = std::str::from_utf8(&digits).expect("digits are ASCII");
            PyString::new(py, text).into_any()
        }
        Outcome::Counted { found, .. } => found.into_pyobject(py).expect("int").into_any(),
        Outcome::Verified | Outcome::Class(_) => {
            true.into_pyobject(py).expect("bool").to_owned().into_any()
        }
        Outcome::Rated(r) => r
            .mean_guesses()
            .into_pyobject(py)
            .expect("float")
            .into_any(),
        Outcome::Wrong(_) => false.into_pyobject(py).expect("bool").to_owned().into_any(),
        Outcome::Unsolvable | Outcome::Invalid(_) => py.None().into_bound(py),
    }
}

/// `solve`, `count` or `check` over a list of `str`/`bytes` records. Returns the answers, and
/// the statuses when asked.
#[pyfunction]
#[pyo3(signature = (puzzles, solutions, task_name, threads, lexmin, limit, unique, with_status, samples=16, seed=0, exact=false))]
#[allow(clippy::too_many_arguments)]
fn run_list<'py>(
    py: Python<'py>,
    puzzles: &Bound<'py, PyList>,
    solutions: Option<&Bound<'py, PyList>>,
    task_name: &str,
    threads: usize,
    lexmin: bool,
    limit: u32,
    unique: bool,
    with_status: bool,
    samples: u32,
    seed: u64,
    exact: bool,
) -> Answered<'py, PyList> {
    let knobs = Knobs {
        lexmin,
        limit,
        unique,
        samples,
        seed,
        exact,
    };
    let task = task(task_name, knobs)?;
    if task.filters() {
        return Err(PyValueError::new_err("dedupe over a list: use dedupe_list"));
    }
    let n = puzzles.len();
    if let Some(s) = solutions {
        if s.len() != n {
            return Err(PyValueError::new_err(format!(
                "{n} puzzles but {} solutions: check needs one solution per puzzle",
                s.len()
            )));
        }
    }
    let pool = pool(threads)?;
    let answers = PyList::empty(py);
    let statuses = with_status.then(|| PyList::empty(py));
    let reader = TextReader::new(py);
    let mut items = Vec::with_capacity(SEGMENT.min(n));
    for start in (0..n).step_by(SEGMENT) {
        py.check_signals()?;
        let end = (start + SEGMENT).min(n);
        items.clear();
        for i in start..end {
            let solution = match solutions {
                Some(s) => reader.owned(&s.get_item(i)?),
                None => None,
            };
            items.push(Item {
                puzzle: reader.puzzle(&puzzles.get_item(i)?),
                solution,
            });
        }
        for outcome in answer_all(py, &pool, task, &items) {
            answers.append(answer_object(py, &outcome))?;
            if let Some(st) = &statuses {
                st.append(status(&outcome))?;
            }
        }
    }
    py.check_signals()?;
    Ok((answers, statuses))
}

/// `solve` over a `uint8` array of shape `(N, 81)`, 0 for blanks: a new array of the same shape,
/// a row of zeros where there is no solution.
#[pyfunction]
#[pyo3(signature = (puzzles, threads, lexmin, with_status))]
fn solve_array<'py>(
    py: Python<'py>,
    puzzles: PyReadonlyArray2<'py, u8>,
    threads: usize,
    lexmin: bool,
    with_status: bool,
) -> Answered<'py, PyArray2<u8>> {
    let task = Task::Solve { lexmin };
    let out = PyArray2::<u8>::zeros(py, [puzzles.shape()[0], CELLS], false);
    let statuses = with_status.then(|| PyList::empty(py));
    each_segment(
        py,
        &puzzles,
        threads,
        task,
        statuses.as_ref(),
        |start, outcomes| {
            let mut rw = out.readwrite();
            let rows = rw.as_slice_mut().expect("a new array is contiguous");
            for (k, outcome) in outcomes.iter().enumerate() {
                if let Outcome::Solved(grid) = outcome {
                    let row = &mut rows[(start + k) * CELLS..(start + k + 1) * CELLS];
                    row.copy_from_slice(grid.cells());
                }
            }
        },
    )?;
    Ok((out, statuses))
}

/// `count` over a `uint8` array of shape `(N, 81)`: an `int32` array of solution counts (at
/// most `limit`), -1 where the puzzle is malformed.
#[pyfunction]
#[pyo3(signature = (puzzles, threads, limit, with_status))]
fn count_array<'py>(
    py: Python<'py>,
    puzzles: PyReadonlyArray2<'py, u8>,
    threads: usize,
    limit: u32,
    with_status: bool,
) -> Answered<'py, PyArray1<i32>> {
    if limit == 0 {
        return Err(PyValueError::new_err("limit must be at least 1"));
    }
    let task = Task::Count { limit };
    let out = PyArray1::<i32>::zeros(py, [puzzles.shape()[0]], false);
    let statuses = with_status.then(|| PyList::empty(py));
    each_segment(
        py,
        &puzzles,
        threads,
        task,
        statuses.as_ref(),
        |start, outcomes| {
            let mut rw = out.readwrite();
            let counts = rw.as_slice_mut().expect("a new array is contiguous");
            for (k, outcome) in outcomes.iter().enumerate() {
                counts[start + k] = match *outcome {
                    Outcome::Counted { found, .. } => i32::try_from(found).unwrap_or(i32::MAX),
                    _ => -1,
                };
            }
        },
    )?;
    Ok((out, statuses))
}

/// Reads an `(N, 81)` array in segments (no copy of the array: each row becomes the solver's
/// grid), answers each segment with the GIL released, hands the outcomes to `emit` (with the
/// index of the segment's first row) and appends their statuses when asked.
fn each_segment<'py>(
    py: Python<'py>,
    puzzles: &PyReadonlyArray2<'py, u8>,
    threads: usize,
    task: Task,
    statuses: Option<&Bound<'py, PyList>>,
    mut emit: impl FnMut(usize, &[Outcome]),
) -> PyResult<()> {
    let shape = puzzles.shape();
    if shape[1] != CELLS {
        return Err(PyValueError::new_err(format!(
            "expected a uint8 array of shape (N, 81), got shape {shape:?}"
        )));
    }
    let cells = puzzles
        .as_slice()
        .map_err(|_| PyValueError::new_err("expected a C-contiguous array"))?;
    let pool = pool(threads)?;
    let mut items: Vec<Item> = Vec::with_capacity(SEGMENT.min(shape[0]));
    for start in (0..shape[0]).step_by(SEGMENT) {
        py.check_signals()?;
        let end = (start + SEGMENT).min(shape[0]);
        items.clear();
        items.extend(
            cells[start * CELLS..end * CELLS]
                .chunks_exact(CELLS)
                .map(|row| Item {
                    puzzle: Grid::from_cells(row.try_into().expect("81 cells"))
                        .map_err(Invalid::from),
                    solution: None,
                }),
        );
        let outcomes = answer_all(py, &pool, task, &items);
        emit(start, &outcomes);
        if let Some(list) = statuses {
            for outcome in &outcomes {
                list.append(status(outcome))?;
            }
        }
    }
    py.check_signals()
}

/// Collects the engine's messages for `solve_file`, and stops the run when asked.
struct Collect {
    messages: Vec<(u64, String)>,
    stop: Arc<AtomicBool>,
}

impl Observer for Collect {
    fn message(&mut self, m: &Message) {
        self.messages.push((m.line, m.problem.to_string()));
    }
    fn should_stop(&mut self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// The batch engine on files, as the CLI runs it. Returns the summary as a `dict`, with the
/// messages about bad records (`(line, text)` pairs, at most `max_messages`).
#[pyfunction]
#[pyo3(signature = (input, output, task_name, format, column, threads, lexmin, limit, unique, max_messages, shard, solution_column=None, samples=16, seed=0, exact=false, against=None))]
#[allow(clippy::too_many_arguments)]
fn run_file<'py>(
    py: Python<'py>,
    input: std::path::PathBuf,
    output: std::path::PathBuf,
    task_name: &str,
    format: &str,
    column: Option<String>,
    threads: usize,
    lexmin: bool,
    limit: u32,
    unique: bool,
    max_messages: usize,
    shard: Option<(u64, u64)>,
    solution_column: Option<String>,
    samples: u32,
    seed: u64,
    exact: bool,
    against: Option<std::path::PathBuf>,
) -> PyResult<Bound<'py, PyDict>> {
    let knobs = Knobs {
        lexmin,
        limit,
        unique,
        samples,
        seed,
        exact,
    };
    let config = Config {
        task: task(task_name, knobs)?,
        format: match format {
            "auto" => FormatChoice::Auto,
            "line" => FormatChoice::Line,
            "grid" => FormatChoice::Grid,
            "csv" => FormatChoice::Csv,
            other => {
                return Err(PyValueError::new_err(format!(
                    "format must be 'auto', 'line', 'grid' or 'csv', not {other:?}"
                )))
            }
        },
        column,
        solution_column,
        against,
        threads,
        max_messages,
        shard: shard.map(|(index, count)| Shard { index, count }),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut collect = Collect {
        messages: Vec::new(),
        stop: Arc::clone(&stop),
    };
    // The run goes on a thread of its own; this thread waits without the GIL and checks for
    // Ctrl-C every 20 ms, asking the engine to stop (which leaves no output file) if it came.
    let (result, interrupted) = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            batch::run(
                &config,
                Input::Path(input),
                Output::Path(output),
                &mut collect,
            )
        });
        let mut interrupted = None;
        while !run.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(20)));
            if interrupted.is_none() {
                if let Err(e) = py.check_signals() {
                    stop.store(true, Ordering::Relaxed);
                    interrupted = Some(e);
                }
            }
        }
        (run.join().expect("the engine thread panicked"), interrupted)
    });
    if let Some(e) = interrupted {
        return Err(e);
    }
    let summary = result.map_err(to_python_error)?;
    let d = PyDict::new(py);
    let t = &summary.tally;
    d.set_item("records", t.records)?;
    d.set_item("solved", t.solved)?;
    d.set_item("unsolvable", t.unsolvable)?;
    d.set_item("invalid", t.invalid)?;
    d.set_item("wrong", t.wrong)?;
    d.set_item("unique", t.unique)?;
    d.set_item("multiple", t.multiple)?;
    d.set_item("duplicates", t.duplicates)?;
    d.set_item("against_unread", summary.against_unread)?;
    d.set_item("seconds", summary.seconds)?;
    d.set_item("puzzles_per_second", summary.puzzles_per_second)?;
    d.set_item("format", summary.format)?;
    d.set_item("threads", summary.threads)?;
    d.set_item("messages", collect.messages)?;
    d.set_item("messages_not_shown", summary.messages_not_shown)?;
    Ok(d)
}

/// `dedupe` over lists of `str`/`bytes` records: for each record of `puzzles`, whether it is kept
/// (the first of its class, and in no class of `against`). A malformed record is kept.
#[pyfunction]
#[pyo3(signature = (puzzles, against, threads, exact))]
fn dedupe_list<'py>(
    py: Python<'py>,
    puzzles: &Bound<'py, PyList>,
    against: Option<&Bound<'py, PyList>>,
    threads: usize,
    exact: bool,
) -> PyResult<Bound<'py, PyList>> {
    let task = Task::Dedupe { exact };
    let pool = pool(threads)?;
    let reader = TextReader::new(py);
    let mut seen = Seen::new();
    let kept = PyList::empty(py);
    let mut items = Vec::with_capacity(SEGMENT);
    for (list, keep) in against.iter().map(|a| (*a, false)).chain([(puzzles, true)]) {
        for start in (0..list.len()).step_by(SEGMENT) {
            py.check_signals()?;
            items.clear();
            for i in start..(start + SEGMENT).min(list.len()) {
                items.push(Item {
                    puzzle: reader.puzzle(&list.get_item(i)?),
                    solution: None,
                });
            }
            for outcome in answer_all(py, &pool, task, &items) {
                let new = match outcome {
                    Outcome::Class(class) => seen.insert(&class),
                    _ => true,
                };
                if keep {
                    kept.append(new)?;
                }
            }
        }
    }
    Ok(kept)
}

/// Engine errors as the Python exceptions people expect.
fn to_python_error(e: BatchError) -> PyErr {
    let text = e.to_string();
    match &e {
        BatchError::Open { source, .. }
        | BatchError::Read { source, .. }
        | BatchError::Create { source, .. }
        | BatchError::Write { source, .. }
        | BatchError::Finish { source, .. } => match source.kind() {
            std::io::ErrorKind::NotFound => PyFileNotFoundError::new_err(text),
            std::io::ErrorKind::PermissionDenied => PyPermissionError::new_err(text),
            _ => PyOSError::new_err(text),
        },
        BatchError::Format { .. }
        | BatchError::BadShard { .. }
        | BatchError::ShardNeedsFile { .. }
        | BatchError::DedupeSharded
        | BatchError::TooManyThreads(_) => PyValueError::new_err(text),
        BatchError::Stopped => PyKeyboardInterrupt::new_err(text),
        BatchError::OutputClosed | BatchError::Pool(_) => PyOSError::new_err(text),
    }
}

/// Answers the records of line-format `text` exactly as the CLI does (same rules, same output
/// lines; blank and comment lines give none), in parallel over pieces of whole lines. Used by the
/// Spark route on each partition's lines. Returns the output bytes.
#[pyfunction]
#[pyo3(signature = (text, task_name, threads, lexmin, limit, unique, samples=16, seed=0))]
#[allow(clippy::too_many_arguments)]
fn answer_lines<'py>(
    py: Python<'py>,
    text: &[u8],
    task_name: &str,
    threads: usize,
    lexmin: bool,
    limit: u32,
    unique: bool,
    samples: u32,
    seed: u64,
) -> PyResult<Bound<'py, PyBytes>> {
    const PIECE: usize = 64 << 10;
    let knobs = Knobs {
        lexmin,
        limit,
        unique,
        samples,
        seed,
        exact: false,
    };
    let task = task(task_name, knobs)?;
    if task.filters() {
        return Err(PyValueError::new_err(
            "dedupe keeps the first record of each class in the whole input, which a partition \
             does not see; dedupe the canonical forms (task 'canon') with the distributed \
             engine's own dropDuplicates",
        ));
    }
    let pool = pool(threads)?;
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let cut = match rest.get(PIECE..).and_then(memchr_newline) {
            Some(i) => PIECE + i + 1,
            None => rest.len(),
        };
        pieces.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    let outputs: Vec<Vec<u8>> = py.detach(|| {
        pool.install(|| {
            pieces
                .par_iter()
                .map(|piece| {
                    let mut out = BlockOut::new(0);
                    Format::Line.process(piece, task, &mut out);
                    out.bytes
                })
                .collect()
        })
    });
    Ok(PyBytes::new(py, &outputs.concat()))
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// The format the engine detects from the start of an input: `"line"`, `"grid"` or `"csv"`.
#[pyfunction]
#[pyo3(signature = (prefix, column=None))]
fn detect_format(prefix: &[u8], column: Option<&str>) -> &'static str {
    match detect(prefix, column).choice {
        FormatChoice::Grid => "grid",
        FormatChoice::Csv => "csv",
        FormatChoice::Auto | FormatChoice::Line => "line",
    }
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(answer_lines, m)?)?;
    m.add_function(wrap_pyfunction!(detect_format, m)?)?;
    m.add(
        "PUZZLE_NAMES",
        sudoku_batch::formats::csv::PUZZLE_NAMES.to_vec(),
    )?;
    m.add_function(wrap_pyfunction!(run_list, m)?)?;
    m.add_function(wrap_pyfunction!(solve_array, m)?)?;
    m.add_function(wrap_pyfunction!(count_array, m)?)?;
    m.add_function(wrap_pyfunction!(run_file, m)?)?;
    m.add_function(wrap_pyfunction!(dedupe_list, m)?)?;
    Ok(())
}
