//! sudoku-batch: a fast, dependable batch Sudoku engine.
//!
//! - [`grid`]: one puzzle (parse, format, validate).
//! - [`solver`]: the allocation-free search (first solution, count, lexicographically smallest).
//! - [`formats`]: record formats (line, grid, CSV): detection, parsing, answering, rendering.
//! - [`batch`]: the pipeline (reader, rayon workers, ordered writer) that runs a whole input.
//! - [`dataset`]: dataset curation: canonical form (minlex), difficulty rating, dedupe.
//! - [`generate`]: reproducible generation of uniquely solvable puzzles.
//! - [`bench`](mod@bench): throughput benchmark with thread scaling.
//!
//! The library prints nothing. Front ends (the `sudoku-batch` binary, behind the default `cli`
//! feature; the Python package) give the engine an input, an output and an [`batch::Observer`]
//! for messages and progress:
//!
//! ```
//! use sudoku_batch::batch::{self, Config, Input, Output, Silent};
//! use sudoku_batch::formats::{FormatChoice, Task};
//!
//! let puzzles = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79\nnot a puzzle\n";
//! let config = Config {
//!     task: Task::Solve { lexmin: false },
//!     format: FormatChoice::Auto,
//!     column: None,
//!     threads: 2,
//!     max_messages: 20,
//!     shard: None,
//!     ..Config::default()
//! };
//! let mut out = Vec::new();
//! let input = Input::Reader { name: "memory".into(), reader: Box::new(puzzles.as_bytes()) };
//! let output = Output::Writer { name: "memory".into(), writer: Box::new(&mut out) };
//! let summary = batch::run(&config, input, output, &mut Silent)?;
//! assert_eq!(
//!     String::from_utf8(out).unwrap(),
//!     "534678912672195348198342567859761423426853791713924856961537284287419635345286179\n\
//!      invalid: expected 81 cells, found 3\n"
//! );
//! assert_eq!((summary.tally.solved, summary.tally.invalid), (1, 1));
//! # Ok::<(), sudoku_batch::batch::BatchError>(())
//! ```

pub mod batch;
pub mod bench;
pub mod dataset;
pub mod formats;
pub mod generate;
pub mod grid;
mod rng;
pub mod solver;

pub use grid::{Grid, ParseError};
