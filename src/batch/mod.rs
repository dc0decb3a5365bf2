//! The batch pipeline: reads an input in blocks of whole records, answers the blocks on the
//! engine's pool, and writes them in input order from a writer thread while later blocks are
//! still being solved.
//!
//! ```text
//! INPUT --(mmap, or stream in pieces)--> Reader: blocks ending on record boundaries (framing)
//!       --> Engine's pool: the format's reader + renderer in the one per-record loop
//!       --> crossbeam channel --> writer thread: reorders by sequence number, filters (dedupe),
//!           writes in order --> OUTPUT (a caller's writer, or a temporary file renamed at the end)
//! ```
//!
//! A fixed set of [`writer::Slot`]s (a few per thread) circulates between the reader, the workers
//! and the writer: the reader waits for a free slot before it cuts the next block, so the blocks in
//! flight, and the heap, stay bounded whatever the input size.
//!
//! The pipeline prints nothing: messages about bad records and progress go to an [`Observer`].

pub(crate) mod output;
pub(crate) mod reader;
pub(crate) mod writer;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use crate::dataset::dedupe::Deduper;
use crate::engine::{Engine, EngineError};
use crate::formats::{self, FormatChoice, FormatError, Opened};
use crate::observe::{Message, Observer, Work};
use crate::task::{Outcome, Tally, Task};
use output::Sink;
use reader::{InputStamp, Reader};
use writer::{Context, Done, Slot, Written};

/// A writer-side stage of a filtering task: given each record's outcome in input order, says
/// whether the record is written. `dedupe`'s [`Deduper`] is one.
pub(crate) trait Filter: Send {
    /// Whether the record with this outcome is kept.
    fn keep(&mut self, outcome: &Outcome) -> bool;
}

/// What to do with every record, and how: [`Config::new`] and the setters.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// The task every record gets.
    pub task: Task,
    /// The input format, or `auto` to detect it.
    pub format: FormatChoice,
    /// CSV: the name of the puzzle column, overriding the usual names.
    pub column: Option<String>,
    /// CSV: the name of the solution column (`check` reads it, `solve` fills it), overriding the
    /// usual names.
    pub solution_column: Option<String>,
    /// `dedupe`: also drop records equivalent to any record of this file (train/test leakage);
    /// `-` reads it from stdin (the input must then be another file).
    pub against: Option<PathBuf>,
    /// `dedupe --against`: the name of that file's puzzle column (else found as for the input).
    pub against_column: Option<String>,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Hand at most this many messages about bad records to the observer (the rest are counted).
    pub max_messages: usize,
    /// Answer only this shard of a file input.
    pub shard: Option<Shard>,
    /// Run on this engine's pool (its threads) instead of a pool made for the run.
    pub engine: Option<Arc<Engine>>,
    /// The output's format (a Parquet or Arrow input may be written in another).
    pub output_format: OutputFormat,
    /// `solve` on a table with a solution column: keep that column as it came and add the
    /// answers as a new column, instead of filling it in place.
    pub keep_solution_column: bool,
}

impl Default for Config {
    /// [`Config::new`] with the default task (solve).
    fn default() -> Config {
        Config::new(Task::default())
    }
}

impl Config {
    /// `task` on every record, format detected, one thread per core, at most 20 messages.
    pub fn new(task: Task) -> Config {
        Config {
            task,
            format: FormatChoice::Auto,
            column: None,
            solution_column: None,
            against: None,
            against_column: None,
            threads: 0,
            max_messages: 20,
            shard: None,
            engine: None,
            output_format: OutputFormat::Auto,
            keep_solution_column: false,
        }
    }
    /// `solve` on a table with a solution column: keeps it and adds the answers as a new
    /// column, instead of filling it in place.
    pub fn keep_solution_column(mut self, keep: bool) -> Self {
        self.keep_solution_column = keep;
        self
    }
    /// Sets the output format.
    pub fn output_format(mut self, format: OutputFormat) -> Self {
        self.output_format = format;
        self
    }
    /// Sets the input format.
    pub fn format(mut self, format: FormatChoice) -> Self {
        self.format = format;
        self
    }
    /// Sets the CSV puzzle column by name.
    pub fn column(mut self, name: Option<String>) -> Self {
        self.column = name;
        self
    }
    /// Sets the CSV solution column by name.
    pub fn solution_column(mut self, name: Option<String>) -> Self {
        self.solution_column = name;
        self
    }
    /// `dedupe`: also drops records equivalent to a record of this file.
    pub fn against(mut self, path: Option<PathBuf>) -> Self {
        self.against = path;
        self
    }
    /// `dedupe --against`: names that file's puzzle column (a table's, or a CSV file's).
    pub fn against_column(mut self, name: Option<String>) -> Self {
        self.against_column = name;
        self
    }
    /// Sets the worker threads (0: one per core).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
    /// Sets the cap on messages about bad records.
    pub fn max_messages(mut self, n: usize) -> Self {
        self.max_messages = n;
        self
    }
    /// Answers only this shard of a file.
    pub fn shard(mut self, shard: Option<Shard>) -> Self {
        self.shard = shard;
        self
    }
    /// Runs on `engine`'s pool (and its thread count) instead of a pool made for the run: an
    /// embedder running many inputs starts no threads per run.
    pub fn engine(mut self, engine: Arc<Engine>) -> Self {
        self.engine = Some(engine);
        self
    }
}

