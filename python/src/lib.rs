//! `sudoku_batch._native`: the thin PyO3 layer over the `sudoku_batch` engine. It converts
//! Python objects to the engine's records and its outcomes back to Python objects; everything
//! else (the pool, the per-record work, dedupe, whole files) is the library's. The Python package
//! (`sudoku_batch/__init__.py`) checks and normalizes arguments and builds one [`Options`].
//!
//! Batches of puzzles (a list of `str`/`bytes`/`int`, or a `uint8` array of shape `(N, 81)`) are
//! converted and answered in segments: each segment is read from Python with the GIL held,
//! answered by the engine with the GIL released, and written back; between segments pending
//! signals are checked, so Ctrl-C raises `KeyboardInterrupt` within a segment's time.
//!
//! Arrow columns (anything with `__arrow_c_array__` or `__arrow_c_stream__`: pyarrow, polars,
//! pandas, datasets) are read in place through the Arrow C Data Interface: each record borrows
//! its bytes from the array's buffers, segments are read and answered with the GIL released, and
//! the answers are built as Arrow arrays, one per input chunk, with no Python object per record.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::builder::{BooleanBuilder, Float64Builder, Int64Builder};
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, GenericStringArray, OffsetSizeTrait};
use arrow_buffer::{Buffer, NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field};
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{
    PyFileNotFoundError, PyKeyboardInterrupt, PyOSError, PyPermissionError, PyTypeError,
    PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};
use pyo3_arrow::input::AnyArray;
use pyo3_arrow::{PyArray, PyChunkedArray, PyRecordBatch};

use rayon::prelude::*;
use sudoku_batch::{
    BatchError, ColumnType, Config, Deduper, Engine, EngineError, FormatChoice, Grid, Input,
    Invalid, Message, Observer, Outcome, Output, OutputFormat, Record, Shard, Task, TaskOptions,
    Work, CELLS,
};

/// The most records answered between two looks at Ctrl-C (and two GIL round trips): a segment
/// of the hardest public puzzles (about 110 µs each for a uniqueness count) ends within half a
/// second on one thread, and the round trips cost nothing.
const SEGMENT: usize = 4096;

/// The fewest records of an Arrow column a worker answers at a time (parsing included), for the
/// tasks that take microseconds a record.
const ARROW_JOB: usize = 64;

/// How long a segment of the slower tasks is meant to take (see [`Segments`]).
const SEGMENT_SECONDS: f64 = 0.25;

/// The ranges of records a task answers between two looks at Ctrl-C. A record costs from a
/// microsecond (`solve`) to a second (`grade` with `nested`), so a fixed count would make Ctrl-C
/// wait for minutes on slow records: the first segment is one job per worker (the fewest
/// records that keep every worker busy), and each next one is sized from the time the last
/// took to last about [`SEGMENT_SECONDS`] (growing at most fourfold a step, never past
/// [`SEGMENT`], never under one job per worker).
struct Segments {
    next: usize,
    end: usize,
    len: usize,
    min: usize,
    started: Option<std::time::Instant>,
}

impl Segments {
    /// Segments of `records`, each at least `min` records long (one job per worker).
    fn new(records: usize, min: usize) -> Segments {
        let min = min.clamp(1, SEGMENT);
        Segments {
            next: 0,
            end: records,
            len: min,
            min,
            started: None,
        }
    }
}

