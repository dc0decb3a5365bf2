//! `sudoku_batch._native`: the thin PyO3 layer over the `sudoku_batch` engine. It converts
//! Python objects to the engine's records and its outcomes back to Python objects; everything
//! else (the pool, the per-record work, dedupe, whole files) is the library's. The Python package
//! (`sudoku_batch/__init__.py`) checks and normalizes arguments and builds one [`Options`].
//!
//! Batches of puzzles (a list of `str`/`bytes`, or a `uint8` array of shape `(N, 81)`) are
//! converted and answered in segments: each segment is read from Python with the GIL held,
//! answered by the engine with the GIL released, and written back; between segments pending
//! signals are checked, so Ctrl-C raises `KeyboardInterrupt` within a segment's time.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{
    PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyPermissionError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use sudoku_batch::{
    BatchError, ColumnType, Config, Deduper, Engine, EngineError, FormatChoice, Grid, Input,
    Invalid, Message, Observer, Outcome, Output, Record, Shard, Task, TaskOptions, CELLS,
};

/// Puzzles per segment: small enough that a segment of the hardest public puzzles (about 110 µs
/// each for a uniqueness count) ends within half a second on one thread, large enough that the
/// GIL round trips cost nothing.
const SEGMENT: usize = 4096;

/// Answers, and their statuses when asked for.
type Answered<'py, T> = PyResult<(Bound<'py, T>, Option<Bound<'py, PyList>>)>;

/// Everything a call may set, as one typed value (the package fills it from keyword arguments).
#[pyclass(frozen, module = "sudoku_batch._native")]
#[derive(Clone)]
struct Options {
    task: Task,
    threads: usize,
    with_status: bool,
    /// `run_list` gives each record's values of the task's result columns (a tuple per record)
    /// instead of one answer object.
    with_columns: bool,
    format: FormatChoice,
    column: Option<String>,
    solution_column: Option<String>,
    max_messages: usize,
    shard: Option<Shard>,
    against: Option<std::path::PathBuf>,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (task, *, threads=0, with_status=false, with_columns=false, lexmin=false, limit=2, unique=false,
        samples=16, seed=0, exact=false, format="auto", column=None, solution_column=None,
        max_messages=20, shard=None, against=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, each with its default
    fn new(
        task: &str,
        threads: usize,
        with_status: bool,
        with_columns: bool,
        lexmin: bool,
        limit: u32,
        unique: bool,
        samples: u32,
        seed: u64,
        exact: bool,
        format: &str,
        column: Option<String>,
        solution_column: Option<String>,
        max_messages: usize,
        shard: Option<(u64, u64)>,
        against: Option<std::path::PathBuf>,
    ) -> PyResult<Options> {
        let value_error = |e: &dyn std::fmt::Display| PyValueError::new_err(e.to_string());
        let options = TaskOptions::default()
            .lexmin(lexmin)
            .limit(limit)
            .unique(unique)
            .samples(samples)
            .seed(seed)
            .exact(exact);
        Ok(Options {
            task: Task::named(task, options).map_err(|e| value_error(&e))?,
            threads,
            with_status,
            with_columns,
            format: format.parse().map_err(|e| value_error(&e))?,
            column,
            solution_column,
            max_messages,
            shard: shard
                .map(|(k, n)| Shard::new(k, n))
                .transpose()
                .map_err(|e| value_error(&e))?,
            against,
        })
    }
}

impl Options {
    fn engine(&self) -> PyResult<Arc<Engine>> {
        Engine::shared(self.threads).map_err(|e| match e {
            EngineError::TooManyThreads(_) => PyValueError::new_err(e.to_string()),
            _ => PyOSError::new_err(e.to_string()),
        })
    }