/// The format of the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OutputFormat {
    /// A text input is answered in its own format. A Parquet or Arrow input: the format the
    /// output file's name says (`.parquet`; `.arrow`, `.feather` or `.ipc`; `.csv`), else lines.
    #[default]
    Auto,
    /// One answer per line.
    Line,
    /// Every input column, then the result columns and the status (Parquet or Arrow input).
    Csv,
    /// A Parquet file: every input column with its type, then the result columns and the status.
    Parquet,
    /// An Arrow IPC file (Feather v2), with the same columns as Parquet.
    Arrow,
}

impl OutputFormat {
    /// Every output format's name.
    pub const NAMES: [&'static str; 5] = ["auto", "line", "csv", "parquet", "arrow"];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            OutputFormat::Auto => "auto",
            OutputFormat::Line => "line",
            OutputFormat::Csv => "csv",
            OutputFormat::Parquet => "parquet",
            OutputFormat::Arrow => "arrow",
        }
    }

    /// The format a file's name asks for: by its extension, else [`OutputFormat::Line`].
    pub fn from_path(path: &std::path::Path) -> OutputFormat {
        let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        match extension.to_ascii_lowercase().as_str() {
            "parquet" | "pq" => OutputFormat::Parquet,
            "arrow" | "feather" | "ipc" => OutputFormat::Arrow,
            "csv" => OutputFormat::Csv,
            _ => OutputFormat::Line,
        }
    }
}

impl std::fmt::Display for OutputFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for OutputFormat {
    type Err = FormatError;

    fn from_str(name: &str) -> Result<OutputFormat, FormatError> {
        const ALL: [OutputFormat; 5] = [
            OutputFormat::Auto,
            OutputFormat::Line,
            OutputFormat::Csv,
            OutputFormat::Parquet,
            OutputFormat::Arrow,
        ];
        ALL.into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| FormatError::UnknownOutputFormat(name.to_string()))
    }
}

/// One of `count` parts of a file: the records whose first byte lies in the `index`-th of `count`
/// equal byte ranges of the records' bytes (a CSV header is read by every shard and written by
/// the first only). The outputs of shards 1..=count, concatenated in order, are the unsharded
/// output byte for byte, and messages give the whole file's line numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    index: u64,
    count: u64,
}

/// A shard that is not `K/N` with 1 <= K <= N.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("expected K/N with 1 <= K <= N (for example 3/8), not {0:?}")]
pub struct ShardError(String);

impl Shard {
    /// Part `index` (1-based) of `count`.
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if index == 0 || index > count {
            return Err(ShardError(format!("{index}/{count}")));
        }
        Ok(Shard { index, count })
    }
    /// The part, 1-based.
    pub fn index(self) -> u64 {
        self.index
    }
    /// The number of parts.
    pub fn count(self) -> u64 {
        self.count
    }
}

impl std::str::FromStr for Shard {
    type Err = ShardError;

    /// `K/N`, with 1 <= K <= N.
    fn from_str(text: &str) -> Result<Shard, ShardError> {
        let usage = || ShardError(text.to_string());
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count) = (
            k.trim().parse().map_err(|_| usage())?,
            n.trim().parse().map_err(|_| usage())?,
        );
        Shard::new(index, count).map_err(|_| usage())
    }
}

/// Where the records come from.
#[non_exhaustive]
#[allow(missing_docs)] // the variant docs say what each field holds
pub enum Input<'a> {
    /// A file: mapped when it is a regular file, streamed otherwise (a FIFO, `/proc` files).
    Path(PathBuf),
    /// Any reader (a pipe, memory), streamed in blocks; `name` is used in error messages.
    Reader {
        name: String,
        reader: Box<dyn Read + 'a>,
    },
    /// The process's standard input, streamed in blocks. When it is a regular file (`< file`),
    /// the run checks that the file did not change while it was read, as for [`Input::Path`].
    Stdin,
}

impl<'a> Input<'a> {
    /// A reader, named `name` in messages.
    pub fn reader(name: impl Into<String>, reader: impl Read + 'a) -> Input<'a> {
        Input::Reader {
            name: name.into(),
            reader: Box::new(reader),
        }
    }
    /// Its name in messages.
    pub fn name(&self) -> String {
        match self {
            Input::Path(p) => path_label(p),
            Input::Reader { name, .. } => name.clone(),
            Input::Stdin => STDIN.to_string(),
        }
    }
}

/// Where the answers go.
#[non_exhaustive]
#[allow(missing_docs)] // the variant docs say what each field holds
pub enum Output<'a> {
    /// Written beside the destination under a temporary name, renamed into place on success.
    Path(PathBuf),
    /// Any writer (stdout, memory); `name` is used in error messages.
    Writer {
        name: String,
        writer: Box<dyn Write + Send + 'a>,
    },
}

