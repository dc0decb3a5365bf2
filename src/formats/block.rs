//! Block bookkeeping: what answering one block produces ([`BlockOut`]: output bytes, counts,
//! messages, lines), and the line rules every format shares.

use super::answer::{Outcome, Problem, Tally};
use crate::grid::Grid;

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
    /// `dedupe`: one entry per record written to `bytes`, in order; the writer keeps the records
    /// whose class it has not seen.
    pub kept: Vec<Kept>,
    max_messages: usize,
}

/// A record in a filtering block's bytes (see [`BlockOut::keep`]).
#[derive(Debug, Clone, Copy)]
pub struct Kept {
    /// Offset in the block's bytes just past the record.
    pub end: usize,
    /// The record's class; `None` (a malformed record) is always kept.
    pub class: Option<Grid>,
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

    /// Notes that the record just appended to `bytes` had `outcome` (filtering tasks).
    pub fn keep(&mut self, outcome: &Outcome) {
        let class = match *outcome {
            Outcome::Class(grid) => Some(grid),
            _ => None,
        };
        self.kept.push(Kept {
            end: self.bytes.len(),
            class,
        });
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

/// True for a line that is not a record: blank (only whitespace) or a `#` comment.
pub fn is_skipped(line: &[u8]) -> bool {
    match line.iter().position(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(i) => line[i] == b'#',
    }
}

/// Offset just past the last line end in `buf` (LF, CRLF or a lone CR). A CR that is the last
/// byte is not taken: an LF may follow it in the next bytes.
pub fn last_line_end(buf: &[u8]) -> Option<usize> {
    line_end_before(buf, buf.len())
}

/// Offset just past the last line end of `buf` that lies wholly before `limit`; bytes after
/// `limit` tell a lone CR from the CR of a CRLF.
pub fn line_end_before(buf: &[u8], limit: usize) -> Option<usize> {
    let mut end = limit;
    loop {
        let i = memchr::memrchr2(b'\n', b'\r', &buf[..end])?;
        match (buf[i], buf.get(i + 1)) {
            (b'\n', _) => return Some(i + 1),
            // A CR at the very end may be the first half of a CRLF; the CR of a CRLF that
            // straddles `limit` ends its line past it.
            (_, None) | (_, Some(b'\n')) => end = i,
            _ => return Some(i + 1),
        }
    }
}

/// Offset just past the end of the line that holds byte `i` (or `buf.len()`).
pub fn line_end(buf: &[u8], i: usize) -> usize {
    match memchr::memchr2(b'\n', b'\r', &buf[i..]) {
        None => buf.len(),
        Some(k) if buf[i + k] == b'\r' && buf.get(i + k + 1) == Some(&b'\n') => i + k + 2,
        Some(k) => i + k + 1,
    }
}

/// Number of line ends in `buf`: LF, CRLF and a lone CR each count once.
pub fn count_line_ends(buf: &[u8]) -> u64 {
    memchr::memchr2_iter(b'\n', b'\r', buf)
        .filter(|&i| buf[i] == b'\n' || buf.get(i + 1) != Some(&b'\n'))
        .count() as u64
}

/// The lines of `buf` without their ends (LF, CRLF or a lone CR; the last line may lack one).
/// Every format splits lines this way, so a record can never hide another behind a CR.
pub fn lines(buf: &[u8]) -> Lines<'_> {
    Lines { buf, pos: 0 }
}

/// See [`lines`].
pub struct Lines<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let start = self.pos;
        let (line_end, next) = match memchr::memchr2(b'\n', b'\r', &self.buf[start..]) {
            None => (self.buf.len(), self.buf.len()),
            Some(k) => {
                let at = start + k;
                let crlf = self.buf[at] == b'\r' && self.buf.get(at + 1) == Some(&b'\n');
                (at, at + 1 + usize::from(crlf))
            }
        };
        self.pos = next;
        Some(&self.buf[start..line_end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cr_lf_and_crlf_each_end_a_line() {
        let text = b"a\nb\r\nc\rd\r\re";
        assert_eq!(
            lines(text).collect::<Vec<_>>(),
            [&b"a"[..], b"b", b"c", b"d", b"", b"e"]
        );
        assert_eq!(count_line_ends(text), 5);
        assert_eq!(last_line_end(text), Some(10));
        assert_eq!(last_line_end(b"a\r"), None, "an LF may follow");
        assert_eq!(last_line_end(b"a\rb\r"), Some(2));
        assert_eq!(line_end(text, 0), 2);
        assert_eq!(line_end(text, 2), 5);
        assert_eq!(line_end(text, 3), 5);
        assert_eq!(line_end(text, 6), 7);
        assert_eq!(line_end(text, 8), 9);
        assert_eq!(line_end(text, 10), 11);
    }
}
