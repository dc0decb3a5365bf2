//! The batch engine: reads an input in blocks of whole records, answers the blocks on a rayon pool,
//! and writes them in input order from a writer thread while later blocks are still being solved.
//!
//! ```text
//! INPUT --(mmap, or stream in pieces)--> Reader: blocks ending on record boundaries
//!       --> rayon pool: Format::process parses + answers each record into the block's buffer
//!       --> crossbeam channel --> writer thread: reorders by sequence number, writes in order
//!       --> OUTPUT (stdout, or a temporary file renamed into place at the end)
//! ```
//!
//! A fixed set of [`writer::Slot`]s (a few per thread) circulates between the reader, the workers
//! and the writer: the reader waits for a free slot before it cuts the next block, so the blocks in
//! flight, and the heap, stay bounded whatever the input size. The engine takes a [`Config`] and
//! never sees command-line types.

pub mod reader;
pub mod writer;

use std::fs::File;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::formats::{self, csv::Layout, Format, FormatChoice, Tally, Task};
use reader::Reader;
use writer::{Context, Done, Sink, Slot};

/// Where the records come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    Path(PathBuf),
}

/// Where the answers go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout,
    /// Written beside the destination under a temporary name, renamed into place on success.
    Path(PathBuf),
}

/// A validated run configuration.
#[derive(Debug, Clone)]
pub struct Config {
    pub input: Input,
    pub output: Output,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    pub task: Task,
    pub format: FormatChoice,
    /// CSV: the name of the puzzle column, overriding the usual names.
    pub column: Option<String>,
    /// Show a progress bar on stderr.
    pub progress: bool,
    /// Print at most this many messages about bad records (then a count).
    pub message_cap: usize,
}

/// What a finished run did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Summary {
    #[serde(flatten)]
    pub tally: Tally,
    pub seconds: f64,
    pub puzzles_per_second: f64,
    pub format: &'static str,
    pub threads: usize,
    /// Messages about bad records that were not printed.
    pub messages_not_shown: u64,
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
    #[error("{name}: {message}")]
    Input { name: String, message: String },
    /// The reader of the output went away (a closed pipe): not worth a message.
    #[error("output closed")]
    OutputClosed,
    #[error("cannot start the worker threads: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
}

/// Total bytes of block buffers the slots may hold: keeps the heap flat whatever the thread count.
const SLOT_BUDGET: usize = 24 << 20;
const MAX_BLOCK: usize = 1 << 20;
const MIN_BLOCK: usize = 64 << 10;
/// Bytes looked at to detect the format and read a CSV header.
const PEEK: usize = 64 << 10;