impl<'a> Output<'a> {
    /// A writer, named `name` in messages.
    pub fn writer(name: impl Into<String>, writer: impl Write + Send + 'a) -> Output<'a> {
        Output::Writer {
            name: name.into(),
            writer: Box::new(writer),
        }
    }
}

/// What a finished run did.
#[derive(Debug, Clone, serde::Serialize)]
#[non_exhaustive]
pub struct Summary {
    #[serde(flatten)]
    /// Counts of outcomes.
    pub tally: Tally,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Records per second.
    pub puzzles_per_second: f64,
    /// The format read (`line`, `grid` or `csv`).
    pub format: &'static str,
    /// Worker threads used.
    pub threads: usize,
    /// Messages about bad records that were not handed to the observer.
    pub messages_not_shown: u64,
    /// `dedupe --against`: records of the other file that could not be read (malformed), so
    /// could not be compared against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_unread: Option<u64>,
    /// `dedupe --against`: the first of those records, as `file:line: problem`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_first: Option<String>,
    /// `dedupe --against`: why that file's format or puzzle column was chosen, when detection
    /// weighed one reading against another (as [`Observer::start`]'s note for the input).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_note: Option<String>,
    /// `solve` on a table: the input's solution column that the answers were written into, in
    /// place of its values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filled_column: Option<String>,
}

impl Summary {
    /// Whether the run should end with exit status 1: a bad record in the input (or in the
    /// file `dedupe --against` compared with).
    pub fn failed(&self) -> bool {
        self.tally.failed() > 0 || self.against_unread.unwrap_or(0) > 0
    }
}

/// How a path is named in messages: as it displays, with control characters, line and
/// paragraph separators and bidirectional controls escaped (`\n`, `\u{1b}`, `\u{202e}`), so
/// that a file name can neither split a message in two nor make a terminal show it reordered.
/// On Unix, a byte that is not UTF-8 shows as `\xNN` (displaying would show each as U+FFFD).
pub fn path_label(path: &std::path::Path) -> String {
    let mut label = String::new();
    #[cfg(unix)]
    {
        use std::fmt::Write;
        use std::os::unix::ffi::OsStrExt;
        for chunk in path.as_os_str().as_bytes().utf8_chunks() {
            push_escaped(&mut label, chunk.valid());
            for b in chunk.invalid() {
                let _ = write!(label, "\\x{b:02x}");
            }
        }
    }
    #[cfg(not(unix))]
    push_escaped(&mut label, &path.display().to_string());
    label
}

/// Pushes `text` to `label`, with the characters [`path_label`] escapes escaped.
fn push_escaped(label: &mut String, text: &str) {
    let hidden = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}'
            )
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c)
    };
    for c in text.chars() {
        match hidden(c) {
            true => label.extend(c.escape_default()),
            false => label.push(c),
        }
    }
}

/// Why a run stopped (usage and I/O problems; bad records are not errors).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
pub enum BatchError {
    #[error("{}: cannot open: {source}", path_label(path))]
    Open { path: PathBuf, source: io::Error },
    #[error("{name}: read error: {source}")]
    Read { name: String, source: io::Error },
    #[error("{}: cannot create the output file: {source}", path_label(path))]
    Create { path: PathBuf, source: io::Error },
    #[error("{name}: write error: {source}")]
    Write { name: String, source: io::Error },
    #[error(
        "{}: cannot move the finished output into place: {source}",
        path_label(path)
    )]
    Finish { path: PathBuf, source: io::Error },
    #[error("{name}: {source}")]
    Format { name: String, source: FormatError },
    /// The reader of the output went away (a closed pipe): not worth a message.
    #[error("output closed")]
    OutputClosed,
    /// The observer asked the run to stop.
    #[error("stopped")]
    Stopped,
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The input file was written to while it was read: the answers may mix old and new bytes.
    #[error(
        "{name}: the input file changed while it was read (written in place?); {}",
        what_was_written(*answers_written)
    )]
    InputChanged { name: String, answers_written: bool },
    #[error("{name}: --shard needs a regular file as input (it cannot be streamed)")]
    ShardNeedsFile { name: String },
    /// A shard would only see its own records: dedupe keeps the first of a class in the whole
    /// input.
    #[error("dedupe cannot run on a shard (a shard sees only its own records); canonicalize the shards with canon and drop repeated forms afterwards")]
    DedupeSharded,
}

/// The end of [`BatchError::InputChanged`]'s message: what became of the answers.
fn what_was_written(answers_written: bool) -> &'static str {
    match answers_written {
        true => "the answers written so far may not match it",
        false => "no output was written",
    }
}

/// The most worker threads a run may ask for: far more than any machine's cores, and few enough
/// that a typo (`-j 10000`) cannot start thousands of threads.
pub const MAX_THREADS: usize = 1024;

