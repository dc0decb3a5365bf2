//! The batch engine: reads an input in blocks of whole records, answers the blocks on a rayon pool,
//! and writes them in input order from a writer thread while later blocks are still being solved.
//!
//! ```text
//! INPUT --(mmap, or stream in pieces)--> Reader: blocks ending on record boundaries
//!       --> rayon pool: Format::process parses + answers each record into the block's buffer
//!       --> crossbeam channel --> writer thread: reorders by sequence number, writes in order
//!       --> OUTPUT (a caller's writer, or a temporary file renamed into place at the end)
//! ```
//!
//! A fixed set of [`writer::Slot`]s (a few per thread) circulates between the reader, the workers
//! and the writer: the reader waits for a free slot before it cuts the next block, so the blocks in
//! flight, and the heap, stay bounded whatever the input size.
//!
//! The engine prints nothing: messages about bad records and progress go to an [`Observer`] that
//! each front end implements (stderr and a progress bar for the CLI).

pub mod output;
pub mod reader;
pub mod writer;

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::dataset::dedupe::Seen;
use crate::formats::{self, FormatChoice, FormatError, Message, Opened, Tally, Task};
use output::Sink;
use reader::Reader;
use writer::{Context, Done, Slot, Written};

/// What to do with every record, and how.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub task: Task,
    pub format: FormatChoice,
    /// CSV: the name of the puzzle column, overriding the usual names.
    pub column: Option<String>,
    /// CSV: the name of the solution column (`check` reads it, `solve` fills it), overriding the
    /// usual names.
    pub solution_column: Option<String>,
    /// `dedupe`: also drop records equivalent to any record of this file (train/test leakage).
    pub against: Option<PathBuf>,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// Hand at most this many messages about bad records to the observer (the rest are counted).
    pub max_messages: usize,
    /// Answer only shard `index` (1-based) of `count` of a file input; see [`Shard`].
    pub shard: Option<Shard>,
}

/// One of `count` parts of a file: the records whose first byte lies in the `index`-th of `count`
/// equal byte ranges of the records' bytes (a CSV header is read by every shard and written by
/// the first only). The outputs of shards 1..=count, concatenated in order, are the unsharded
/// output byte for byte, and messages give the whole file's line numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/N`, with 1 <= K <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || format!("expected K/N with 1 <= K <= N (for example 3/8), not {text:?}");
        let (k, n) = text.split_once('/').ok_or_else(usage)?;
        let (index, count) = (
            k.trim().parse().map_err(|_| usage())?,
            n.trim().parse().map_err(|_| usage())?,
        );
        if index == 0 || index > count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

/// Where the records come from.
pub enum Input<'a> {
    /// A file: mapped when it is a regular file, streamed otherwise (a FIFO, `/proc` files).
    Path(PathBuf),
    /// Any reader (stdin, a pipe, memory), streamed in blocks; `name` is used in error messages.
    Reader {
        name: String,
        reader: Box<dyn Read + 'a>,
    },
}

/// Where the answers go.
pub enum Output<'a> {
    /// Written beside the destination under a temporary name, renamed into place on success.
    Path(PathBuf),
    /// Any writer (stdout, memory); `name` is used in error messages.
    Writer {
        name: String,
        writer: Box<dyn Write + Send + 'a>,
    },
}

/// Receives what a run has to report, in input order, on the engine's writer thread.
pub trait Observer: Send {
    /// The run starts; `input_bytes` is the input's size when known (a mapped file), `note` says
    /// why the format was chosen when detection weighed one reading against another.
    fn start(&mut self, _input_bytes: Option<u64>, _note: Option<&str>) {}
    /// A record that did not get a plain answer (at most [`Config::max_messages`] per run);
    /// `message.line` is its 1-based line in the input.
    fn message(&mut self, _message: &Message) {}
    /// Another block is written: input bytes and records done so far.
    fn progress(&mut self, _input_bytes: u64, _records: u64) {}
    /// Asked after each block: `true` stops the run ([`BatchError::Stopped`]; an output file is
    /// then not created). A front end sets it on Ctrl-C.
    fn should_stop(&mut self) -> bool {
        false
    }
}

/// An observer that ignores everything.
pub struct Silent;

impl Observer for Silent {}

/// What a finished run did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    #[serde(flatten)]
    pub tally: Tally,
    pub seconds: f64,
    pub puzzles_per_second: f64,
    pub format: &'static str,
    pub threads: usize,
    /// Messages about bad records that were not handed to the observer.
    pub messages_not_shown: u64,
    /// `dedupe --against`: records of the other file that could not be read (malformed), so
    /// could not be compared against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub against_unread: Option<u64>,
}

impl Summary {
    /// Whether the run should end with exit status 1: a bad record in the input (or in the
    /// file `dedupe --against` compared with).
    pub fn failed(&self) -> bool {
        self.tally.failed() > 0 || self.against_unread.unwrap_or(0) > 0
    }
}

