//! `dedupe`'s filter: the [`Deduper`] keeps the first record of each class, in input order,
//! over the table of classes seen.
//!
//! A class is stored exactly, never as a hash: its 81 cells packed two to a byte (41 bytes), in
//! a `HashSet`. A set of n classes holds between 1.14n and 2.3n slots of 42 bytes (the key and
//! hashbrown's control byte; the table doubles when 7/8 full), so about 48 to 96 MB per million
//! distinct puzzles; `tests/dataset.rs` measures it.

use std::collections::HashSet;

use crate::batch::Filter;
use crate::grid::{Grid, CELLS};
use crate::task::Outcome;

/// Keeps the first record of each class: fed each record's `dedupe` outcome in input order
/// (from a batch run's writer, or from [`crate::Engine::answer`]), it says whether the record is
/// kept. A malformed record (no class) is always kept; its status says why it is bad.
///
/// ```
/// use sudoku_batch::{Deduper, Engine, Record, Task};
///
/// let p = b"53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
/// let records = [Record::parse(p), Record::parse(p), Record::parse(b"bad")];
/// let outcomes = Engine::new(1)?.answer(Task::Dedupe { exact: true }, &records);
/// let mut deduper = Deduper::new();
/// let kept: Vec<bool> = outcomes.iter().map(|o| deduper.keep(o)).collect();
/// assert_eq!(kept, [true, false, true]);
/// # Ok::<(), sudoku_batch::EngineError>(())
/// ```
#[derive(Debug, Default)]
pub struct Deduper {
    seen: Seen,
}

impl Deduper {
    /// A deduper that has seen no class.
    pub fn new() -> Deduper {
        Deduper::default()
    }

    /// Whether the record with this outcome is kept: the first of its class, or malformed.
    pub fn keep(&mut self, outcome: &Outcome) -> bool {
        match outcome {
            Outcome::Class(class) => self.seen.insert(class),
            _ => true,
        }
    }

    /// Classes seen so far.
    pub fn classes(&self) -> usize {
        self.seen.len()
    }

    /// Bytes the table of classes takes (its heap allocation, to within its small header).
    pub fn table_bytes(&self) -> usize {
        self.seen.table_bytes()
    }
}

impl Filter for Deduper {
    fn keep(&mut self, outcome: &Outcome) -> bool {
        Deduper::keep(self, outcome)
    }
}

/// A class, packed: cell `2i` in the low nibble of byte `i`, cell `2i + 1` in the high one.
pub type Key = [u8; CELLS.div_ceil(2)];

/// Packs a grid's cells into a [`Key`].
pub fn key(grid: &Grid) -> Key {
    let mut key = [0u8; CELLS.div_ceil(2)];
    for (i, &v) in grid.cells().iter().enumerate() {
        key[i / 2] |= v << (4 * (i % 2));
    }
    key
}

/// The classes seen so far.
#[derive(Debug, Default)]
pub(crate) struct Seen {
    classes: HashSet<Key>,
}

impl Seen {
    /// Adds the class of a record; `true` if it was not seen before (the record is kept).
    pub fn insert(&mut self, class: &Grid) -> bool {
        self.classes.insert(key(class))
    }

    /// Classes seen.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    /// Bytes the table's slots take (its heap allocation, to within its small header).
    pub fn table_bytes(&self) -> usize {
        self.classes.capacity() * (std::mem::size_of::<Key>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_exact() {
        let mut cells = [0u8; CELLS];
        cells[80] = 9;
        let a = Grid::from_cells(cells).unwrap();
        cells[79] = 1;
        let b = Grid::from_cells(cells).unwrap();
        assert_ne!(key(&a), key(&b));
        assert_eq!(key(&a)[40], 9);
        let mut seen = Seen::default();
        assert!(seen.insert(&a) && seen.insert(&b) && !seen.insert(&a));
        assert_eq!(seen.len(), 2);
    }
}