/// Total bytes of block buffers the slots may hold: keeps the heap flat whatever the thread count.
const SLOT_BUDGET: usize = 24 << 20;
const MAX_BLOCK: usize = 1 << 20;
const MIN_BLOCK: usize = 64 << 10;
/// The largest block of a mapped file for the slow tasks (see `Task::block_limit`), and the
/// blocks each thread should still have of what is left before they shrink.
const SLOW_MAPPED_BLOCK: usize = 64 << 10;
const SLOW_AHEAD: usize = 16;

/// Runs the whole batch: every record of `input` gets exactly one answer in `output`, in order.
pub fn run(
    config: &Config,
    input: Input<'_>,
    output: Output<'_>,
    observer: &mut dyn Observer,
) -> Result<Summary, BatchError> {
    let task = config.task;
    if task.filters() && config.shard.is_some() {
        return Err(BatchError::DedupeSharded);
    }
    if !task.filters() {
        return run_once(config, input, output, observer, None);
    }
    let mut deduper = Deduper::new();
    let Some(against) = &config.against else {
        return run_once(config, input, output, observer, Some(&mut deduper));
    };
    // The classes of the other file go in first; its own records are not written anywhere.
    // Its format and columns are detected on their own: it may be laid out differently.
    let mut pass = Config::new(task)
        .column(config.against_column.clone())
        .threads(config.threads)
        .max_messages(1);
    pass.engine = config.engine.clone();
    let sink = Output::writer("nowhere", io::sink());
    let against = match against.as_os_str() == "-" {
        true => Input::Stdin,
        false => Input::Path(against.clone()),
    };
    let name = against.name();
    let mut first = AgainstPass::default();
    let loaded =
        run_once(&pass, against, sink, &mut first, Some(&mut deduper)).map_err(|e| match e {
            BatchError::Format {
                name,
                source: FormatError::NoPuzzleColumn { names },
            } => BatchError::Format {
                name,
                source: FormatError::NoAgainstPuzzleColumn { names },
            },
            // The pass's `--column` is the user's `--against-column`.
            BatchError::Format {
                name,
                source: FormatError::NoColumns { format, .. },
            } => BatchError::Format {
                name,
                source: FormatError::NoColumns {
                    flag: "--against-column",
                    format,
                },
            },
            // Nothing is written in this pass, nor has the output been opened.
            BatchError::InputChanged { name, .. } => BatchError::InputChanged {
                name: format!("--against {name}"),
                answers_written: false,
            },
            e => e,
        })?;
    if let Some(note) = &first.note {
        observer.status(&format!("--against {name}: {note}"));
    }
    let mut summary = run_once(config, input, output, observer, Some(&mut deduper))?;
    summary.against_note = first.note;
    summary.against_unread = Some(loaded.tally.invalid);
    summary.against_first = first
        .message
        .map(|m| format!("{name}:{}: {}", m.line, m.problem));
    Ok(summary)
}

/// What the `dedupe --against` pass reports: why its file's format or puzzle column was chosen,
/// and its first message.
#[derive(Default)]
struct AgainstPass {
    note: Option<String>,
    message: Option<Message>,
}

impl Observer for AgainstPass {
    fn start(&mut self, _work: Work, note: Option<&str>) {
        self.note = note.map(str::to_owned);
    }

    fn message(&mut self, message: &Message) {
        if self.message.is_none() {
            self.message = Some(*message);
        }
    }
}

