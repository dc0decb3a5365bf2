//! sudoku-batch: a fast, dependable batch Sudoku engine.
//!
//! - [`grid`]: one puzzle (parse, format, validate).
//! - [`solver`]: the allocation-free search (first solution, count, lexicographically smallest).
//! - [`formats`]: record formats (line, grid, CSV): splitting, parsing, answering, writing.
//! - [`batch`]: the pipeline (reader, rayon workers, ordered writer) that runs a whole input.

pub mod batch;
pub mod formats;
pub mod grid;
pub mod solver;

pub use grid::{Grid, ParseError};
