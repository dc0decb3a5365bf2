//! The table of classes seen by `dedupe`.
//!
//! A class is stored exactly, never as a hash: its 81 cells packed two to a byte (41 bytes), in
//! a `HashSet`. A set of n classes holds between 1.14n and 2.3n slots of 42 bytes (the key and
//! hashbrown's control byte; the table doubles when 7/8 full), so about 48 to 96 MB per million
//! distinct puzzles; `tests/dataset.rs` measures it.

use std::collections::HashSet;

use crate::grid::{Grid, CELLS};

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
pub struct Seen {
    classes: HashSet<Key>,
}

impl Seen {
    pub fn new() -> Seen {
        Seen::default()
    }

    /// Adds the class of a record; `true` if it was not seen before (the record is kept).
    pub fn insert(&mut self, class: &Grid) -> bool {
        self.classes.insert(key(class))
    }

    /// Classes seen.
    pub fn len(&self) -> usize {
        self.classes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
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
        let mut seen = Seen::new();
        assert!(seen.insert(&a) && seen.insert(&b) && !seen.insert(&a));
        assert_eq!(seen.len(), 2);
    }
}