/// One input through the pipeline: what [`run`] does once, or twice for `dedupe --against`.
fn run_once(
    config: &Config,
    input: Input<'_>,
    output: Output<'_>,
    observer: &mut dyn Observer,
    filter: Option<&mut (dyn Filter + 'static)>,
) -> Result<Summary, BatchError> {
    let started = Instant::now();
    // A shard is a byte range of a file: refused for a stream before anything is read from it
    // (even an empty one, and however long it takes to send its first byte).
    let streamed = match &input {
        Input::Reader { .. } | Input::Stdin => true,
        Input::Path(path) => std::fs::metadata(path).is_ok_and(|m| !m.is_file()),
    };
    if config.shard.is_some() && streamed {
        return Err(BatchError::ShardNeedsFile { name: input.name() });
    }
    // Standard input that is a regular file is stamped as a named file is, before any byte of
    // it is read; from here on it is a stream like any other. Its descriptor, as for a stream
    // opened below, tells a writer's pause. (Without parquet, nothing below changes either: a
    // columnar input takes the stamp, a FIFO opened for sniffing sets the descriptor.)
    #[cfg_attr(not(feature = "parquet"), allow(unused_mut))]
    let (input, mut stdin_stamp, mut stream_fd) = match input {
        Input::Stdin => {
            let stamp = stdin_stamp().map_err(|source| BatchError::Read {
                name: STDIN.to_string(),
                source,
            })?;
            (
                Input::reader(STDIN, io::stdin()),
                stamp,
                reader::fd_of(&io::stdin()),
            )
        }
        input => (input, None, None),
    };
    let engine = match &config.engine {
        Some(engine) => Arc::clone(engine),
        None => Arc::new(Engine::new(config.threads)?),
    };
    let threads = engine.threads();
    let slots = 2 * threads + 2;
    // A text input is answered in its own format; a columnar one by default in the format its
    // output's name says.
    let output_format = match (config.output_format, &output) {
        (OutputFormat::Auto, Output::Path(path)) => OutputFormat::from_path(path),
        (OutputFormat::Auto, _) => OutputFormat::Line,
        (chosen, _) => chosen,
    };
    #[cfg(feature = "parquet")]
    let input = match columnar_file(input, config)? {
        Sniffed::Columnar(columnar) => {
            let (sink, out_name) = open_output(output)?;
            return columnar.run(
                config,
                engine,
                sink,
                out_name,
                output_format,
                observer,
                filter,
            );
        }
        Sniffed::Text(input) => input,
    };
    // The output is checked before the input is read: a bad `-o` fails at once.
    let (mut sink, out_name) = open_output(output)?;
    #[cfg(feature = "parquet")]
    let input = match columnar_stream(input, config, &mut stdin_stamp, &mut stream_fd)? {
        Sniffed::Columnar(columnar) => {
            return columnar.run(
                config,
                engine,
                sink,
                out_name,
                output_format,
                observer,
                filter,
            );
        }
        Sniffed::Text(input) => input,
    };
    let block_size = (SLOT_BUDGET / 2 / slots).clamp(MIN_BLOCK, MAX_BLOCK);
    // A task that may spend milliseconds per record reads small blocks, so that a file of a few
    // hundred records still spreads over every thread: at its limit where the input's length
    // is unknown (a stream), and where a mapped file has less than `SLOW_AHEAD` blocks per
    // thread left of what it would hold otherwise (up to `SLOW_MAPPED_BLOCK`, which keeps the
    // cost of handing blocks over small where records are answered in microseconds). Blocks
    // already handed out are still being answered: fast tasks shrink them to half a thread's
    // share of what is left.
    let slow_limit = config.task.block_limit();
    let (block_size, min_block, ahead) = match slow_limit {
        Some(limit) => (block_size.min(SLOW_MAPPED_BLOCK), limit, SLOW_AHEAD),
        None => (block_size, MIN_BLOCK, 2),
    };
    let (mut reader, name, stamp) = open_input(input, block_size, stream_fd)?;
    let stamp = stamp.or(stdin_stamp);
    reader.share(threads, min_block, ahead);
    if let Some(limit) = slow_limit {
        reader.limit_streamed(limit);
    }
    let (opened, shard) = open_records(&mut reader, &name, config)?;
    let own_format = match opened.format.name() {
        "csv" => OutputFormat::Csv,
        _ => OutputFormat::Line,
    };
    if matches!(config.task, Task::Explain { .. }) && own_format != OutputFormat::Line {
        return Err(BatchError::Format {
            name,
            source: FormatError::Explain("a CSV"),
        });
    }
    // `solve` on a grid input writes grids (other tasks one line per grid): `line` asked for
    // is refused rather than ignored.
    if config.output_format == OutputFormat::Line
        && opened.format.name() == "grid"
        && matches!(config.task, Task::Solve { .. })
    {
        return Err(BatchError::Format {
            name,
            source: FormatError::GridSolutionsAsLines,
        });
    }
    // A text input is answered as text: a format named by the flag, or a binary one named by
    // the output's name (`-o x.parquet`), that is not its own is refused rather than given
    // lines under a Parquet or Arrow name.
    let binary_output = matches!(output_format, OutputFormat::Parquet | OutputFormat::Arrow);
    if (config.output_format != OutputFormat::Auto || binary_output) && output_format != own_format
    {
        return Err(BatchError::Format {
            name,
            source: FormatError::OutputFormat {
                output: output_format.name(),
                input: opened.format.name(),
            },
        });
    }
    // An output named `.csv` for a line or grid input is written in that format (a one-column
    // file without a header reads back as lines), but not without a word.
    let named_csv = (config.output_format == OutputFormat::Auto
        && output_format == OutputFormat::Csv
        && own_format == OutputFormat::Line)
        .then(|| {
            format!(
                "the output {out_name} is written in the input's format, {}, not CSV (CSV output \
                 needs a CSV, Parquet or Arrow input)",
                opened.format.name()
            )
        });
    let note = match (&opened.note, named_csv) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.clone().or(b),
    };
    let work = reader.total_len().map_or(Work::Unknown, Work::Bytes);
    observer.start(work, note.as_deref());
    let plan = Plan {
        config,
        opened: &opened,
        shard,
        slots,
    };
    let (read, written) = plan.run(&engine, reader, &mut sink, observer, filter);
    let written = written.map_err(|e| write_error(&out_name, e))?;
    if written.stopped {
        return Err(BatchError::Stopped);
    }
    read.map_err(|source| BatchError::Read {
        name: name.clone(),
        source,
    })?;
    unchanged(stamp.as_ref(), &name, &sink)?;
    finish_output(sink, &out_name)?;
    let seconds = started.elapsed().as_secs_f64();
    Ok(Summary {
        tally: written.tally,
        seconds,
        puzzles_per_second: written.tally.records as f64 / seconds.max(1e-9),
        format: opened.format.name(),
        threads,
        messages_not_shown: written.messages_not_shown,
        against_unread: None,
        against_first: None,
        against_note: None,
        filled_column: opened.filled.clone(),
    })
}

