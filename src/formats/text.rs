//! Line rules every text format shares: what ends a line (LF, CRLF or a lone CR), which lines are
//! not records (blank, `#` comments), and where the last line end in a buffer is (framing).

use crate::grid::{Grid, CELLS};

/// True for a whitespace byte: ASCII's (space, tab, LF, form feed, CR) and the vertical tab,
/// which `u8::is_ascii_whitespace` leaves out.
pub fn is_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0B
}

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `line` without the whitespace ([`is_space`]) and byte-order marks it starts with. A mark
/// can start any line, not only the input: files joined with `cat`, each saved with one.
pub fn trim_start(mut line: &[u8]) -> &[u8] {
    loop {
        line = &line[line.iter().take_while(|&&b| is_space(b)).count()..];
        match line.strip_prefix(BOM) {
            Some(rest) => line = rest,
            None => return line,
        }
    }
}

/// A record's text without its surrounding whitespace and leading byte-order marks, as a line
/// of a file is read (a column read from a file saved with a mark has it on its first value).
pub fn trim(text: &[u8]) -> &[u8] {
    trim_space(trim_start(text))
}

/// `text` without the whitespace ([`is_space`]) around it: a CSV field's value, where a
/// byte-order mark is data.
pub fn trim_space(text: &[u8]) -> &[u8] {
    let start = text
        .iter()
        .position(|&b| !is_space(b))
        .unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|&b| !is_space(b))
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// True for a line that is not a record: blank (only whitespace and byte-order marks) or a `#`
/// comment.
pub fn is_skipped(line: &[u8]) -> bool {
    matches!(trim_start(line).first(), None | Some(b'#'))
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

impl<'a> Lines<'a> {
    /// The next line if it is exactly a bare puzzle: 81 cells (`1`-`9`, `0`, `.`) then a line
    /// end, parsed; the lines past it. `None` (nothing consumed) for anything else, which the
    /// caller reads line by line as usual. The common record, found without a scan for the line
    /// end: a line of 81 cell bytes cannot hold a line end or be blank or a comment, so this is
    /// the record `next` would yield.
    #[inline]
    pub fn next_bare_puzzle(&mut self) -> Option<(&'a [u8], Grid)> {
        let rest = &self.buf[self.pos..];
        let end = match rest.get(CELLS)? {
            b'\n' => CELLS + 1,
            b'\r' => CELLS + 1 + usize::from(rest.get(CELLS + 1) == Some(&b'\n')),
            _ => return None,
        };
        let line: &'a [u8; CELLS] = rest.first_chunk().expect("82 bytes or more, tested above");
        let grid = Grid::parse_exact(line)?;
        self.pos += end;
        Some((line, grid))
    }
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
    fn a_bare_puzzle_is_the_line_next_would_give() {
        let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let text = format!("{p}\n{p}\r\n{p}\r{p} x\n{p}x\n#{}\n{p}", &p[1..]);
        // Each step: take a bare puzzle if there is one, else a line; the lines must be
        // exactly those of `lines`.
        let mut fast = lines(text.as_bytes());
        let mut seen = Vec::new();
        let mut bare = Vec::new();
        loop {
            if let Some((line, grid)) = fast.next_bare_puzzle() {
                assert_eq!(grid, Grid::parse(line).unwrap());
                bare.push(seen.len());
                seen.push(line);
            } else if let Some(line) = fast.next() {
                seen.push(line);
            } else {
                break;
            }
        }
        assert_eq!(seen, lines(text.as_bytes()).collect::<Vec<_>>());
        // LF, CRLF and lone CR are taken; trailing fields, a bad cell, a comment and a last
        // line without its end are left to `next`.
        assert_eq!(bare, [0, 1, 2]);
    }

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