/// Runs the whole batch: every record of the input gets exactly one answer in the output.
pub fn run(config: &Config) -> Result<Summary, BatchError> {
    let started = Instant::now();
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let slots = 2 * threads + 2;
    let block_size = (SLOT_BUDGET / 2 / slots).clamp(MIN_BLOCK, MAX_BLOCK);

    let (mut reader, name) = match &config.input {
        Input::Stdin => (
            Reader::from_stream(Box::new(io::stdin()), block_size),
            "<stdin>".to_string(),
        ),
        Input::Path(path) => {
            let file = File::open(path).map_err(|source| BatchError::Open {
                path: path.clone(),
                source,
            })?;
            let reader =
                Reader::from_file(file, block_size).map_err(|source| BatchError::Open {
                    path: path.clone(),
                    source,
                })?;
            (reader, path.display().to_string())
        }
    };
    let read_error = |source| BatchError::Read {
        name: name.clone(),
        source,
    };
    let input_error = |message: String| BatchError::Input {
        name: name.clone(),
        message,
    };

    let prefix = reader.peek(PEEK).map_err(read_error)?;
    let choice = match config.format {
        FormatChoice::Auto => formats::detect(prefix, config.column.as_deref()),
        ref f => f.clone(),
    };
    let mut header = Vec::new();
    let mut first_line = 0;
    let format = match choice {
        FormatChoice::Auto | FormatChoice::Line => Format::Line,
        FormatChoice::Grid => {
            if let Task::Check { .. } = config.task {
                return Err(input_error(
                    "check needs puzzles that carry solutions (line or CSV format), not grids"
                        .into(),
                ));
            }
            Format::Grid
        }
        FormatChoice::Csv if prefix.is_empty() => Format::Line,
        FormatChoice::Csv => {
            // Blank and `#` lines before the header are skipped, like everywhere else.
            let mut start = 0;
            while let Some(len) = prefix[start..].iter().position(|&b| b == b'\n') {
                if !formats::is_skipped(&prefix[start..start + len]) {
                    break;
                }
                start += len + 1;
            }
            let end = match formats::csv::first_row_end(&prefix[start..]) {
                Some(end) => start + end,
                None if prefix.len() < PEEK => prefix.len(),
                None => {
                    return Err(input_error(
                        "the CSV header row is longer than 64 KiB".into(),
                    ))
                }
            };
            let layout =
                Layout::from_header(&prefix[start..end], config.column.as_deref(), config.task)
                    .map_err(input_error)?;
            first_line = memchr::memchr_iter(b'\n', &prefix[..end]).count() as u64;
            header = layout.header().to_vec();
            reader.skip(end);
            Format::Csv(layout)
        }
    };

    let mut sink = match &config.output {
        Output::Stdout => Sink::Stdout,
        Output::Path(path) => Sink::file(path.clone()).map_err(|source| BatchError::Create {
            path: path.clone(),
            source,
        })?,
    };
    let out_name = match &config.output {
        Output::Stdout => "<stdout>".to_string(),
        Output::Path(p) => p.display().to_string(),
    };

    let progress = config.progress.then(|| progress_bar(reader.total_len()));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("sudoku-batch-{i}"))
        .build()?;
    let (free_tx, free_rx) = crossbeam_channel::bounded(slots);
    for _ in 0..slots {
        free_tx.send(Slot::default()).expect("channel has room");
    }
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<Done>();
    let format = Arc::new(format);
    let ctx = Context {
        header,
        separator: format.block_separator(),
        name: name.clone(),
        first_line,
        message_cap: config.message_cap,
        progress: progress.clone(),
    };

    let (read_result, written) = std::thread::scope(|scope| {
        let writer = std::thread::Builder::new()
            .name("sudoku-batch-writer".into())
            .spawn_scoped(scope, || {
                writer::write_ordered(done_rx, free_tx, &mut sink, ctx)
            })
            .expect("cannot start the writer thread");
        let mut seq = 0u64;
        let read_result = loop {
            // No free slot means the writer has stopped (an output error): stop reading.
            let Ok(mut slot) = free_rx.recv() else {
                break Ok(());
            };
            match reader.next_block(&format, &mut slot.input) {
                Ok(Some(chunk)) => {
                    let (format, done_tx, task, cap) = (
                        Arc::clone(&format),
                        done_tx.clone(),
                        config.task,
                        config.message_cap,
                    );
                    pool.spawn(move || {
                        slot.out.reset(cap);
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
        (
            read_result,
            writer.join().expect("the writer thread panicked"),
        )
    });
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    let written = written.map_err(|source| match source.kind() {
        io::ErrorKind::BrokenPipe => BatchError::OutputClosed,
        _ => BatchError::Write {
            name: out_name.clone(),
            source,
        },
    })?;
    read_result.map_err(read_error)?;
    sink.finish()
        .map_err(|source| match (&config.output, source.kind()) {
            (_, io::ErrorKind::BrokenPipe) => BatchError::OutputClosed,
            (Output::Path(path), _) => BatchError::Finish {
                path: path.clone(),
                source,
            },
            (Output::Stdout, _) => BatchError::Write {
                name: out_name,
                source,
            },
        })?;

    let seconds = started.elapsed().as_secs_f64();
    Ok(Summary {
        tally: written.tally,
        seconds,
        puzzles_per_second: written.tally.records as f64 / seconds.max(1e-9),
        format: format.name(),
        threads,
        messages_not_shown: written.messages_dropped,
    })
}

fn progress_bar(total: Option<u64>) -> indicatif::ProgressBar {
    use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
    let bar = match total {
        Some(n) => ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{bar:40} {percent:>3}% {msg} {elapsed} (eta {eta})")
                .expect("valid template"),
        ),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
        ),
    };
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}