/// An input as its first bytes show it: a columnar file, or text.
#[cfg(feature = "parquet")]
enum Sniffed<'a> {
    Columnar(Columnar),
    Text(Input<'a>),
}

/// A columnar input found by its magic bytes.
#[cfg(feature = "parquet")]
struct Columnar {
    kind: crate::columnar::Kind,
    data: crate::columnar::Data,
    name: String,
    /// A regular file's stamp, taken at open.
    stamp: Option<InputStamp>,
}

#[cfg(feature = "parquet")]
impl Columnar {
    #[allow(clippy::too_many_arguments)] // run_once's state, handed on whole
    fn run(
        self,
        config: &Config,
        engine: Arc<Engine>,
        sink: Sink<'_>,
        out_name: String,
        format: OutputFormat,
        observer: &mut dyn Observer,
        filter: Option<&mut (dyn Filter + 'static)>,
    ) -> Result<Summary, BatchError> {
        if matches!(config.task, Task::Explain { .. }) {
            return Err(BatchError::Format {
                name: self.name,
                source: FormatError::Explain("a Parquet or Arrow"),
            });
        }
        let run = crate::columnar::Run {
            config,
            engine,
            name: self.name,
            format,
            stamp: self.stamp,
        };
        run.run(self.kind, self.data, sink, out_name, observer, filter)
    }
}

/// Up to 8 first bytes of `reader`: enough for every magic number.
#[cfg(feature = "parquet")]
fn head(reader: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(8);
    reader.take(8).read_to_end(&mut head)?;
    Ok(head)
}

/// A regular file that starts with a columnar format's magic (when no text format was named)
/// is read by its own reader. An input that cannot be opened is reported here, before the
/// output is made.
#[cfg(feature = "parquet")]
fn columnar_file<'a>(input: Input<'a>, config: &Config) -> Result<Sniffed<'a>, BatchError> {
    use crate::columnar::{Data, Kind};
    let Input::Path(path) = input else {
        return Ok(Sniffed::Text(input));
    };
    if config.format != FormatChoice::Auto {
        return Ok(Sniffed::Text(Input::Path(path)));
    }
    // A FIFO or a special file is not opened here: opening a FIFO waits for its writer, and its
    // bytes cannot be read twice. `columnar_stream` sniffs it once the output is open.
    if std::fs::metadata(&path).is_ok_and(|m| !m.is_file()) {
        return Ok(Sniffed::Text(Input::Path(path)));
    }
    let (mut file, stamp) = match File::open(&path).and_then(|file| {
        let stamp = InputStamp::of(&file)?;
        Ok((file, stamp))
    }) {
        Ok(opened) => opened,
        Err(source) => return Err(BatchError::Open { path, source }),
    };
    let name = path_label(&path);
    let head = head(&mut file).map_err(|source| BatchError::Read {
        name: name.clone(),
        source,
    })?;
    Ok(match Kind::of(&head) {
        Some(kind) => Sniffed::Columnar(Columnar {
            kind,
            data: Data::File(file),
            name,
            stamp,
        }),
        None => Sniffed::Text(Input::Path(path)),
    })
}

/// A stream (stdin, or a path that names a FIFO or another special file, such as
/// `<(cat x.parquet)`) that starts with a columnar format's magic is read whole, then by that
/// format's reader; a text stream goes on as text, its first bytes put back.
///
/// `stamp` is the stamp of the file behind the stream, if any (standard input from a file): a
/// columnar input takes it along.
#[cfg(feature = "parquet")]
fn columnar_stream<'a>(
    input: Input<'a>,
    config: &Config,
    stamp: &mut Option<InputStamp>,
    fd: &mut Option<reader::Fd>,
) -> Result<Sniffed<'a>, BatchError> {
    use crate::columnar::{Data, Kind};
    if config.format != FormatChoice::Auto {
        return Ok(Sniffed::Text(input));
    }
    let (name, mut reader): (String, Box<dyn Read + 'a>) = match input {
        Input::Reader { name, reader } => (name, reader),
        // Opened only now, after the output: opening a FIFO waits for its writer.
        Input::Path(path)
            if std::fs::metadata(&path).is_ok_and(|m| !m.is_file() && !m.is_dir()) =>
        {
            let file = File::open(&path).map_err(|source| BatchError::Open {
                path: path.clone(),
                source,
            })?;
            *fd = reader::fd_of(&file);
            (path_label(&path), Box::new(file))
        }
        input => return Ok(Sniffed::Text(input)),
    };
    let read_error = |source| BatchError::Read {
        name: name.clone(),
        source,
    };
    let head = head(&mut reader).map_err(read_error)?;
    Ok(match Kind::of(&head) {
        Some(kind) => Sniffed::Columnar(Columnar {
            kind,
            data: Data::read_all(head, reader).map_err(read_error)?,
            name,
            stamp: stamp.take(),
        }),
        None => Sniffed::Text(Input::Reader {
            name,
            reader: Box::new(io::Cursor::new(head).chain(reader)),
        }),
    })
}

