//! sudoku-batch: a fast, dependable batch Sudoku engine.
//!
//! - [`grid`]: one puzzle (parse, format, validate).
//! - [`solver`]: the allocation-free search (first solution, count, lexicographically smallest).
//! - [`generate`]: reproducible generation of uniquely solvable puzzles.
//! - [`bench`]: throughput benchmark with thread scaling.

pub mod bench;
pub mod generate;
pub mod grid;
pub mod solver;

pub use grid::{Grid, ParseError};
