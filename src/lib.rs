//! sudoku-batch: a fast, dependable batch Sudoku engine.
//!
//! - [`grid`]: one puzzle (parse, format, validate).
//! - [`solver`]: the allocation-free search (first solution, count, lexicographically smallest).

pub mod grid;
pub mod solver;

pub use grid::{Grid, ParseError};