/// Decides the format from the start of the input (reading a CSV header), and narrows the
/// reader to its shard when one is asked for.
fn open_records(
    reader: &mut Reader<'_>,
    name: &str,
    config: &Config,
) -> Result<(Opened, Option<(u64, reader::Shard)>), BatchError> {
    let read_error = |source| BatchError::Read {
        name: name.to_string(),
        source,
    };
    // Lines before the first record are skipped here, however many, so that the sample below
    // starts at the first record; then the format is decided from a window that is a function
    // of the bytes alone: the first record when it is a whole puzzle (an interactive writer's
    // first line is answered at once), else the full sample or the whole input, however long a
    // pipe makes us wait for it.
    let leading = reader.skip_leading().map_err(read_error)?;
    let prefix = reader
        .peek_window(formats::PEEK, |window| {
            let settled = formats::decided(window, config.format, config.column.as_deref())?;
            // `check` on a line input judges its first record whose puzzle reads: a damaged
            // one first settles nothing (see `formats::line::open`).
            let damaged = config.format == FormatChoice::Line
                && config.task.needs_solution()
                && !formats::line::first_puzzle_reads(&window[..settled]);
            (!damaged).then_some(settled)
        })
        .map_err(read_error)?;
    let mut opened = formats::open(
        prefix,
        config.format,
        config.column.as_deref(),
        config.solution_column.as_deref(),
        config.keep_solution_column,
        config.task,
    )
    .map_err(|source| BatchError::Format {
        name: name.to_string(),
        source,
    })?;
    reader.skip(opened.skip);
    opened.first_line += leading;
    let Some(shard) = config.shard else {
        return Ok((opened, None));
    };
    match reader
        .shard(opened.format.as_ref(), shard.index, shard.count)
        .map_err(read_error)?
    {
        Some(s) => Ok((opened, Some((shard.index, s)))),
        None => Err(BatchError::ShardNeedsFile {
            name: name.to_string(),
        }),
    }
}

/// The reader of the input, its name for messages, and a regular file's stamp (taken before
/// any byte is read). `fd`: the descriptor a reader's bytes come from, if known.
fn open_input(
    input: Input<'_>,
    block_size: usize,
    fd: Option<reader::Fd>,
) -> Result<(Reader<'_>, String, Option<InputStamp>), BatchError> {
    let name = input.name();
    match input {
        Input::Reader { reader, .. } => Ok((
            Reader::from_stream(reader, block_size).with_fd(fd),
            name,
            None,
        )),
        Input::Stdin => unreachable!("run_once makes standard input a stream before it is read"),
        Input::Path(path) => {
            let (reader, stamp) = File::open(&path)
                .and_then(|file| {
                    let stamp = InputStamp::of(&file)?;
                    Ok((Reader::from_file(file, block_size)?, stamp))
                })
                .map_err(|source| BatchError::Open { path, source })?;
            Ok((reader, name, stamp))
        }
    }
}

/// Standard input's name in messages.
const STDIN: &str = "<stdin>";

/// The stamp of standard input, if it is a regular file (see [`InputStamp`]).
#[cfg(unix)]
fn stdin_stamp() -> io::Result<Option<InputStamp>> {
    use std::os::fd::AsFd;
    InputStamp::of(&File::from(io::stdin().as_fd().try_clone_to_owned()?))
}

#[cfg(not(unix))]
fn stdin_stamp() -> io::Result<Option<InputStamp>> {
    Ok(None)
}

/// Refuses to complete a run whose input file was written to while it was read (see
/// [`InputStamp`]): a file output is then not moved into place.
pub(crate) fn unchanged(
    stamp: Option<&InputStamp>,
    name: &str,
    sink: &Sink<'_>,
) -> Result<(), BatchError> {
    match stamp {
        Some(stamp) if stamp.changed() => Err(BatchError::InputChanged {
            name: name.to_string(),
            answers_written: !matches!(sink, Sink::File(_)),
        }),
        _ => Ok(()),
    }
}

/// The sink of the output, and its name for messages.
pub(crate) fn open_output(output: Output<'_>) -> Result<(Sink<'_>, String), BatchError> {
    match output {
        Output::Writer { name, writer } => Ok((Sink::Writer(writer), name)),
        Output::Path(path) => {
            let name = path_label(&path);
            let sink =
                Sink::file(path.clone()).map_err(|source| BatchError::Create { path, source })?;
            Ok((sink, name))
        }
    }
}

/// A write error on the output called `name`; a closed pipe is [`BatchError::OutputClosed`].
pub(crate) fn write_error(name: &str, source: io::Error) -> BatchError {
    match source.kind() {
        io::ErrorKind::BrokenPipe => BatchError::OutputClosed,
        _ => BatchError::Write {
            name: name.to_string(),
            source,
        },
    }
}

