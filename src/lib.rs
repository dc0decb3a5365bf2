//! sudoku-batch: a fast, dependable batch Sudoku engine.
//!
//! - [`grid`]: one puzzle (parse, format, validate).
//! - [`solver`]: the allocation-free search (first solution, count, lexicographically smallest).
//! - [`formats`]: record formats (line, grid, CSV): splitting, parsing, answering, writing.
//! - [`batch`]: the pipeline (reader, rayon workers, ordered writer) that runs a whole input.
//! - [`generate`]: reproducible generation of uniquely solvable puzzles.
//! - [`bench`]: throughput benchmark with thread scaling.

pub mod batch;
pub mod bench;
pub mod formats;
pub mod generate;
pub mod grid;
pub mod solver;

pub use grid::{Grid, ParseError};
