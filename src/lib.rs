//! sudoku-batch: a fast, dependable batch Sudoku engine.
//!
//! The engine answers records (puzzles, with a carried solution for `check`) for a [`Task`]:
//! solve, count, check, canon, rate or dedupe. Three ways in:
//!
//! - one puzzle: [`Grid`] and the search, [`solve`], [`count`], [`lexmin`];
//! - records in memory: an [`Engine`] (a worker pool) answers a slice of [`Record`]s;
//! - whole inputs: [`run`] reads a file or stream (line, grid or CSV format, detected), answers
//!   every record on every core and writes the answers in input order, reporting to an
//!   [`Observer`].
//!
//! The library prints nothing. Front ends (the `sudoku-batch` binary, behind the default `cli`
//! feature; the Python package) give it an input, an output and an observer:
//!
//! ```
//! use sudoku_batch::{run, Config, Input, Output, Silent, Task};
//!
//! let puzzles = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\nnot a puzzle\n";
//! let config = Config::new(Task::Solve { lexmin: false }).threads(2);
//! let mut out = Vec::new();
//! let input = Input::reader("memory", puzzles.as_bytes());
//! let output = Output::writer("memory", &mut out);
//! let summary = run(&config, input, output, &mut Silent)?;
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     "534678912672195348198342567859761423426853791713924856961537284287419635345286179\n\
//!      invalid: expected 81 cells, found 3\n"
//! );
//! assert_eq!((summary.tally.solved, summary.tally.invalid), (1, 1));
//! # Ok::<(), sudoku_batch::BatchError>(())
//! ```
//!
//! Layers, bottom up: `grid` and `solver` (one puzzle); `task` (what a task computes on one
//! record, its outcome, its result columns and counts); `records` (the one per-record loop over
//! a format's reader and renderer); `formats` (framing, detection, the line, grid and CSV
//! readers and renderers); `batch` (reader, pool, ordered writer, filters, atomic output);
//! `engine` (the pool, and in-memory batches); `dataset` (canon, rate, dedupe). `bench` and
//! `generate` are jobs built on the engine.
#![warn(missing_docs)]

mod batch;
pub mod bench;
#[cfg(feature = "parquet")]
mod columnar;
mod dataset;
mod engine;
mod formats;
pub mod generate;
pub mod grade;
mod grid;
mod observe;
mod records;
mod rng;
mod solver;
mod task;

pub use batch::{
    path_label, run, BatchError, Config, Input, Output, OutputFormat, Shard, ShardError, Summary,
    MAX_THREADS,
};
/// For front ends that read tables themselves (the Python package's Spark route); its type is
/// the `arrow-array` crate's, so it is not part of the stable API.
#[cfg(feature = "parquet")]
#[doc(hidden)]
pub use columnar::puzzle_column_by_values;
pub use dataset::canon::{canonical, Canonicalizer};
pub use dataset::dedupe::Deduper;
pub use dataset::rate::{rate, Rating, RATE_VERSION};
pub use dataset::symmetry::Transform;
pub use engine::{Engine, EngineError};
pub use formats::line::puzzles as line_puzzles;
pub use formats::{
    binary, csv_separator, decided, detect, line_header, Binary, Detected, FormatChoice,
    FormatError, PEEK, PUZZLE_NAMES, SOLUTION_NAMES,
};
pub use grid::{Clash, Grid, ParseError, Unit, CELLS};
pub use observe::{Message, Observer, Progress, Silent, Work};
pub use solver::{count, lexmin, solve, Counted, Solved};
pub use task::{
    answer, Column, ColumnType, Invalid, Outcome, Problem, Record, Tally, Task, TaskError,
    TaskOptions, Value, Wrong, STATUS, TASK_NAMES,
};

/// Removes the output files of runs still in progress (their temporary names), for a front end's
/// signal handler: a killed run leaves no partial output behind. Async-signal-safe.
pub fn remove_temporary_files() {
    batch::output::remove_temporary_files();
}

/// For a front end's SIGINT/SIGTERM/SIGHUP/SIGBUS handler, about to end the process: from now on no
/// output file is renamed into place, and whether the run's output already was (`Some(true)`: it
/// is whole), was not (`Some(false)`: an old file is untouched), or is still being renamed after
/// about five seconds (`None`). One output file per process, as a CLI run has. Async-signal-safe.
#[cfg(unix)]
pub fn stop_output() -> Option<bool> {
    batch::output::stop_output()
}