impl Iterator for Segments {
    type Item = std::ops::Range<usize>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(started) = self.started {
            let seconds = started.elapsed().as_secs_f64();
            let fits = match seconds > 0.0 {
                true => self.len as f64 * SEGMENT_SECONDS / seconds,
                false => f64::MAX,
            };
            self.len = fits
                .min(4.0 * self.len as f64)
                .clamp(self.min as f64, SEGMENT as f64) as usize;
        }
        if self.next >= self.end {
            return None;
        }
        let range = self.next..(self.next + self.len).min(self.end);
        self.next = range.end;
        self.started = Some(std::time::Instant::now());
        Some(range)
    }
}

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
    /// `run_arrow`'s result columns as the CLI's CSV text (`2+`, `30.00`), all strings.
    text_columns: bool,
    format: FormatChoice,
    output_format: OutputFormat,
    column: Option<String>,
    solution_column: Option<String>,
    keep_solution_column: bool,
    max_messages: usize,
    shard: Option<Shard>,
    against: Option<std::path::PathBuf>,
    against_column: Option<String>,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (task, *, threads=0, with_status=false, with_columns=false, text_columns=false, lexmin=false, limit=2, unique=false,
        samples=16, seed=0, exact=false, nested=false, format="auto", output_format="auto", column=None, solution_column=None,
        keep_solution_column=false, max_messages=20, shard=None, against=None, against_column=None))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments, each with its default
    fn new(
        task: &str,
        threads: usize,
        with_status: bool,
        with_columns: bool,
        text_columns: bool,
        lexmin: bool,
        limit: u32,
        unique: bool,
        samples: u32,
        seed: u64,
        exact: bool,
        nested: bool,
        format: &str,
        output_format: &str,
        column: Option<String>,
        solution_column: Option<String>,
        keep_solution_column: bool,
        max_messages: usize,
        shard: Option<(u64, u64)>,
        against: Option<std::path::PathBuf>,
        against_column: Option<String>,
    ) -> PyResult<Options> {
        let value_error = |e: &dyn std::fmt::Display| PyValueError::new_err(e.to_string());
        if text_columns && !with_columns {
            return Err(value_error(&"text_columns needs with_columns"));
        }
        let options = TaskOptions::default()
            .lexmin(lexmin)
            .limit(limit)
            .unique(unique)
            .samples(samples)
            .seed(seed)
            .exact(exact)
            .nested(nested);
        Ok(Options {
            task: Task::named(task, options).map_err(|e| value_error(&e))?,
            threads,
            with_status,
            with_columns,
            text_columns,
            format: format.parse().map_err(|e| value_error(&e))?,
            output_format: output_format.parse().map_err(|e| value_error(&e))?,
            column,
            solution_column,
            keep_solution_column,
            max_messages,
            shard: shard
                .map(|(k, n)| Shard::new(k, n))
                .transpose()
                .map_err(|e| value_error(&e))?,
            against,
            against_column,
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

/// A record's puzzle as read: the engine's parse of its text, or why it is not a puzzle (also
/// the binding's own reasons: a null, a number that cannot be a puzzle).
#[derive(Clone, Copy)]
enum Read {
    Puzzle(Result<Grid, Invalid>),
}

const NULL: Invalid = Invalid::Null;
const NEGATIVE: Invalid = Invalid::NegativeNumber;
const LONG_NUMBER: Invalid = Invalid::LongNumber;

impl Read {
    fn text(text: &[u8]) -> Read {
        Read::Puzzle(Record::parse(text).puzzle)
    }

    /// The record to hand to the engine (`check`: then given its solution).
    fn record<'a>(self) -> Record<'a> {
        let Read::Puzzle(puzzle) = self;
        Record::new(puzzle)
    }
}

/// The text of a record given as a Python value, borrowed or padded.
enum Text<'a> {
    Borrowed(&'a [u8]),
    /// A non-negative `int` of at most 81 digits, left-padded with zeros to 81 (a puzzle with `0`
    /// blanks, or a solution, read by pandas as a number).
    Number([u8; CELLS]),
    /// An `int` that cannot be a puzzle.
    BadNumber(Invalid, &'a [u8]),
    /// Not text (`None`, a float, ...).
    Other,
}

/// Reads the text of `str`, `bytes` and `int` records, noting whether any record was text (so
/// that a batch of numbers or floats is refused as a whole rather than answered as all-invalid).
struct TextReader {
    /// Python 3.10 or later: `PyUnicode_AsUTF8AndSize` is in the limited API there and gives the
    /// string's own UTF-8 buffer, with no copy; on 3.9 a `str` is encoded to a temporary `bytes`.
    /// (Not on Windows, where an abi3 module links against python3.dll, whose 3.9 version does
    /// not export the function.)
    borrow_utf8: bool,
    /// Records that were text (or a number read as digits).
    texts: usize,
    /// The type of the first record that was neither text nor `None`.
    other: Option<String>,
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
            texts: 0,
            other: None,
        }
    }

    /// The record's puzzle (or why it is not one): the text of a `str` or `bytes`, surrounding
    /// whitespace ignored, or the digits of an `int`.
    fn puzzle(&mut self, item: &Bound<'_, PyAny>) -> Read {
        self.with_text(item, |text| match text {
            Text::Borrowed(t) => Read::text(t),
            Text::Number(digits) => Read::text(&digits),
            Text::BadNumber(why, _) => Read::Puzzle(Err(why)),
            Text::Other => Read::Puzzle(Err(Invalid::NotText)),
        })
    }

    /// A `check` solution's text as owned bytes, or why it is none: a null (`None`, or NaN as
    /// pandas gives a missing value) or a value of another type.
    fn solution(&mut self, item: &Bound<'_, PyAny>) -> Result<Vec<u8>, Invalid> {
        self.with_text(item, |text| match text {
            Text::Borrowed(t) | Text::BadNumber(_, t) => Ok(t.trim_ascii().to_vec()),
            Text::Number(digits) => Ok(digits.to_vec()),
            Text::Other if is_missing(item) => Err(Invalid::NullSolution),
            Text::Other => Err(Invalid::SolutionNotText),
        })
    }

    /// A batch's wrong type: an error if records were given and none was text, but some were
    /// values of another type (numbers, floats), which no puzzle column holds.
    fn refuse_wrong_type(&self, what: &str) -> PyResult<()> {
        match (&self.other, self.texts) {
            (Some(t), 0) => Err(PyTypeError::new_err(format!(
                "{what}: no record is a puzzle string (the first is a {t}); give puzzles as \
                 text, for example read the column with dtype=str"
            ))),
            _ => Ok(()),
        }
    }

    fn with_text<R>(&mut self, item: &Bound<'_, PyAny>, f: impl FnOnce(Text<'_>) -> R) -> R {
        if let Ok(s) = item.cast::<PyString>() {
            self.texts += 1;
            #[cfg(not(windows))]
            if self.borrow_utf8 {
                let mut size: pyo3::ffi::Py_ssize_t = 0;
                // SAFETY: `s` is a live `str` (the GIL is held and `item` keeps it alive while
                // `f` runs); the returned buffer belongs to it and holds `size` bytes.
                let data = unsafe { PyUnicode_AsUTF8AndSize(s.as_ptr(), &mut size) };
                if data.is_null() {
                    // Not encodable (lone surrogates): clear the error, it is a bad record.
                    let _ = PyErr::take(item.py());
                    return f(Text::Other);
                }
                let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size as usize) };
                return f(Text::Borrowed(bytes));
            }
            return match s.to_cow() {
                Ok(text) => f(Text::Borrowed(text.as_bytes())),
                Err(_) => f(Text::Other),
            };
        }
        if let Ok(b) = item.cast::<PyBytes>() {
            self.texts += 1;
            return f(Text::Borrowed(b.as_bytes()));
        }
        if item.is_instance_of::<PyInt>() && !item.is_instance_of::<PyBool>() {
            if let Ok(decimal) = item.str() {
                self.texts += 1;
                let decimal = decimal.to_cow().unwrap_or_default();
                let digits = decimal.as_bytes();
                if digits.starts_with(b"-") {
                    return f(Text::BadNumber(NEGATIVE, digits));
                }
                if digits.len() > CELLS {
                    return f(Text::BadNumber(LONG_NUMBER, digits));
                }
                let mut padded = [b'0'; CELLS];
                padded[CELLS - digits.len()..].copy_from_slice(digits);
                return f(Text::Number(padded));
            }
        }
        if self.other.is_none() && !is_missing(item) {
            self.other = Some(
                item.get_type()
                    .name()
                    .map_or_else(|_| "value".to_string(), |n| n.to_string()),
            );
        }
        f(Text::Other)
    }
}