    /// The task, which must be `want` (a function that answers one task only).
    fn task_is(&self, want: &str) -> PyResult<Task> {
        if self.task.name() != want {
            return Err(PyValueError::new_err(format!(
                "this function answers {want}, not {}",
                self.task
            )));
        }
        Ok(self.task)
    }
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

/// One answer as a Python object: a solution or canonical form `str` (solve, canon), a count
/// `int` (count), a `bool` (check), a rating `float` (rate); `None` where there is none.
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
        _ => py.None().into_bound(py),
    }
}

/// The value of result column `index` (of type `kind`) for an outcome, as a Python object:
/// `str` for a grid, `int` for a count, `float` for a rating, `bool` for a flag; `None` where the
/// outcome has none.
fn column_object<'py>(
    py: Python<'py>,
    outcome: &Outcome,
    index: usize,
    kind: ColumnType,
) -> Bound<'py, PyAny> {
    match (outcome, index, kind) {
        (Outcome::Rated(r), 0, ColumnType::Float) => r
            .mean_guesses()
            .into_pyobject(py)
            .expect("float")
            .into_any(),
        (Outcome::Rated(r), 1, ColumnType::Bool) => r
            .singles
            .into_pyobject(py)
            .expect("bool")
            .to_owned()
            .into_any(),
        (Outcome::Solved(_) | Outcome::Canonical(_) | Outcome::Counted { .. }, 0, _) => {
            answer_object(py, outcome)
        }
        _ => py.None().into_bound(py),
    }
}

/// Any task but dedupe over a list of `str`/`bytes` records (with their solutions, for
/// `check`). Returns the answers, and the statuses when asked.
#[pyfunction]
fn run_list<'py>(
    py: Python<'py>,
    puzzles: &Bound<'py, PyList>,
    solutions: Option<&Bound<'py, PyList>>,
    options: &Options,
) -> Answered<'py, PyList> {
    if options.task.filters() {
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
    let engine = options.engine()?;
    let answers = PyList::empty(py);
    let statuses = options.with_status.then(|| PyList::empty(py));
    let reader = TextReader::new(py);
    let mut texts: Vec<Option<Vec<u8>>> = Vec::new();
    let mut puzzles_read = Vec::with_capacity(SEGMENT.min(n));
    for start in (0..n).step_by(SEGMENT) {
        py.check_signals()?;
        let end = (start + SEGMENT).min(n);
        puzzles_read.clear();
        texts.clear();
        for i in start..end {
            puzzles_read.push(reader.puzzle(&puzzles.get_item(i)?));
            if let Some(s) = solutions {
                texts.push(reader.owned(&s.get_item(i)?));
            }
        }
        let records: Vec<Record<'_>> = puzzles_read
            .iter()
            .enumerate()
            .map(|(k, &puzzle)| {
                let solution = texts.get(k).and_then(|t| t.as_deref());
                Record::new(puzzle).with_solution(solution)
            })
            .collect();
        let outcomes = py.detach(|| engine.answer(options.task, &records));
        let columns = options.task.columns();
        for outcome in &outcomes {
            if options.with_columns {
                let values = columns
                    .iter()
                    .enumerate()
                    .map(|(i, c)| column_object(py, outcome, i, c.kind));
                answers.append(PyTuple::new(py, values)?)?;
            } else {
                answers.append(answer_object(py, outcome))?;
            }
            if let Some(st) = &statuses {
                st.append(outcome.status())?;
            }
        }
    }
    py.check_signals()?;
    Ok((answers, statuses))
}

/// `solve` over a `uint8` array of shape `(N, 81)`, 0 for blanks: a new array of the same shape,
/// a row of zeros where there is no solution.
#[pyfunction]
fn solve_array<'py>(
    py: Python<'py>,
    puzzles: PyReadonlyArray2<'py, u8>,
    options: &Options,
) -> Answered<'py, PyArray2<u8>> {
    options.task_is("solve")?;
    let out = PyArray2::<u8>::zeros(py, [puzzles.shape()[0], CELLS], false);
    let statuses = options.with_status.then(|| PyList::empty(py));
    each_segment(
        py,
        &puzzles,
        options,
        statuses.as_ref(),
        |start, outcomes| {
            let mut rw = out.readwrite();
            let rows = rw.as_slice_mut().expect("a new array is contiguous");
            for (k, outcome) in outcomes.iter().enumerate() {
                if let Outcome::Solved(grid) = outcome {
                    rows[(start + k) * CELLS..(start + k + 1) * CELLS]
                        .copy_from_slice(grid.cells());
                }
            }
        },
    )?;
    Ok((out, statuses))
}