/// Writes `bytes` to `path` atomically, as a batch run writes its output: under a temporary
/// name beside it, renamed into place once complete, so a full disk or a killed process never
/// leaves a truncated file in place of the old one. A device or pipe, or a file that is already
/// this process's standard output or error, is written directly instead
/// ([`output_written_directly`]).
pub fn write_file_atomically(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut out = batch::output::Sink::file(path.to_path_buf())?;
    std::io::Write::write_all(&mut out, bytes)?;
    out.finish()
}

/// Whether an output path is written directly rather than replaced atomically: a device or
/// pipe (`/dev/null`, a FIFO, a terminal), or a regular file already open for writing as this
/// process's standard output or error (`-o /dev/stdout` with `> file`). A front end tells a user
/// stopped by a signal that such an output holds a partial run.
pub fn output_written_directly(path: &std::path::Path) -> bool {
    batch::output::written_directly(path)
}

/// Prepares the atomic output of [`write_file_atomically`] and drops it unwritten, so that a
/// front end can refuse an output that cannot be made (a directory, a missing one, a name
/// ending in `/`) before long work whose result it would lose. Nothing is left behind.
pub fn check_output_file(path: &std::path::Path) -> std::io::Result<()> {
    batch::output::Sink::file(path.to_path_buf()).map(drop)
}

/// The examples of README.md and docs/*.md, compiled and run as doctests (`cargo test --doc`).
#[cfg(doctest)]
mod doc_examples {
    #[doc = include_str!("../README.md")]
    struct Readme;
    #[doc = include_str!("../docs/architecture.md")]
    struct Architecture;
    #[doc = include_str!("../docs/benchmarks.md")]
    struct Benchmarks;
    #[doc = include_str!("../docs/formats.md")]
    struct Formats;
    #[doc = include_str!("../docs/grading.md")]
    struct Grading;
    #[doc = include_str!("../docs/python.md")]
    struct Python;
    #[doc = include_str!("../docs/reliability.md")]
    struct Reliability;
    #[doc = include_str!("../docs/scale-out.md")]
    struct ScaleOut;
    #[doc = include_str!("../docs/CHANGELOG.md")]
    struct Changelog;
}

/// Internals exposed for the fuzz targets only (feature `fuzzing`); not a stable API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[allow(missing_docs)]
pub mod fuzzing {
    use std::sync::Arc;

    pub use crate::formats::csv::{Event, RowScan};
    pub use crate::formats::line::parse_line;
    pub use crate::formats::text::lines;

    use crate::formats::csv::{CsvFormat, Layout};
    use crate::formats::grid::GridFormat;
    use crate::formats::line::LineFormat;
    use crate::formats::TextFormat;
    use crate::records::BlockOut;
    use crate::task::Task;

    /// A text format: framing and the answering of one block.
    pub struct Format(Arc<dyn TextFormat>);

    /// What answering one block gave.
    pub struct Block {
        pub bytes: Vec<u8>,
        pub records: u64,
        pub lines: u64,
        pub message_lines: Vec<u64>,
    }

    impl Format {
        pub fn line() -> Format {
            Format(Arc::new(LineFormat))
        }
        pub fn grid() -> Format {
            Format(Arc::new(GridFormat))
        }
        /// CSV with this header row (its line end included).
        pub fn csv(header: &[u8], task: Task) -> Format {
            let layout =
                Layout::from_header(header, b"", None, None, false, task).expect("a header");
            Format(Arc::new(CsvFormat::new(layout)))
        }
        pub fn last_boundary(&self, buf: &[u8]) -> Option<usize> {
            self.0.last_boundary(buf)
        }
        /// Where a shard starting at `p` starts (any `p`).
        pub fn record_start_at_or_after(&self, data: &[u8], p: usize) -> usize {
            self.0.shard_start(data, 0, p)
        }
        pub fn separator(&self) -> &'static [u8] {
            self.0.block_separator()
        }
        pub fn answer(&self, data: &[u8], task: Task) -> Block {
            let mut out = BlockOut::new(usize::MAX);
            self.0.answer_block(data, task, &mut out);
            Block {
                message_lines: out.messages.iter().map(|m| m.line).collect(),
                bytes: out.bytes,
                records: out.tally.records,
                lines: out.lines,
            }
        }
    }
}