/// Completes the output called `name`: a file is moved into place, a stream flushed.
pub(crate) fn finish_output(sink: Sink<'_>, name: &str) -> Result<(), BatchError> {
    match &sink {
        Sink::File(file) => {
            let path = file.dest().to_path_buf();
            sink.finish()
                .map_err(|source| BatchError::Finish { path, source })
        }
        _ => sink.finish().map_err(|e| write_error(name, e)),
    }
}

/// How often a run's writer asks the observer whether to stop while it waits for answers.
const STOP_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// What a run's writer receives next (see [`next_answer`]).
pub(crate) enum Next<T> {
    Answer(T),
    /// The observer stopped the run.
    Stopped,
    /// Every sender is gone: the answers are all in.
    End,
}

/// The next answer for a run's writer (a block, a table's batch). The observer is asked every
/// [`STOP_POLL`] while none comes, since one can take seconds.
pub(crate) fn next_answer<T>(
    answers: &crossbeam_channel::Receiver<T>,
    observer: &mut dyn Observer,
    stop: &AtomicBool,
) -> Next<T> {
    use crossbeam_channel::RecvTimeoutError;
    loop {
        match answers.recv_timeout(STOP_POLL) {
            Ok(answer) => return Next::Answer(answer),
            Err(RecvTimeoutError::Disconnected) => return Next::End,
            Err(RecvTimeoutError::Timeout) if stops(observer, stop) => return Next::Stopped,
            Err(RecvTimeoutError::Timeout) => {}
        }
    }
}

/// Whether the observer stops the run; if it does, `stop` is raised, so that the workers leave
/// the records they have not answered.
pub(crate) fn stops(observer: &mut dyn Observer, stop: &AtomicBool) -> bool {
    let stopping = observer.should_stop();
    if stopping {
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    stopping
}

/// An opened input's run: what the reader, the workers and the writer share.
struct Plan<'a> {
    config: &'a Config,
    opened: &'a Opened,
    shard: Option<(u64, reader::Shard)>,
    slots: usize,
}

impl<'a> Plan<'a> {
    /// The reader on this thread, the workers on the engine's pool, the ordered writer on its
    /// own thread. Returns the reader's result and the writer's.
    fn run(
        self,
        engine: &Engine,
        mut reader: Reader<'_>,
        sink: &mut Sink<'_>,
        observer: &mut dyn Observer,
        filter: Option<&'a mut (dyn Filter + 'static)>,
    ) -> (io::Result<()>, io::Result<Written>) {
        let (config, slots) = (self.config, self.slots);
        let (free_tx, free_rx) = crossbeam_channel::bounded(slots);
        // Raised by the writer when the observer stops the run: the workers then leave their
        // blocks (see `BlockOut::stop`).
        let stop = Arc::new(AtomicBool::new(false));
        for _ in 0..slots {
            let mut slot = Slot::default();
            slot.out.stop = Arc::clone(&stop);
            free_tx.send(slot).expect("channel has room");
        }
        let (done_tx, done_rx) = crossbeam_channel::unbounded::<Done>();
        let format = Arc::clone(&self.opened.format);
        let ctx = Context {
            // Every shard reads the header; the first writes it.
            header: match &self.shard {
                Some((index, _)) if *index > 1 => &[],
                _ => &self.opened.header,
            },
            // `--explain` ends each record with a blank line already.
            separator: match config.task {
                Task::Explain { .. } => b"",
                _ => format.block_separator(),
            },
            first_line: self.opened.first_line,
            answers_before: self.shard.as_ref().is_some_and(|(_, s)| s.records_before),
            lines_before: self.shard.map(|(_, s)| s),
            max_messages: config.max_messages,
            filter,
        };
        std::thread::scope(|scope| {
            let writer = std::thread::Builder::new()
                .name("sudoku-batch-writer".into())
                .spawn_scoped(scope, || {
                    writer::write_ordered(done_rx, free_tx, sink, observer, ctx, &stop)
                })
                .expect("cannot start the writer thread");
            let mut seq = 0u64;
            let read = loop {
                // No free slot means the writer has stopped (an output error): stop reading.
                let Ok(mut slot) = free_rx.recv() else {
                    break Ok(());
                };
                // A stopped run's writer has returned, but the slots it gave back before are
                // still queued: read no more.
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break Ok(());
                }
                match reader.next_block(format.as_ref(), &mut slot.input) {
                    Ok(Some(chunk)) => {
                        let (format, done_tx) = (Arc::clone(&format), done_tx.clone());
                        let (task, max_messages) = (config.task, config.max_messages);
                        engine.spawn(move || {
                            slot.out.reset(max_messages);
                            format.answer_block(chunk.bytes(), task, &mut slot.out);
                            slot.chunk = Some(chunk);
                            let _ = done_tx.send(Done { seq, slot });
                        });
                        seq += 1;
                    }
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            drop(done_tx);
            (read, writer.join().expect("the writer thread panicked"))
        })
    }
}