/// Why a run stopped (usage and I/O problems; bad records are not errors).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error("{path}: cannot open: {source}")]
    Open { path: PathBuf, source: io::Error },
    #[error("{name}: read error: {source}")]
    Read { name: String, source: io::Error },
    #[error("{path}: cannot create the output file: {source}")]
    Create { path: PathBuf, source: io::Error },
    #[error("{name}: write error: {source}")]
    Write { name: String, source: io::Error },
    #[error("{path}: cannot move the finished output into place: {source}")]
    Finish { path: PathBuf, source: io::Error },
    #[error("{name}: {source}")]
    Format { name: String, source: FormatError },
    /// The reader of the output went away (a closed pipe): not worth a message.
    #[error("output closed")]
    OutputClosed,
    /// The observer asked the run to stop.
    #[error("stopped")]
    Stopped,
    #[error("cannot start the worker threads: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    #[error("{name}: --shard needs a regular file as input (it cannot be streamed)")]
    ShardNeedsFile { name: String },
    #[error("{0} threads asked for; at most {MAX_THREADS}")]
    TooManyThreads(usize),
    #[error("invalid shard {index}/{count}: expected 1 <= K <= N")]
    BadShard { index: u64, count: u64 },
    /// A shard would only see its own records: dedupe keeps the first of a class in the whole
    /// input.
    #[error("dedupe cannot run on a shard (a shard sees only its own records); canonicalize the shards with canon and drop repeated forms afterwards")]
    DedupeSharded,
}

/// The most worker threads a run may ask for: far more than any machine's cores, and few enough
/// that a typo (`-j 10000`) cannot start thousands of threads.
pub const MAX_THREADS: usize = 1024;

/// Total bytes of block buffers the slots may hold: keeps the heap flat whatever the thread count.
const SLOT_BUDGET: usize = 24 << 20;
const MAX_BLOCK: usize = 1 << 20;
const MIN_BLOCK: usize = 64 << 10;

/// Runs the whole batch: every record of `input` gets exactly one answer in `output`, in order.
pub fn run(
    config: &Config,
    input: Input<'_>,
    output: Output<'_>,
    observer: &mut dyn Observer,
) -> Result<Summary, BatchError> {
    if config.task.filters() && config.shard.is_some() {
        return Err(BatchError::DedupeSharded);
    }
    let mut seen = config.task.filters().then(Seen::new);
    if let (Some(seen), Some(against)) = (seen.as_mut(), &config.against) {
        // The classes of the other file go in first; its own records are not written anywhere.
        let sink = Output::Writer {
            name: "nowhere".into(),
            writer: Box::new(io::sink()),
        };
        // Its format and columns are detected on their own: it may be laid out differently.
        let pass = Config {
            format: FormatChoice::Auto,
            column: None,
            solution_column: None,
            against: None,
            shard: None,
            max_messages: 0,
            ..config.clone()
        };
        let against = Input::Path(against.clone());
        let loaded = run_once(&pass, against, sink, &mut Silent, Some(seen))?;
        let mut summary = run_once(config, input, output, observer, Some(seen))?;
        summary.against_unread = Some(loaded.tally.invalid);
        return Ok(summary);
    }
    run_once(config, input, output, observer, seen.as_mut())
}

fn run_once(
    config: &Config,
    input: Input<'_>,
    output: Output<'_>,
    observer: &mut dyn Observer,
    seen: Option<&mut Seen>,
) -> Result<Summary, BatchError> {
    let started = Instant::now();
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n if n > MAX_THREADS => return Err(BatchError::TooManyThreads(n)),
        n => n,
    };
    let slots = 2 * threads + 2;
    let block_size = (SLOT_BUDGET / 2 / slots).clamp(MIN_BLOCK, MAX_BLOCK);
    let (mut reader, name) = open_input(input, block_size)?;
    // The output is checked before the input is read: a bad `-o` fails at once.
    let (mut sink, out_name) = open_output(output)?;
    let (opened, shard) = open_records(&mut reader, &name, config)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("sudoku-batch-{i}"))
        .build()?;
    observer.start(reader.total_len(), opened.note.as_deref());
    let (read, written) = pipeline(
        config, &opened, shard, slots, &pool, reader, &mut sink, observer, seen,
    );
    let write_error = |source: io::Error| match source.kind() {
        io::ErrorKind::BrokenPipe => BatchError::OutputClosed,
        _ => BatchError::Write {
            name: out_name.clone(),
            source,
        },
    };
    let written = written.map_err(write_error)?;
    if written.stopped {
        return Err(BatchError::Stopped);
    }
    read.map_err(|source| BatchError::Read { name, source })?;
    match &sink {
        Sink::File(file) => {
            let path = file.dest().to_path_buf();
            sink.finish()
                .map_err(|source| BatchError::Finish { path, source })?
        }
        _ => sink.finish().map_err(write_error)?,
    }
    let seconds = started.elapsed().as_secs_f64();
    Ok(Summary {
        tally: written.tally,
        seconds,
        puzzles_per_second: written.tally.records as f64 / seconds.max(1e-9),
        format: opened.format.name(),
        threads,
        messages_not_shown: written.messages_not_shown,
        against_unread: None,
    })
}