/// `count` over a `uint8` array of shape `(N, 81)`: an `int32` array of solution counts (at
/// most the limit), -1 where the puzzle is malformed.
#[pyfunction]
fn count_array<'py>(
    py: Python<'py>,
    puzzles: PyReadonlyArray2<'py, u8>,
    options: &Options,
) -> Answered<'py, PyArray1<i32>> {
    options.task_is("count")?;
    let out = PyArray1::<i32>::zeros(py, [puzzles.shape()[0]], false);
    let statuses = options.with_status.then(|| PyList::empty(py));
    each_segment(
        py,
        &puzzles,
        options,
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

/// Reads an `(N, 81)` array in segments (each row becomes a record's grid), answers each segment
/// with the GIL released, hands the outcomes to `emit` (with the index of the segment's first
/// row) and appends their statuses when asked.
fn each_segment<'py>(
    py: Python<'py>,
    puzzles: &PyReadonlyArray2<'py, u8>,
    options: &Options,
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
    let engine = options.engine()?;
    let mut records = Vec::with_capacity(SEGMENT.min(shape[0]));
    for start in (0..shape[0]).step_by(SEGMENT) {
        py.check_signals()?;
        let end = (start + SEGMENT).min(shape[0]);
        records.clear();
        records.extend(
            cells[start * CELLS..end * CELLS]
                .chunks_exact(CELLS)
                .map(|row| {
                    let cells: [u8; CELLS] = row.try_into().expect("81 cells");
                    Record::new(Grid::from_cells(cells).map_err(Invalid::from))
                }),
        );
        let outcomes = py.detach(|| engine.answer(options.task, &records));
        emit(start, &outcomes);
        if let Some(list) = statuses {
            for outcome in &outcomes {
                list.append(outcome.status())?;
            }
        }
    }
    py.check_signals()
}

/// `dedupe` over lists of `str`/`bytes` records: for each record of `puzzles`, whether it is kept
/// (the first of its class, and in no class of `against`). A malformed record is kept.
#[pyfunction]
fn dedupe_list<'py>(
    py: Python<'py>,
    puzzles: &Bound<'py, PyList>,
    against: Option<&Bound<'py, PyList>>,
    options: &Options,
) -> PyResult<Bound<'py, PyList>> {
    let task = options.task_is("dedupe")?;
    let engine = options.engine()?;
    let reader = TextReader::new(py);
    let mut deduper = Deduper::new();
    let kept = PyList::empty(py);
    let mut records = Vec::with_capacity(SEGMENT);
    for (list, keep) in against.iter().map(|a| (*a, false)).chain([(puzzles, true)]) {
        for start in (0..list.len()).step_by(SEGMENT) {
            py.check_signals()?;
            records.clear();
            for i in start..(start + SEGMENT).min(list.len()) {
                records.push(Record::new(reader.puzzle(&list.get_item(i)?)));
            }
            for outcome in py.detach(|| engine.answer(task, &records)) {
                let new = deduper.keep(&outcome);
                if keep {
                    kept.append(new)?;
                }
            }
        }
    }
    Ok(kept)
}

