//! Record formats: how a text input is cut into blocks of whole records (framing), how a
//! block's records are read, and how each record is written with its outcome.
//!
//! Each format is one module that implements [`TextFormat`] (framing, and `answer_block`, which
//! pairs the format's record reader with its renderer in the one per-record loop,
//! [`crate::records::answer_records`]) and an `open` function that reads whatever the format
//! needs from the start of the input (a CSV header). [`detect`](mod@detect) chooses the format
//! when none is named, and [`open`] looks the chosen one up in its registry.
//!
//! Modules: `text` (line rules and framing helpers every text format shares), `detect`
//! (detection and opening), and the formats `line` (one puzzle per line), `grid` (nine lines of
//! nine digits per puzzle) and `csv` (a header naming the puzzle column).
//!
//! A columnar input (Parquet row groups, Arrow record batches) needs no framing: its reader
//! yields [`crate::Record`]s from a batch's puzzle column and its renderer appends the task's
//! result columns ([`crate::Task::columns`]) to the batch; the batch pipeline hands it whole
//! row groups in place of byte blocks.

pub(crate) mod csv;
pub(crate) mod detect;
pub(crate) mod grid;
pub(crate) mod line;
pub(crate) mod text;

pub use csv::{delimiter_of as csv_separator, PUZZLE_NAMES, SOLUTION_NAMES};
pub use detect::{binary, decided, detect, Binary, Detected, FormatChoice, FormatError, PEEK};
pub(crate) use detect::{open, Opened};
pub use line::header_line as line_header;

use crate::records::BlockOut;
use crate::task::Task;

/// A text format opened on an input: framing, and the answering of one block.
pub(crate) trait TextFormat: Send + Sync {
    /// Its name (`line`, `grid`, `csv`).
    fn name(&self) -> &'static str;

    /// Offset just past the last record boundary in `buf`, which starts at a boundary; `None`
    /// when `buf` holds no complete record yet (the reader then reads on).
    fn last_boundary(&self, buf: &[u8]) -> Option<usize>;

    /// The first record boundary at or after `p` in `data`, whose records start at `first`, for
    /// `first < p < data.len()`: the start of the first record whose first byte is at or after
    /// `p` (or `data.len()`). Shards cut here, so each record falls in exactly one shard.
    fn record_start_at_or_after(&self, data: &[u8], first: usize, p: usize) -> usize;

    /// Where a shard that starts at byte `p` of `data` (whose records start at `first`) starts:
    /// `first` at or before it, the end at or past the end, else the first record boundary at or
    /// after `p`.
    fn shard_start(&self, data: &[u8], first: usize, p: usize) -> usize {
        match p {
            p if p <= first => first,
            p if p >= data.len() => data.len(),
            p => self.record_start_at_or_after(data, first, p),
        }
    }

    /// Whether `bytes` (whole lines) hold a record: a line that is not blank or `#`.
    fn holds_record(&self, bytes: &[u8]) -> bool {
        text::lines(bytes).any(|line| !text::is_skipped(line))
    }

    /// Bytes the writer puts between two non-empty blocks (grid answers are separated by blank
    /// lines).
    fn block_separator(&self) -> &'static [u8] {
        b""
    }

    /// Reads, answers and renders every record of `block` into `out`: the format's reader and
    /// renderer in [`crate::records::answer_records`].
    fn answer_block(&self, block: &[u8], task: Task, out: &mut BlockOut);

    /// The puzzle of every record of `block`, with its line in the block, in order.
    fn puzzles(&self, block: &[u8], each: &mut dyn FnMut(u64, crate::records::Puzzle));
}
