//! Block bookkeeping: what answering one block produces ([`BlockOut`]: output bytes, counts,
//! messages, lines), and the line rules every format shares.

use super::answer::{Outcome, Problem, Tally};

/// A message about one record that did not get a plain answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Message {
    /// 1-based line number: within the block in a [`BlockOut`], within the input once the
    /// batch engine hands it on.
    pub line: u64,
    pub problem: Problem,
}

/// The output of one block: its bytes, counts and messages.
#[derive(Debug, Default)]
pub struct BlockOut {
    pub bytes: Vec<u8>,
    pub tally: Tally,
    /// Messages about bad records, at most `max_messages` of them; `messages_dropped` counts the
    /// rest (a run never needs more than its cap, so a file of bad records stays cheap).
    pub messages: Vec<Message>,
    pub messages_dropped: u64,
    /// Number of line feeds in the block (so the writer can number lines of later blocks).
    pub lines: u64,
    max_messages: usize,
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
        self.max_messages = max_messages;
    }

    /// Counts the outcome of a record, with a message if it is a problem; `line` gives the
    /// record's block line (called only for a message that is kept). The format writes the
    /// outcome's bytes itself.
    pub fn count(&mut self, outcome: &Outcome, line: impl FnOnce() -> u64) {
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

/// The line without its trailing `\r` (CRLF input).
pub fn strip_cr(line: &[u8]) -> &[u8] {
    match line.last() {
        Some(b'\r') => &line[..line.len() - 1],
        _ => line,
    }
}

/// True for a line that is not a record: blank (only whitespace) or a `#` comment.
pub fn is_skipped(line: &[u8]) -> bool {
    match line.iter().position(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(i) => line[i] == b'#',
    }
}

/// Offset just past the last line feed in `buf`.
pub fn last_line_end(buf: &[u8]) -> Option<usize> {
    memchr::memrchr(b'\n', buf).map(|i| i + 1)
}
