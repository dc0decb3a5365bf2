//! Record formats: how an input splits into records, how a record is parsed, and how its answer is
//! written. Every format plugs into the same pipeline through [`Format`]:
//!
//! - [`open`](fn@open) decides the format from the start of the input, reads a CSV header, and checks
//!   that the task suits the format, once, before any record is read;
//! - [`Format::last_boundary`] tells the reader where a block may end (a record boundary), so every
//!   block holds whole records;
//! - [`Format::process`] parses and answers every record of one block into that block's
//!   [`BlockOut`], without allocating per record on the good path.
//!
//! Modules: [`answer`](mod@answer) (a task on one puzzle and the one renderer of its outcome), [`block`]
//! (per-block bookkeeping and line rules), `open` (detection and opening), and the formats
//! [`line`](mod@line) (one puzzle per line), [`grid`] (nine lines of nine digits per puzzle) and [`csv`]
//! (a header naming the puzzle column).

pub mod answer;
pub mod block;
pub mod csv;
pub mod grid;
pub mod line;
mod open;

pub use answer::{answer, Invalid, Outcome, Problem, Tally, Task, Wrong};
pub use block::{is_skipped, lines, BlockOut, Message};
pub use open::{detect, open, FormatChoice, FormatError, Opened, PEEK};

/// The format of one run, with what was learned from the input's header (CSV).
#[derive(Debug, Clone)]
pub enum Format {
    Line,
    Grid,
    Csv(csv::Layout),
}

impl Format {
    /// Offset just past the last record boundary in `buf`, which starts at a boundary; `None` when
    /// `buf` holds no complete record yet (the reader then reads on).
    pub fn last_boundary(&self, buf: &[u8]) -> Option<usize> {
        match self {
            Format::Line => block::last_line_end(buf),
            Format::Grid => grid::last_boundary(buf),
            Format::Csv(_) => csv::last_boundary(buf),
        }
    }

    /// The first record boundary at or after `p` in `data`, whose records start at `first`: the
    /// start of the first record whose first byte is at or after `p` (or `data.len()`). Shards
    /// cut here, so each record falls in exactly one shard.
    ///
    /// Lines and grids need only the bytes around `p`. A CSV row may hold quoted line feeds, so
    /// whether `p` is inside a quoted field is learned by scanning the rows since `first` as
    /// csv-core reads them (at memchr speed): no local rule is safe with quoted fields.
    pub fn record_start_at_or_after(&self, data: &[u8], first: usize, p: usize) -> usize {
        if p <= first {
            return first;
        }
        if p >= data.len() {
            return data.len();
        }
        match self {
            // The line that holds byte p - 1 ends the previous shard's records.
            Format::Line => block::line_end(data, p - 1),
            // A grid starts on the first line after a blank line (or at `first`).
            Format::Grid => {
                let mut line = block::line_end(data, p - 1);
                loop {
                    if line >= data.len() {
                        return data.len();
                    }
                    let crlf = line >= 2 && data[line - 1] == b'\n' && data[line - 2] == b'\r';
                    let terminator = line - 1 - usize::from(crlf);
                    let previous =
                        block::line_end_before(data, terminator).map_or(first, |s| s.max(first));
                    if data[previous..terminator].trim_ascii().is_empty() {
                        return line;
                    }
                    line = block::line_end(data, line);
                }
            }
            Format::Csv(_) => csv::next_cuts(&data[first..])
                .map(|cut| first + cut)
                .find(|&cut| cut >= p)
                .unwrap_or(data.len()),
        }
    }

    /// Whether `bytes` (whole lines) hold a record: a line that is not blank or a comment.
    pub fn has_record_in(&self, bytes: &[u8]) -> bool {
        block::lines(bytes).any(|line| !is_skipped(line))
    }

    /// Parses and answers every record of `block` into `out`.
    pub fn process(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        match self {
            Format::Line => line::process(block, task, out),
            Format::Grid => grid::process(block, task, out),
            Format::Csv(layout) => layout.process(block, task, out),
        }
        if !matches!(self, Format::Line) {
            out.lines = block::count_line_ends(block);
        }
    }

    /// Bytes the writer puts between two non-empty blocks (grids are separated by blank lines).
    pub fn block_separator(&self) -> &'static [u8] {
        match self {
            Format::Grid => b"\n",
            _ => b"",
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Format::Line => "line",
            Format::Grid => "grid",
            Format::Csv(_) => "csv",
        }
    }
}