/// Collects the engine's messages for `run_file`, and stops the run when asked.
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
fn run_file<'py>(
    py: Python<'py>,
    input: std::path::PathBuf,
    output: std::path::PathBuf,
    options: &Options,
) -> PyResult<Bound<'py, PyDict>> {
    let config = Config::new(options.task)
        .format(options.format)
        .column(options.column.clone())
        .solution_column(options.solution_column.clone())
        .against(options.against.clone())
        .threads(options.threads)
        .max_messages(options.max_messages)
        .shard(options.shard)
        .engine(options.engine()?);
    let stop = Arc::new(AtomicBool::new(false));
    let mut collect = Collect {
        messages: Vec::new(),
        stop: Arc::clone(&stop),
    };
    // The run goes on a thread of its own; this thread waits without the GIL and checks for
    // Ctrl-C every 20 ms, asking the engine to stop (which leaves no output file) if it came.
    let (result, interrupted) = std::thread::scope(|scope| {
        let run = scope.spawn(|| {
            sudoku_batch::run(
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
        BatchError::Stopped => PyKeyboardInterrupt::new_err(text),
        BatchError::OutputClosed | BatchError::Engine(EngineError::Pool(_)) => {
            PyOSError::new_err(text)
        }
        // Usage: a format that does not suit the task, a shard of a stream, too many threads.
        _ => PyValueError::new_err(text),
    }
}

/// Answers the records of line-format `text` exactly as the CLI does (same rules, same output
/// lines; blank and comment lines give none), with the GIL released. Used by the Spark route on
/// each partition's lines. Returns the output bytes.
#[pyfunction]
fn answer_lines<'py>(
    py: Python<'py>,
    text: &[u8],
    options: &Options,
) -> PyResult<Bound<'py, PyBytes>> {
    let engine = options.engine()?;
    let out = py
        .detach(|| engine.answer_lines(options.task, text))
        .map_err(|e| {
            PyValueError::new_err(format!(
                "{e}; dedupe the canonical forms (task 'canon') with the distributed engine's \
                 own dropDuplicates"
            ))
        })?;
    Ok(PyBytes::new(py, &out))
}

/// The format the engine detects from the start of an input: `"line"`, `"grid"` or `"csv"`.
#[pyfunction]
#[pyo3(signature = (prefix, column=None))]
fn detect_format(prefix: &[u8], column: Option<&str>) -> &'static str {
    match sudoku_batch::detect(prefix, column).choice {
        FormatChoice::Auto => "line",
        choice => choice.name(),
    }
}

/// The columns a task adds to a table, before `status` (none for check and dedupe), as
/// `(name, type)` pairs, the type one of `grid`, `count`, `float`, `bool`: the one source of
/// result columns for the CLI's CSV output, Python and Spark.
#[pyfunction]
fn result_columns(task: &str) -> PyResult<Vec<(&'static str, &'static str)>> {
    let task: Task = task
        .parse()
        .map_err(|e: sudoku_batch::TaskError| PyValueError::new_err(e.to_string()))?;
    Ok(task
        .columns()
        .iter()
        .map(|c| {
            let kind = match c.kind {
                ColumnType::Grid => "grid",
                ColumnType::Count => "count",
                ColumnType::Float => "float",
                ColumnType::Bool => "bool",
                _ => "text",
            };
            (c.name, kind)
        })
        .collect())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Options>()?;
    m.add_function(wrap_pyfunction!(answer_lines, m)?)?;
    m.add_function(wrap_pyfunction!(detect_format, m)?)?;
    m.add_function(wrap_pyfunction!(result_columns, m)?)?;
    m.add("PUZZLE_NAMES", sudoku_batch::PUZZLE_NAMES.to_vec())?;
    m.add("SOLUTION_NAMES", sudoku_batch::SOLUTION_NAMES.to_vec())?;
    m.add("STATUS", sudoku_batch::STATUS.name)?;
    m.add("TASK_NAMES", sudoku_batch::TASK_NAMES.to_vec())?;
    m.add_function(wrap_pyfunction!(run_list, m)?)?;
    m.add_function(wrap_pyfunction!(solve_array, m)?)?;
    m.add_function(wrap_pyfunction!(count_array, m)?)?;
    m.add_function(wrap_pyfunction!(run_file, m)?)?;
    m.add_function(wrap_pyfunction!(dedupe_list, m)?)?;
    Ok(())
}
