//! The one per-record loop, and the two traits every format implements for it.
//!
//! A format reads a block of whole records with a [`RecordReader`] (puzzle, optional solution,
//! and whatever it passes through: a line, a CSV row's fields) and writes each record with its
//! outcome with a [`Renderer`]. [`answer_records`] joins them: read, answer, render (or, for a
//! filtering task, copy the record as it came), count. It is the only place that does so; the
//! batch pipeline calls it on each block, the in-memory [`crate::Engine`] on text it is handed.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::grid::Grid;
use crate::observe::Message;
use crate::task::{answer_puzzle_into, Outcome, Record, Tally, Task};

/// Reads the records of one block, in order.
pub(crate) trait RecordReader {
    /// The next record, or `None` at the end of the block.
    fn next_record(&mut self) -> Option<Record<'_>>;
    /// The next record's grid if the record is a bare puzzle and nothing else (a line of 81
    /// cells), else `None`, having read nothing: [`answer_records`] then asks `next_record`.
    /// After `Some`, `line` and `as_read` are of that record, as after `next_record`.
    /// The common record of the commonest format, answered without building a [`Record`]: the
    /// fast path and `next_record` returning records into one place made the compiler copy
    /// each record out of it, its tag written in eight bytes and read back in sixteen, which a
    /// processor cannot forward from a store in flight (measured on a file of easy puzzles:
    /// about half of the loop's own time, docs/benchmarks.md).
    #[inline(always)]
    fn next_bare_puzzle(&mut self) -> Option<Grid> {
        None
    }
    /// The 1-based line (within the block) of the record last returned; asked only when a
    /// message needs it, so readers may compute it lazily.
    fn line(&mut self) -> u64;
    /// The record last returned as it came (its line end removed): what a filter keeps.
    fn as_read(&mut self) -> &[u8];
    /// Line ends in the block; asked once every record has been read.
    fn line_ends(&mut self) -> u64;
}

/// Writes one record with its outcome. The renderer of a format is paired with that format's
/// reader, from which it takes what it passes through (a CSV row's fields, a grid's style).
pub(crate) trait Renderer<R: ?Sized> {
    fn render(&mut self, reader: &mut R, outcome: &Outcome, out: &mut Vec<u8>);
    /// Values of the input that rendering replaced so far (a solution column filled in place).
    fn replaced(&self) -> u64 {
        0
    }
}

/// What answering one block produces: its bytes, counts and messages.
#[derive(Debug, Default)]
pub(crate) struct BlockOut {
    pub bytes: Vec<u8>,
    pub tally: Tally,
    /// Messages about bad records, at most `max_messages` of them; `messages_dropped` counts the
    /// rest (a run never needs more than its cap, so a file of bad records stays cheap).
    pub messages: Vec<Message>,
    pub messages_dropped: u64,
    /// Number of line ends in the block (so the writer can number lines of later blocks).
    pub lines: u64,
    /// A filtering task: one entry per record written to `bytes`, in order; the writer's
    /// filter keeps or drops each.
    pub kept: Vec<Kept>,
    max_messages: usize,
    /// Raised when the run stops (the observer asked it to): the block is left part-answered,
    /// and never written.
    pub stop: Arc<AtomicBool>,
}

/// A record in a filtering block's bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Kept {
    /// Offset in the block's bytes just past the record.
    pub end: usize,
    pub outcome: Outcome,
}

impl BlockOut {
    /// An empty block output keeping at most `max_messages` messages.
    pub fn new(max_messages: usize) -> BlockOut {
        BlockOut {
            max_messages,
            ..BlockOut::default()
        }
    }

    /// Empties the buffers for reuse, keeping their capacity.
    pub fn reset(&mut self, max_messages: usize) {
        self.bytes.clear();
        self.tally = Tally::default();
        self.messages.clear();
        self.messages_dropped = 0;
        self.lines = 0;
        self.kept.clear();
        self.max_messages = max_messages;
    }

    /// Whether the run has stopped: the block's remaining records are not answered (a record
    /// can take a second, a block thousands of them).
    #[inline(always)]
    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Counts the outcome of a record, with a message if it is a problem; `line` gives the
    /// record's block line (called only for a message that is kept).
    fn count(&mut self, outcome: &Outcome, line: impl FnOnce() -> u64) {
        self.tally.count(outcome);
        if let Some(problem) = outcome.problem() {
            if self.messages.len() < self.max_messages {
                self.messages.push(Message {
                    line: line(),
                    problem,
                });
            } else {
                self.messages_dropped += 1;
            }
        }
    }
}

/// The puzzle of every record a reader reads, with its block line, in order: what `bench`
/// times, read by the same readers as a run.
pub(crate) fn each_puzzle<R: RecordReader>(mut reader: R, each: &mut dyn FnMut(u64, Puzzle)) {
    while let Some(record) = reader.next_record() {
        let puzzle = record.puzzle;
        each(reader.line(), puzzle);
    }
}

/// A record's puzzle, or why it is not one.
pub(crate) type Puzzle = Result<crate::grid::Grid, crate::task::Invalid>;

/// Reads every record of a block, answers it for `task`, and renders it into `out` (a
/// filtering task copies the record as it came and notes its outcome for the writer's filter).
pub(crate) fn answer_records<R, W>(mut reader: R, mut renderer: W, task: Task, out: &mut BlockOut)
where
    R: RecordReader,
    W: Renderer<R>,
{
    if let Task::Explain { nested } = task {
        return explain_records(reader, nested, out);
    }
    let filters = task.filters();
    let mut outcome = Outcome::Unsolvable;
    loop {
        // Every task: a block of fast records can still hold minutes of work (counts of
        // puzzles with many solutions), which would hold up the shared pool's next run.
        if out.stopped() {
            return;
        }
        if let Some(puzzle) = reader.next_bare_puzzle() {
            answer_puzzle_into(&puzzle, None, task, &mut outcome);
        } else if let Some(record) = reader.next_record() {
            record.answer_into(task, &mut outcome);
        } else {
            break;
        }
        if filters {
            out.bytes.extend_from_slice(reader.as_read());
            out.bytes.push(b'\n');
            out.kept.push(Kept {
                end: out.bytes.len(),
                outcome,
            });
        } else {
            renderer.render(&mut reader, &outcome, &mut out.bytes);
        }
        out.count(&outcome, || reader.line());
    }
    out.lines = reader.line_ends();
    out.tally.replaced += renderer.replaced();
}

/// [`answer_records`] for [`Task::Explain`]: each record's path, whatever the format's own
/// rendering (a record that is not a puzzle gets its status line and a blank line).
#[inline(never)]
fn explain_records<R: RecordReader>(mut reader: R, nested: bool, out: &mut BlockOut) {
    while let Some(record) = reader.next_record() {
        if out.stopped() {
            return;
        }
        let outcome = match &record.puzzle {
            Ok(puzzle) => crate::task::explain_into(puzzle, nested, &mut out.bytes),
            Err(invalid) => {
                let outcome = Outcome::Invalid(*invalid);
                outcome.write_line(&mut out.bytes);
                out.bytes.push(b'\n');
                outcome
            }
        };
        out.count(&outcome, || reader.line());
    }
    out.lines = reader.line_ends();
}