/// Whether a value is a missing one, as Python and pandas write it: `None`, a float NaN (pandas'
/// missing value in an object column), `pd.NA` or `pd.NaT`. A batch of nothing but these is not
/// a column of the wrong type: each record gets its own status (`not a puzzle string`; the
/// Python layer reports a pandas Series' missing values as null puzzles).
fn is_missing(item: &Bound<'_, PyAny>) -> bool {
    if item.is_none() || item.extract::<f64>().is_ok_and(f64::is_nan) {
        return true;
    }
    let ty = item.get_type();
    let named = |module: &str, name: &str| {
        ty.module()
            .is_ok_and(|m| m.to_cow().is_ok_and(|m| m.starts_with(module)))
            && ty.name().is_ok_and(|n| n.to_cow().is_ok_and(|n| n == name))
    };
    named("pandas", "NAType") || named("pandas", "NaTType")
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
        // Any other task's columns (grade), by the typed value the library gives.
        _ => match outcome.value(index) {
            Some(sudoku_batch::Value::Text(name)) => PyString::new(py, name).into_any(),
            Some(sudoku_batch::Value::Float(x)) => x.into_pyobject(py).expect("float").into_any(),
            Some(sudoku_batch::Value::Count(n)) => n.into_pyobject(py).expect("int").into_any(),
            _ => py.None().into_bound(py),
        },
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
    let mut reader = TextReader::new(py);
    let mut solution_reader = TextReader::new(py);
    let mut texts: Vec<Result<Vec<u8>, Invalid>> = Vec::new();
    let mut puzzles_read = Vec::with_capacity(SEGMENT.min(n));
    let min = engine.threads() * engine.min_job(options.task);
    for range in Segments::new(n, min) {
        py.check_signals()?;
        let (start, end) = (range.start, range.end);
        puzzles_read.clear();
        texts.clear();
        for i in start..end {
            puzzles_read.push(reader.puzzle(&puzzles.get_item(i)?));
            if let Some(s) = solutions {
                texts.push(solution_reader.solution(&s.get_item(i)?));
            }
        }
        let records: Vec<Record<'_>> = puzzles_read
            .iter()
            .enumerate()
            .map(|(k, &puzzle)| match texts.get(k) {
                Some(solution) => puzzle
                    .record()
                    .with_solution_value(solution.as_deref().map_err(|&why| why)),
                None => puzzle.record(),
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
    reader.refuse_wrong_type("puzzles")?;
    Ok((answers, statuses))
}

/// `solve` over a `uint8` array of shape `(N, 81)` (cell values, 0 for blanks, or ASCII text):
/// a new array of the same shape and encoding, a row of blanks (`0` or `'0'`) where there is no
/// solution.
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
        |start, encoding, outcomes| {
            let mut rw = out.readwrite();
            let rows = rw.as_slice_mut().expect("a new array is contiguous");
            for (k, outcome) in outcomes.iter().enumerate() {
                let row: &mut [u8; CELLS] = (&mut rows[(start + k) * CELLS..][..CELLS])
                    .try_into()
                    .expect("81 cells");
                match (outcome, encoding) {
                    (Outcome::Solved(grid), Cells::Values) => row.copy_from_slice(grid.cells()),
                    (Outcome::Solved(grid), Cells::Ascii) => grid.write_digits(row),
                    (_, Cells::Ascii) => row.fill(b'0'),
                    (_, Cells::Values) => {}
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
        |start, _, outcomes| {
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

/// How an `(N, 81)` array holds its cells: values 0-9 (0 blank), or ASCII text (`'1'`-`'9'`,
/// `'0'` or `'.'` blank), as `np.frombuffer(text.encode(), np.uint8).reshape(-1, 81)` gives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cells {
    Values,
    Ascii,
}

/// The encoding of an array's cells; an array holding both values 0-9 and ASCII digits is
/// refused (half of it would be read wrong).
fn cell_encoding(cells: &[u8]) -> PyResult<Cells> {
    let (mut values, mut ascii) = (false, false);
    for block in cells.chunks(1 << 16) {
        for &b in block {
            values |= b <= 9;
            ascii |= b == b'.' || b.is_ascii_digit();
        }
        if values && ascii {
            return Err(PyValueError::new_err(
                "the array mixes cell values 0-9 with ASCII characters ('0'-'9', '.'): give every \
                 row as values (0 = blank) or every row as ASCII text",
            ));
        }
    }
    Ok(if ascii { Cells::Ascii } else { Cells::Values })
}

/// The cells of an `(N, 81)` `uint8` array, checked: shape and contiguity.
fn array_cells<'a>(puzzles: &'a PyReadonlyArray2<'_, u8>) -> PyResult<&'a [u8]> {
    let shape = puzzles.shape();
    if shape[1] != CELLS {
        return Err(PyValueError::new_err(format!(
            "expected a uint8 array of shape (N, 81), got shape {shape:?}"
        )));
    }
    puzzles
        .as_slice()
        .map_err(|_| PyValueError::new_err("expected a C-contiguous array"))
}

/// `"values"` or `"ascii"`: how a `uint8` array of shape `(N, 81)` holds its cells (ValueError
/// if it mixes both).
#[pyfunction(name = "cell_encoding")]
fn array_cell_encoding(
    py: Python<'_>,
    puzzles: PyReadonlyArray2<'_, u8>,
) -> PyResult<&'static str> {
    let cells = array_cells(&puzzles)?;
    Ok(match py.detach(|| cell_encoding(cells))? {
        Cells::Values => "values",
        Cells::Ascii => "ascii",
    })
}

/// Reads an `(N, 81)` array in segments (each row becomes a record's grid), answers each segment
/// with the GIL released, hands the outcomes to `emit` (with the index of the segment's first
/// row and the array's encoding) and appends their statuses when asked.
fn each_segment<'py>(
    py: Python<'py>,
    puzzles: &PyReadonlyArray2<'py, u8>,
    options: &Options,
    statuses: Option<&Bound<'py, PyList>>,
    mut emit: impl FnMut(usize, Cells, &[Outcome]),
) -> PyResult<()> {
    let rows = puzzles.shape()[0];
    let cells = array_cells(puzzles)?;
    let encoding = py.detach(|| cell_encoding(cells))?;
    let engine = options.engine()?;
    let mut records = Vec::with_capacity(SEGMENT.min(rows));
    let min = engine.threads() * engine.min_job(options.task);
    for range in Segments::new(rows, min) {
        py.check_signals()?;
        let (start, end) = (range.start, range.end);
        records.clear();
        records.extend(
            cells[start * CELLS..end * CELLS]
                .chunks_exact(CELLS)
                .map(|row| match encoding {
                    Cells::Ascii => Record::new(Grid::parse(row).map_err(Invalid::from)),
                    Cells::Values => {
                        let cells: [u8; CELLS] = row.try_into().expect("81 cells");
                        Record::new(Grid::from_cells(cells).map_err(Invalid::from))
                    }
                }),
        );
        let outcomes = py.detach(|| engine.answer(options.task, &records));
        emit(start, encoding, &outcomes);
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
    let mut deduper = Deduper::new();
    let kept = PyList::empty(py);
    let mut records = Vec::with_capacity(SEGMENT);
    for (list, keep) in against.iter().map(|a| (*a, false)).chain([(puzzles, true)]) {
        let mut reader = TextReader::new(py);
        for start in (0..list.len()).step_by(SEGMENT) {
            py.check_signals()?;
            records.clear();
            for i in start..(start + SEGMENT).min(list.len()) {
                records.push(reader.puzzle(&list.get_item(i)?).record());
            }
            for outcome in py.detach(|| engine.answer(task, &records)) {
                let new = deduper.keep(&outcome);
                if keep {
                    kept.append(new)?;
                }
            }
        }
        reader.refuse_wrong_type(if keep { "puzzles" } else { "against" })?;
    }
    Ok(kept)
}

/// The values of one Arrow array of text (string or binary, in any layout), by row; `None` for a
/// null.
#[derive(Clone, Copy)]
enum Texts<'a> {
    Utf8(&'a arrow_array::StringArray),
    LargeUtf8(&'a arrow_array::LargeStringArray),
    Utf8View(&'a arrow_array::StringViewArray),
    Binary(&'a arrow_array::BinaryArray),
    LargeBinary(&'a arrow_array::LargeBinaryArray),
    BinaryView(&'a arrow_array::BinaryViewArray),
    FixedBinary(&'a arrow_array::FixedSizeBinaryArray),
    Null,
}

impl<'a> Texts<'a> {
    /// The texts of an array of one of the types [`is_text`] accepts (dictionaries decoded).
    fn new(array: &'a dyn Array) -> Texts<'a> {
        match array.data_type() {
            DataType::Utf8 => Texts::Utf8(array.as_string()),
            DataType::LargeUtf8 => Texts::LargeUtf8(array.as_string()),
            DataType::Utf8View => Texts::Utf8View(array.as_string_view()),
            DataType::Binary => Texts::Binary(array.as_binary()),
            DataType::LargeBinary => Texts::LargeBinary(array.as_binary()),
            DataType::BinaryView => Texts::BinaryView(array.as_binary_view()),
            DataType::FixedSizeBinary(_) => Texts::FixedBinary(array.as_fixed_size_binary()),
            _ => Texts::Null,
        }
    }

    fn get(self, i: usize) -> Option<&'a [u8]> {
        macro_rules! value {
            ($a:expr, $v:expr) => {
                if $a.is_valid(i) {
                    Some($v)
                } else {
                    None
                }
            };
        }
        match self {
            Texts::Utf8(a) => value!(a, a.value(i).as_bytes()),
            Texts::LargeUtf8(a) => value!(a, a.value(i).as_bytes()),
            Texts::Utf8View(a) => value!(a, a.value(i).as_bytes()),
            Texts::Binary(a) => value!(a, a.value(i)),
            Texts::LargeBinary(a) => value!(a, a.value(i)),
            Texts::BinaryView(a) => value!(a, a.value(i)),
            Texts::FixedBinary(a) => value!(a, a.value(i)),
            Texts::Null => None,
        }
    }
}

/// Whether an Arrow type holds text the engine reads: strings or binary (any offset size, views,
/// fixed size), dictionary-encoded or not, or nulls only.
fn is_text(data_type: &DataType) -> bool {
    match data_type {
        DataType::Utf8
        | DataType::LargeUtf8
        | DataType::Utf8View
        | DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_)
        | DataType::Null => true,
        DataType::Dictionary(_, values) => is_text(values),
        _ => false,
    }
}

/// A chunk as an array [`Texts`] reads: a dictionary-encoded chunk is decoded (one chunk at a
/// time), any other is itself. Decoded to its values' type, or, where that overflows its 32-bit
/// offsets (over 2 GiB of text in one chunk), to the large variant.
fn decoded(chunk: &ArrayRef) -> PyResult<ArrayRef> {
    let DataType::Dictionary(_, values) = chunk.data_type() else {
        return Ok(Arc::clone(chunk));
    };
    let large = match values.as_ref() {
        DataType::Utf8 => Some(DataType::LargeUtf8),
        DataType::Binary => Some(DataType::LargeBinary),
        _ => None,
    };
    let decode = |to: &DataType| {
        arrow_cast::cast(chunk, to)
            .map_err(|e| PyValueError::new_err(format!("decoding a dictionary array: {e}")))
    };
    match (decode(values), large) {
        (Err(_), Some(large)) => decode(&large),
        (result, _) => result,
    }
}

/// An Arrow column read through the C Data Interface: its chunks (borrowed from the producer,
/// not copied) and whether it came as one array (`__arrow_c_array__`) or a stream of chunks.
struct Column {
    chunks: Vec<ArrayRef>,
    single: bool,
}

impl Column {
    /// Reads `any`, refusing a column that is not text with a TypeError that says how to get text.
    fn read(any: AnyArray, what: &str) -> PyResult<Column> {
        let single = matches!(any, AnyArray::Array(_));
        let reader = any.into_reader()?;
        let field = reader.field();
        if !is_text(field.data_type()) {
            return Err(PyTypeError::new_err(format!(
                "{what}: expected puzzle strings (an Arrow string or binary column), got Arrow \
                 type {}; read puzzle columns as text, for example pd.read_csv(..., dtype=str)",
                field.data_type()
            )));
        }
        let chunks = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PyValueError::new_err(format!("{what}: reading the Arrow stream: {e}")))?;
        Ok(Column { chunks, single })
    }

    fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.len()).sum()
    }

    /// The column with every dictionary chunk decoded.
    fn decoded(&self) -> PyResult<Vec<ArrayRef>> {
        self.chunks.iter().map(decoded).collect()
    }
}

/// Reads the values of chunked text one after another, across chunk boundaries (a solution
/// column need not be chunked like its puzzle column).
struct Cursor<'a> {
    chunks: &'a [ArrayRef],
    chunk: usize,
    row: usize,
    texts: Option<Texts<'a>>,
}

impl<'a> Cursor<'a> {
    fn new(chunks: &'a [ArrayRef]) -> Cursor<'a> {
        Cursor {
            chunks,
            chunk: 0,
            row: 0,
            texts: None,
        }
    }

    /// The next value (`None` for a null, or past the end).
    fn next(&mut self) -> Option<&'a [u8]> {
        while self.chunk < self.chunks.len() && self.row >= self.chunks[self.chunk].len() {
            self.chunk += 1;
            self.row = 0;
            self.texts = None;
        }
        let array = self.chunks.get(self.chunk)?;
        let texts = *self.texts.get_or_insert_with(|| Texts::new(array.as_ref()));
        self.row += 1;
        texts.get(self.row - 1)
    }
}

/// A string column being built: each value is appended whole (a grid's 81 digits, a status).
/// It becomes a `string` array, or a `large_string` one past 2 GiB.
struct TextBuilder {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    nulls: NullBufferBuilder,
}

impl TextBuilder {
    fn new(rows: usize, bytes_each: usize) -> TextBuilder {
        TextBuilder {
            bytes: Vec::with_capacity(rows * bytes_each),
            ends: Vec::with_capacity(rows),
            nulls: NullBufferBuilder::new(rows),
        }
    }

    /// Appends the bytes `write` writes (ASCII), or a null if it returns false.
    fn push(&mut self, write: impl FnOnce(&mut Vec<u8>) -> bool) {
        let start = self.bytes.len();
        if write(&mut self.bytes) {
            self.nulls.append_non_null();
        } else {
            self.bytes.truncate(start);
            self.nulls.append_null();
        }
        self.ends.push(self.bytes.len());
    }

    fn finish(mut self) -> ArrayRef {
        fn build<O: OffsetSizeTrait>(
            b: TextBuilder,
            nulls: Option<arrow_buffer::NullBuffer>,
        ) -> ArrayRef {
            let offsets: Vec<O> = std::iter::once(0)
                .chain(b.ends.iter().copied())
                .map(O::usize_as)
                .collect();
            let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
            Arc::new(GenericStringArray::<O>::new(
                offsets,
                Buffer::from_vec(b.bytes),
                nulls,
            ))
        }
        let nulls = self.nulls.finish();
        if self.bytes.len() <= i32::MAX as usize {
            build::<i32>(self, nulls)
        } else {
            build::<i64>(self, nulls)
        }
    }
}

/// One output column of Arrow answers, of a result column's type.
enum Answers {
    Text(TextBuilder),
    Int(Int64Builder),
    Float(Float64Builder),
    Bool(BooleanBuilder),
}

/// One answer value, for an [`Answers`] column.
enum Value {
    Grid(Grid),
    Str(&'static str),
    Int(i64),
    Float(f64),
    Bool(bool),
    Null,
}

impl Answers {
    fn new(kind: ColumnType, rows: usize) -> Answers {
        match kind {
            ColumnType::Grid => Answers::Text(TextBuilder::new(rows, CELLS)),
            ColumnType::Text => Answers::Text(TextBuilder::new(rows, 16)),
            ColumnType::Count => Answers::Int(Int64Builder::with_capacity(rows)),
            ColumnType::Float => Answers::Float(Float64Builder::with_capacity(rows)),
            _ => Answers::Bool(BooleanBuilder::with_capacity(rows)),
        }
    }

    fn push(&mut self, value: Value) {
        match (self, value) {
            (Answers::Text(b), Value::Grid(grid)) => b.push(|out| {
                let mut digits = [0u8; CELLS];
                grid.write_digits(&mut digits);
                out.extend_from_slice(&digits);
                true
            }),
            (Answers::Text(b), Value::Str(name)) => b.push(|out| {
                out.extend_from_slice(name.as_bytes());
                true
            }),
            (Answers::Int(b), Value::Int(v)) => b.append_value(v),
            (Answers::Float(b), Value::Float(v)) => b.append_value(v),
            (Answers::Bool(b), Value::Bool(v)) => b.append_value(v),
            (Answers::Text(b), _) => b.push(|_| false),
            (Answers::Int(b), _) => b.append_null(),
            (Answers::Float(b), _) => b.append_null(),
            (Answers::Bool(b), _) => b.append_null(),
        }
    }

    fn finish(self) -> ArrayRef {
        match self {
            Answers::Text(b) => b.finish(),
            Answers::Int(mut b) => Arc::new(b.finish()),
            Answers::Float(mut b) => Arc::new(b.finish()),
            Answers::Bool(mut b) => Arc::new(b.finish()),
        }
    }
}

/// The answer of an outcome, as the list route gives it (a grid, a count, a rating; `check`'s
/// verdict, false for a malformed puzzle).
fn answer_value(task: Task, outcome: &Outcome) -> Value {
    if task.needs_solution() {
        return Value::Bool(matches!(outcome, Outcome::Verified));
    }
    column_value(outcome, 0)
}

/// The value of result column `index` for an outcome (see [`column_object`]).
fn column_value(outcome: &Outcome, index: usize) -> Value {
    match (outcome, index) {
        (Outcome::Solved(grid) | Outcome::Canonical(grid), 0) => Value::Grid(*grid),
        (Outcome::Counted { found, .. }, 0) => Value::Int(i64::from(*found)),
        (Outcome::Rated(r), 0) => Value::Float(r.mean_guesses()),
        (Outcome::Rated(r), 1) => Value::Bool(r.singles),
        // Any other task's columns (grade), by the typed value the library gives.
        _ => match outcome.value(index) {
            Some(sudoku_batch::Value::Text(name)) => Value::Str(name),
            Some(sudoku_batch::Value::Float(x)) => Value::Float(x),
            Some(sudoku_batch::Value::Count(n)) => Value::Int(i64::from(n)),
            _ => Value::Null,
        },
    }
}

/// The output columns of a task over Arrow: the answer (or with `with_columns`, each result
/// column), then the statuses when asked; as `(name, kind)`.
fn arrow_outputs(options: &Options) -> Vec<(&'static str, ColumnType)> {
    let task = options.task;
    let mut outputs: Vec<(&'static str, ColumnType)> = if options.with_columns {
        task.columns()
            .iter()
            .map(|c| match options.text_columns {
                true => (c.name, ColumnType::Text),
                false => (c.name, c.kind),
            })
            .collect()
    } else if task.needs_solution() {
        vec![("ok", ColumnType::Bool)]
    } else {
        let first = task.columns()[0];
        vec![(first.name, first.kind)]
    };
    if options.with_status {
        outputs.push((sudoku_batch::STATUS.name, ColumnType::Text));
    }
    outputs
}

/// Outputs as Python objects: one array per output when the input was one array, else a chunked
/// array (one chunk per input chunk), each exposing the Arrow PyCapsule protocol.
fn arrow_objects(
    py: Python<'_>,
    names: &[(&'static str, ColumnType)],
    columns: Vec<Vec<ArrayRef>>,
    single: bool,
) -> PyResult<Vec<Py<PyAny>>> {
    names
        .iter()
        .zip(columns)
        .map(|(&(name, kind), chunks)| {
            let data_type = match chunks.first() {
                Some(c) => c.data_type().clone(),
                None => match kind {
                    ColumnType::Count => DataType::Int64,
                    ColumnType::Float => DataType::Float64,
                    ColumnType::Bool => DataType::Boolean,
                    _ => DataType::Utf8,
                },
            };
            let field = Arc::new(Field::new(name, data_type, true));
            if single && chunks.len() == 1 {
                let array = chunks.into_iter().next().expect("one chunk");
                Ok(PyArray::new(array, field)
                    .into_pyobject(py)?
                    .into_any()
                    .unbind())
            } else {
                // Chunks of a column all have one type, except a text column that outgrew
                // `string` in one chunk: then every chunk is made `large_string`.
                let large = chunks.iter().any(|c| c.data_type() == &DataType::LargeUtf8);
                let chunks = if large {
                    chunks
                        .iter()
                        .map(|c| arrow_cast::cast(c, &DataType::LargeUtf8))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|e| PyValueError::new_err(e.to_string()))?
                } else {
                    chunks
                };
                let field = if large {
                    Arc::new(Field::new(name, DataType::LargeUtf8, true))
                } else {
                    field
                };
                Ok(PyChunkedArray::try_new(chunks, field)?
                    .into_pyobject(py)?
                    .into_any()
                    .unbind())
            }
        })
        .collect()
}

/// Any task but dedupe over an Arrow column of puzzles (and for `check`, an Arrow column of
/// solutions of the same length), read in place. Returns the output arrays (see
/// [`arrow_outputs`]), each an array if the puzzles came as one array, else a chunked array with
/// one chunk per puzzle chunk. A null puzzle is an invalid record (`invalid: the puzzle is null`).
#[pyfunction]
#[pyo3(signature = (puzzles, solutions, options))]
fn run_arrow(
    py: Python<'_>,
    puzzles: AnyArray,
    solutions: Option<AnyArray>,
    options: &Options,
) -> PyResult<Vec<Py<PyAny>>> {
    let task = options.task;
    if task.filters() {
        return Err(PyValueError::new_err("dedupe over Arrow: use dedupe_arrow"));
    }
    let puzzles = Column::read(puzzles, "puzzles")?;
    let solutions = solutions
        .map(|s| Column::read(s, "solutions"))
        .transpose()?;
    if let Some(s) = &solutions {
        let (n, m) = (puzzles.len(), s.len());
        if n != m {
            return Err(PyValueError::new_err(format!(
                "{n} puzzles but {m} solutions: check needs one solution per puzzle"
            )));
        }
    }
    let solution_chunks = solutions.as_ref().map(Column::decoded).transpose()?;
    let mut solution_cursor = solution_chunks.as_deref().map(Cursor::new);
    let engine = options.engine()?;
    let outputs = arrow_outputs(options);
    let mut columns: Vec<Vec<ArrayRef>> = vec![Vec::new(); outputs.len()];
    let mut solution_texts: Vec<Option<&[u8]>> = Vec::with_capacity(SEGMENT);
    for chunk in &puzzles.chunks {
        let chunk = decoded(chunk)?;
        let texts = Texts::new(chunk.as_ref());
        let rows = chunk.len();
        let mut builders: Vec<Answers> = outputs
            .iter()
            .map(|&(_, kind)| match kind {
                ColumnType::Text => Answers::Text(TextBuilder::new(rows, 16)),
                kind => Answers::new(kind, rows),
            })
            .collect();
        for range in Segments::new(rows, engine.threads() * task.job_len(ARROW_JOB).0) {
            py.check_signals()?;
            let (start, end) = (range.start, range.end);
            py.detach(|| {
                solution_texts.clear();
                if let Some(cursor) = solution_cursor.as_mut() {
                    solution_texts.extend((start..end).map(|_| cursor.next()));
                }
                // Each puzzle is parsed on the worker that answers it: on puzzles solved in a
                // microsecond or two, parsing them first on this thread left the pool idle.
                let (texts, solution_texts) = (&texts, &solution_texts);
                let (min, max) = task.job_len(ARROW_JOB);
                let outcomes: Vec<Outcome> = engine.install(|| {
                    (start..end)
                        .into_par_iter()
                        .with_min_len(min)
                        .with_max_len(max)
                        .map(|i| {
                            let read = match texts.get(i) {
                                Some(text) => Read::text(text),
                                None => Read::Puzzle(Err(NULL)),
                            };
                            match solution_texts.get(i - start) {
                                Some(&solution) => read
                                    .record()
                                    .with_solution_value(solution.ok_or(Invalid::NullSolution)),
                                None => read.record(),
                            }
                            .answer(task)
                        })
                        .collect()
                });
                for outcome in &outcomes {
                    for (index, builder) in builders.iter_mut().enumerate() {
                        match builder {
                            // The status, the last output when asked for (grade's text
                            // columns are answers).
                            Answers::Text(b)
                                if options.with_status && index + 1 == outputs.len() =>
                            {
                                b.push(|out| {
                                    outcome.write_status(out);
                                    true
                                })
                            }
                            Answers::Text(b) if options.with_columns && options.text_columns => {
                                b.push(|out| outcome.write_column(index, out))
                            }
                            _ if options.with_columns => builder.push(column_value(outcome, index)),
                            _ => builder.push(answer_value(task, outcome)),
                        }
                    }
                }
            });
        }
        for (column, builder) in columns.iter_mut().zip(builders) {
            column.push(builder.finish());
        }
    }
    py.check_signals()?;
    arrow_objects(py, &outputs, columns, puzzles.single)
}

/// `dedupe` over Arrow columns: for each record of `puzzles`, whether it is kept (the first of its
/// class, and in no class of `against`), as a boolean array (chunked like `puzzles`). A malformed
/// or null record is kept.
#[pyfunction]
#[pyo3(signature = (puzzles, against, options))]
fn dedupe_arrow(
    py: Python<'_>,
    puzzles: AnyArray,
    against: Option<AnyArray>,
    options: &Options,
) -> PyResult<Py<PyAny>> {
    let task = options.task_is("dedupe")?;
    let puzzles = Column::read(puzzles, "puzzles")?;
    let against = against.map(|a| Column::read(a, "against")).transpose()?;
    let engine = options.engine()?;
    let mut deduper = Deduper::new();
    let mut kept = Vec::new();
    for (column, keep) in against.iter().map(|a| (a, false)).chain([(&puzzles, true)]) {
        for chunk in &column.chunks {
            let chunk = decoded(chunk)?;
            let texts = Texts::new(chunk.as_ref());
            let rows = chunk.len();
            let mut mask = BooleanBuilder::with_capacity(if keep { rows } else { 0 });
            for start in (0..rows).step_by(SEGMENT) {
                py.check_signals()?;
                py.detach(|| {
                    let records: Vec<Record<'_>> = (start..(start + SEGMENT).min(rows))
                        .map(|i| match texts.get(i) {
                            Some(text) => Read::text(text).record(),
                            None => Read::Puzzle(Err(NULL)).record(),
                        })
                        .collect();
                    for outcome in engine.answer(task, &records) {
                        let new = deduper.keep(&outcome);
                        if keep {
                            mask.append_value(new);
                        }
                    }
                });
            }
            if keep {
                kept.push(Arc::new(mask.finish()) as ArrayRef);
            }
        }
    }
    let mut objects = arrow_objects(
        py,
        &[("kept", ColumnType::Bool)],
        vec![kept],
        puzzles.single,
    )?;
    Ok(objects.pop().expect("one output"))
}

/// Collects the engine's messages for `run_file`, and stops the run when asked.
struct Collect {
    messages: Vec<(u64, String)>,
    /// What the CLI prints on stderr before the run (see `Observer::start`).
    note: Option<String>,
    stop: Arc<AtomicBool>,
}

impl Observer for Collect {
    fn start(&mut self, _work: Work, note: Option<&str>) {
        self.note = note.map(str::to_owned);
    }
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
        .output_format(options.output_format)
        .column(options.column.clone())
        .solution_column(options.solution_column.clone())
        .keep_solution_column(options.keep_solution_column)
        .against(options.against.clone())
        .against_column(options.against_column.clone())
        .threads(options.threads)
        .max_messages(options.max_messages)
        .shard(options.shard)
        .engine(options.engine()?);
    let stop = Arc::new(AtomicBool::new(false));
    let mut collect = Collect {
        messages: Vec::new(),
        note: None,
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
    // As the CLI's `--stats json`: dedupe answers nothing; it keeps and drops records.
    match options.task.filters() {
        true => d.set_item("kept", t.records - t.duplicates)?,
        false => d.set_item("solved", t.solved)?,
    }
    d.set_item("unsolvable", t.unsolvable)?;
    d.set_item("invalid", t.invalid)?;
    d.set_item("wrong", t.wrong)?;
    d.set_item("unique", t.unique)?;
    d.set_item("multiple", t.multiple)?;
    d.set_item("duplicates", t.duplicates)?;
    d.set_item("against_unread", summary.against_unread)?;
    d.set_item("against_first", summary.against_first.as_deref())?;
    d.set_item("against_note", summary.against_note.as_deref())?;
    d.set_item("filled_column", summary.filled_column)?;
    d.set_item("replaced", t.replaced)?;
    d.set_item("seconds", summary.seconds)?;
    d.set_item("puzzles_per_second", summary.puzzles_per_second)?;
    d.set_item("format", summary.format)?;
    d.set_item("threads", summary.threads)?;
    d.set_item("note", collect.note)?;
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
        BatchError::OutputClosed
        | BatchError::InputChanged { .. }
        | BatchError::Engine(EngineError::Pool(_)) => PyOSError::new_err(text),
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

/// The field separator of a CSV input whose header row starts `header` (`","`, `"\t"` or
/// `";"`), as the engine reads it: for Spark's CSV reader and writer.
#[pyfunction]
fn csv_separator(header: &[u8]) -> String {
    char::from(sudoku_batch::csv_separator(header)).to_string()
}

/// The header row a line-format input starting `prefix` has, if it has one (`puzzle solution`:
/// column names, the first a puzzle column's): its line (counting from 0) and the offset in
/// `prefix` just past it; `complete` when `prefix` is the whole input. The engine skips that
/// line; Spark's route drops it.
#[pyfunction]
fn line_header(prefix: &[u8], complete: bool) -> Option<(u64, usize)> {
    sudoku_batch::line_header(prefix, complete)
}

/// The format the engine detects from the start of an input: `"line"`, `"grid"` or `"csv"`;
/// ValueError, with the CLI's message, for an input the CLI refuses before reading it (binary,
/// no puzzle in any format, a table's rows without their header row).
#[pyfunction]
#[pyo3(signature = (prefix, column=None))]
fn detect_format(prefix: &[u8], column: Option<&str>) -> PyResult<&'static str> {
    use sudoku_batch::FormatError;
    let detected = match sudoku_batch::binary(prefix) {
        Some(what) => Err(FormatError::Binary(what)),
        None => sudoku_batch::detect(prefix, column).readable(),
    };
    let detected = detected.map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(match detected.choice {
        FormatChoice::Auto => "line",
        choice => choice.name(),
    })
}

/// The index of the puzzle column of a table that names none, found by the values of its first
/// rows (`batch`, a record batch: pyarrow's, or anything with `__arrow_c_array__`) as the CLI
/// finds it; `None` if no column holds a puzzle. Spark's route uses it on a table's first rows.
#[pyfunction]
fn puzzle_column_by_values(batch: PyRecordBatch) -> Option<usize> {
    sudoku_batch::puzzle_column_by_values(&batch.into_inner())
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
    m.add_function(wrap_pyfunction!(csv_separator, m)?)?;
    m.add_function(wrap_pyfunction!(line_header, m)?)?;
    m.add_function(wrap_pyfunction!(result_columns, m)?)?;
    m.add_function(wrap_pyfunction!(puzzle_column_by_values, m)?)?;
    m.add("PUZZLE_NAMES", sudoku_batch::PUZZLE_NAMES.to_vec())?;
    m.add("SOLUTION_NAMES", sudoku_batch::SOLUTION_NAMES.to_vec())?;
    m.add("STATUS", sudoku_batch::STATUS.name)?;
    m.add("TASK_NAMES", sudoku_batch::TASK_NAMES.to_vec())?;
    m.add("GRADE_VERSION", sudoku_batch::grade::GRADE_VERSION)?;
    m.add("RATE_VERSION", sudoku_batch::RATE_VERSION)?;
    m.add_function(wrap_pyfunction!(run_list, m)?)?;
    m.add_function(wrap_pyfunction!(solve_array, m)?)?;
    m.add_function(wrap_pyfunction!(count_array, m)?)?;
    m.add_function(wrap_pyfunction!(run_file, m)?)?;
    m.add_function(wrap_pyfunction!(dedupe_list, m)?)?;
    m.add_function(wrap_pyfunction!(array_cell_encoding, m)?)?;
    m.add_function(wrap_pyfunction!(run_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(dedupe_arrow, m)?)?;
    Ok(())
}