/// Decides the format from the start of the input (reading a CSV header), and narrows the
/// reader to its shard when one is asked for.
fn open_records(
    reader: &mut Reader<'_>,
    name: &str,
    config: &Config,
) -> Result<(Opened, Option<(u64, reader::Shard)>), BatchError> {
    let prefix = reader
        // Detection judges a sample, so a paused pipe must have given more than a line or two
        // (a named format answers an interactive writer's first line at once).
        .peek_lines(
            formats::PEEK,
            match config.format {
                FormatChoice::Auto => 64,
                _ => 1,
            },
        )
        .map_err(|source| BatchError::Read {
            name: name.to_string(),
            source,
        })?;
    let opened = formats::open(
        prefix,
        config.format,
        config.column.as_deref(),
        config.solution_column.as_deref(),
        config.task,
    )
    .map_err(|source| BatchError::Format {
        name: name.to_string(),
        source,
    })?;
    reader.skip(opened.skip);
    let shard =
        match config.shard {
            None => None,
            Some(Shard { index, count }) if index == 0 || index > count => {
                return Err(BatchError::BadShard { index, count })
            }
            Some(Shard { index, count }) => match reader
                .shard(&opened.format, index, count)
                .map_err(|source| BatchError::Read {
                    name: name.to_string(),
                    source,
                })? {
                Some(s) => Some((index, s)),
                None => {
                    return Err(BatchError::ShardNeedsFile {
                        name: name.to_string(),
                    })
                }
            },
        };
    Ok((opened, shard))
}

/// The reader of the input, and its name for messages.
fn open_input(input: Input<'_>, block_size: usize) -> Result<(Reader<'_>, String), BatchError> {
    match input {
        Input::Reader { name, reader } => Ok((Reader::from_stream(reader, block_size), name)),
        Input::Path(path) => {
            let reader = File::open(&path)
                .and_then(|file| Reader::from_file(file, block_size))
                .map_err(|source| BatchError::Open {
                    path: path.clone(),
                    source,
                })?;
            Ok((reader, path.display().to_string()))
        }
    }
}

/// The sink of the output, and its name for messages.
fn open_output(output: Output<'_>) -> Result<(Sink<'_>, String), BatchError> {
    match output {
        Output::Writer { name, writer } => Ok((Sink::Writer(writer), name)),
        Output::Path(path) => {
            let name = path.display().to_string();
            let sink =
                Sink::file(path.clone()).map_err(|source| BatchError::Create { path, source })?;
            Ok((sink, name))
        }
    }
}

/// The reader on this thread, the workers on `pool`, the ordered writer on its own thread.
/// Returns the reader's result and the writer's.
#[allow(clippy::too_many_arguments)]
fn pipeline(
    config: &Config,
    opened: &Opened,
    shard: Option<(u64, reader::Shard)>,
    slots: usize,
    pool: &rayon::ThreadPool,
    mut reader: Reader<'_>,
    sink: &mut Sink<'_>,
    observer: &mut dyn Observer,
    seen: Option<&mut Seen>,
) -> (io::Result<()>, io::Result<Written>) {
    let (free_tx, free_rx) = crossbeam_channel::bounded(slots);
    for _ in 0..slots {
        free_tx.send(Slot::default()).expect("channel has room");
    }
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<Done>();
    let format = Arc::new(opened.format.clone());
    let ctx = Context {
        // Every shard reads the header; the first writes it.
        header: match &shard {
            Some((index, _)) if *index > 1 => &[],
            _ => &opened.header,
        },
        separator: format.block_separator(),
        first_line: opened.first_line,
        answers_before: shard.as_ref().is_some_and(|(_, s)| s.records_before),
        lines_before: shard.map(|(_, s)| s),
        max_messages: config.max_messages,
        seen,
    };
    std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("sudoku-batch-writer".into())
            .spawn_scoped(scope, || {
                writer::write_ordered(done_rx, free_tx, sink, observer, ctx)
            })
            .expect("cannot start the writer thread");
        let mut seq = 0u64;
        let read = loop {
            // No free slot means the writer has stopped (an output error): stop reading.
            let Ok(mut slot) = free_rx.recv() else {
                break Ok(());
            };
            match reader.next_block(&format, &mut slot.input) {
                Ok(Some(chunk)) => {
                    let (format, done_tx) = (Arc::clone(&format), done_tx.clone());
                    let (task, max_messages) = (config.task, config.max_messages);
                    pool.spawn(move || {
                        slot.out.reset(max_messages);
                        format.process(chunk.bytes(), task, &mut slot.out);
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
