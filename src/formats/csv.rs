//! The CSV format: a header row, then one puzzle per row. The puzzle column is found by its header
//! name (`puzzle`, `quizzes`, `quiz`, `sudoku`, `puzzles`, `question`, or `--column NAME`);
//! blanks may be `0` or `.`.
//! Rows are read with `csv-core` straight over each block and written with the `csv` crate
//! (quotes, CRLF, a missing final newline).
//!
//! Output is CSV, one row per input row, in order: every input column, in order and with its
//! values, then the result columns (`solution` for solve, `count` for count, `canonical` for
//! canon, `rating` and `singles` for rate), then `status`. An input solution column (`solution`,
//! `solutions`, `answer`) takes solve's answer in place instead of a new column. `dedupe` writes
//! the rows it keeps as they came.

use super::answer::{answer, Invalid, Outcome, Task};
use super::block::BlockOut;
use super::FormatError;
use crate::grid::Grid;

/// Header names taken as the puzzle column, in order of preference (case-insensitive).
pub const PUZZLE_NAMES: [&str; 6] = ["puzzle", "quizzes", "quiz", "sudoku", "puzzles", "question"];
/// Header names taken as the solution column (for `check`).
pub const SOLUTION_NAMES: [&str; 3] = ["solution", "solutions", "answer"];

/// Where the columns are, learned from the header.
#[derive(Debug, Clone)]
pub struct Layout {
    puzzle: usize,
    /// The solution column: what `check` verifies, where `solve` writes its answer.
    solution: Option<usize>,
    /// Fields in the header row: shorter rows are padded to it so result columns line up.
    width: usize,
    /// The output header row, with its line feed.
    header: Vec<u8>,
}

/// Walks CSV bytes as `csv-core` reads them (comment lines, quotes only at the start of a
/// field, doubled quotes inside quoted fields, CR, LF or CRLF ending a row), reporting where rows
/// start and the line feeds outside quoted fields, where input may be cut. A quote in the middle
/// of an unquoted field, or in a comment, is a plain character, so counting quotes would not do.
pub struct RowScan<'a> {
    buf: &'a [u8],
    pos: usize,
    state: State,
    /// Where the last quoted field opened.
    quote: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    RecordStart,
    FieldStart,
    Unquoted,
    Quoted,
    Comment,
}

/// What [`RowScan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A record (neither a blank line nor a comment) starts at this offset.
    Row(usize),
    /// Offset just past a line end (an LF, or a lone CR with more bytes after it) that is not
    /// inside a quoted field: input may be cut here.
    Cut(usize),
    /// The offset of a lone CR that ends a comment line.
    CommentCr(usize),
}

impl<'a> RowScan<'a> {
    /// Scans `buf`, which starts at the start of a row.
    pub fn new(buf: &'a [u8]) -> RowScan<'a> {
        RowScan {
            buf,
            pos: 0,
            state: State::RecordStart,
            quote: 0,
        }
    }

    /// Once the scan is over: the offset of a quote that opened a field and was never closed.
    pub fn open_quote(&self) -> Option<usize> {
        (self.state == State::Quoted).then_some(self.quote)
    }
}

/// The offset of a quote in `buf` that opens a field and is never closed, if any.
fn open_quote(buf: &[u8]) -> Option<usize> {
    memchr::memchr(b'"', buf)?;
    let mut scan = RowScan::new(buf);
    scan.by_ref().for_each(drop);
    scan.open_quote()
}

impl Iterator for RowScan<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        let buf = self.buf;
        loop {
            let &b = buf.get(self.pos)?;
            match self.state {
                State::RecordStart => match b {
                    b'\n' => {
                        self.pos += 1;
                        return Some(Event::Cut(self.pos));
                    }
                    b'\r' => {
                        self.pos += 1;
                        // A lone CR ends a line too (csv-core ends a row there). The CR of a CRLF
                        // leaves the cut to its LF, and a CR that is the last byte may be the
                        // first half of a CRLF whose LF has not been read: no cut there.
                        if buf.get(self.pos).is_some_and(|&next| next != b'\n') {
                            return Some(Event::Cut(self.pos));
                        }
                    }
                    b'#' => self.state = State::Comment,
                    _ => {
                        self.state = State::FieldStart;
                        return Some(Event::Row(self.pos));
                    }
                },
                State::FieldStart => match b {
                    b'"' => {
                        self.quote = self.pos;
                        self.pos += 1;
                        self.state = State::Quoted;
                    }
                    b',' => self.pos += 1,
                    _ => self.state = State::Unquoted,
                },
                State::Unquoted => {
                    let Some(i) = memchr::memchr3(b',', b'\n', b'\r', &buf[self.pos..]) else {
                        self.pos = buf.len();
                        return None;
                    };
                    self.pos += i;
                    match buf[self.pos] {
                        b',' => {
                            self.pos += 1;
                            self.state = State::FieldStart;
                        }
                        // The line end is handled at the start of the next record.
                        _ => self.state = State::RecordStart,
                    }
                }
                State::Quoted => {
                    let Some(i) = memchr::memchr(b'"', &buf[self.pos..]) else {
                        self.pos = buf.len();
                        return None;
                    };
                    self.pos += i + 1;
                    if buf.get(self.pos) == Some(&b'"') {
                        self.pos += 1; // a doubled quote: still inside
                    } else {
                        // Closed; anything up to the next comma or line end joins the field.
                        self.state = State::Unquoted;
                    }
                }
                // A comment ends at a line end, a lone CR included. csv-core ends comments at LF
                // only: [`comments_end_at_cr`] hands it those CRs as LFs.
                State::Comment => {
                    let Some(i) = memchr::memchr2(b'\n', b'\r', &buf[self.pos..]) else {
                        self.pos = buf.len();
                        return None;
                    };
                    self.pos += i;
                    if buf[self.pos] == b'\r' {
                        match buf.get(self.pos + 1) {
                            Some(b'\n') => self.pos += 1,
                            Some(_) => {
                                self.state = State::RecordStart;
                                return Some(Event::CommentCr(self.pos));
                            }
                            // Maybe the first half of a CRLF whose LF has not been read.
                            None => {
                                self.pos = buf.len();
                                return None;
                            }
                        }
                    }
                    self.state = State::RecordStart;
                }
            }
        }
    }
}

/// Offset just past the line end that ends the first row of `buf` (the header row).
pub fn first_row_end(buf: &[u8]) -> Option<usize> {
    let mut seen_row = false;
    RowScan::new(buf).find_map(|e| match e {
        Event::Row(_) => {
            seen_row = true;
            None
        }
        Event::Cut(c) => seen_row.then_some(c),
        Event::CommentCr(_) => None,
    })
}

/// Offset just past the last line end of `buf` outside quoted fields (`buf` starts a row).
pub fn last_boundary(buf: &[u8]) -> Option<usize> {
    next_cuts(buf).last()
}

/// The cut points of `buf`, in order.
pub fn next_cuts(buf: &[u8]) -> impl Iterator<Item = usize> + '_ {
    RowScan::new(buf).filter_map(|e| match e {
        Event::Cut(c) => Some(c),
        Event::Row(_) | Event::CommentCr(_) => None,
    })
}

/// `block` as csv-core must read it: csv-core ends a comment line at LF only, this engine at any
/// line end, so a lone CR that ends a comment becomes an LF (the same length: offsets and line
/// numbers hold). Borrowed unless there is such a CR.
pub fn comments_end_at_cr(block: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    use std::borrow::Cow;
    if memchr::memchr(b'#', block).is_none() {
        return Cow::Borrowed(block);
    }
    let mut crs = RowScan::new(block)
        .filter_map(|e| match e {
            Event::CommentCr(at) => Some(at),
            _ => None,
        })
        .peekable();
    if crs.peek().is_none() {
        return Cow::Borrowed(block);
    }
    let mut owned = block.to_vec();
    for at in crs {
        owned[at] = b'\n';
    }
    Cow::Owned(owned)
}

fn reader(data: &[u8]) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .from_reader(data)
}

fn writer(buf: Vec<u8>) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .flexible(true)
        // A field that starts a row with `#` is quoted, or reading the output back would take
        // the row for a comment.
        .comment(Some(b'#'))
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(buf)
}

impl Layout {
    /// Reads the header row and finds the columns. `column` overrides the puzzle column's name,
    /// `solution_column` the solution column's. Without either name, a header that names no
    /// puzzle column takes the first column whose value in the first row of `rest` (the bytes
    /// after the header) is an 81-cell puzzle.
    pub fn from_header(
        header: &[u8],
        rest: &[u8],
        column: Option<&str>,
        solution_column: Option<&str>,
        task: Task,
    ) -> Result<Layout, FormatError> {
        let mut record = csv::ByteRecord::new();
        match reader(header).read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return Err(FormatError::NoHeader),
            Err(e) => return Err(FormatError::UnreadableHeader(e.to_string())),
        }
        // A puzzle is never a column name: the input has no header (its first puzzle would be lost).
        if record.iter().any(|f| Grid::parse(f.trim_ascii()).is_ok()) {
            return Err(FormatError::NoHeader);
        }
        let names: Vec<String> = record
            .iter()
            .map(|f| String::from_utf8_lossy(f).trim().to_string())
            .collect();
        let find = |wanted: &[&str]| {
            wanted
                .iter()
                .find_map(|w| names.iter().position(|n| n.eq_ignore_ascii_case(w)))
        };
        // An exact match first, then one that differs in case only.
        let named = |name: &str| {
            names
                .iter()
                .position(|n| n == name)
                .or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(name)))
                .ok_or_else(|| FormatError::NoSuchColumn {
                    name: name.to_string(),
                    names: names.clone(),
                })
        };
        let puzzle = match column {
            Some(name) => named(name)?,
            None => find(&PUZZLE_NAMES)
                .or_else(|| first_puzzle_column(rest, names.len()))
                .ok_or_else(|| FormatError::NoPuzzleColumn {
                    names: names.clone(),
                })?,
        };
        let solution = match solution_column {
            Some(name) => match named(name)? {
                s if s == puzzle => {
                    return Err(FormatError::SameColumn {
                        name: name.to_string(),
                    })
                }
                s => Some(s),
            },
            None => find(&SOLUTION_NAMES).filter(|&s| s != puzzle),
        };
        if matches!(task, Task::Check { .. }) && solution.is_none() {
            return Err(FormatError::NoSolutionColumn { names });
        }
        let mut row = record.clone();
        // A result column never takes a name the input already has (`rating` in sudoku-extreme,
        // `status` in an earlier output): it becomes `rating_2`, `status_2`, ...
        let mut taken = names.clone();
        let mut added = |name: &[u8]| {
            let name = String::from_utf8_lossy(name).into_owned();
            let fresh = (1..)
                .map(|k| match k {
                    1 => name.clone(),
                    k => format!("{name}_{k}"),
                })
                .find(|n| !taken.iter().any(|t| t.eq_ignore_ascii_case(n)))
                .expect("some suffix is free");
            row.push_field(fresh.as_bytes());
            taken.push(fresh);
        };
        match task {
            Task::Solve { .. } if solution.is_none() => added(b"solution"),
            Task::Count { .. } => added(b"count"),
            Task::Canon => added(b"canonical"),
            Task::Rate { .. } => {
                added(b"rating");
                added(b"singles");
            }
            _ => {}
        }
        let header = if task.filters() {
            // Dedupe keeps rows as they came, header included.
            let mut out = without_line_end(header).to_vec();
            out.push(b'\n');
            out
        } else {
            added(b"status");
            let mut out = writer(Vec::new());
            out.write_byte_record(&row).expect("writing to memory");
            out.into_inner().expect("writing to memory")
        };
        Ok(Layout {
            puzzle,
            solution,
            width: record.len(),
            header,
        })
    }

    /// The output header row.
    pub fn header(&self) -> &[u8] {
        &self.header
    }

    /// Parses and answers every row of `block`.
    ///
    /// A quote that is never closed would swallow every row after it into one field. A block
    /// can end inside quotes only at the end of the input, so such a quote is closed at the end
    /// of its physical line instead: that row is `invalid: unterminated quote ...` and the rows
    /// after it are read as rows. No row is lost.
    pub fn process(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        let block = &*comments_end_at_cr(block);
        let (mut start, mut lines_before) = (0, 0);
        loop {
            let rest = &block[start..];
            let Some(quote) = open_quote(rest) else {
                return self.process_rows(rest, lines_before, false, task, out);
            };
            let end = super::block::line_end(rest, quote);
            let body = rest[..end].trim_ascii_end();
            let mut closed = Vec::with_capacity(end + 2);
            closed.extend_from_slice(body);
            closed.extend_from_slice(b"\"\n");
            self.process_rows(&closed, lines_before, true, task, out);
            lines_before += super::block::count_line_ends(&rest[..end]);
            start += end;
            if start >= block.len() {
                return;
            }
        }
    }

    /// Answers the rows of `block`, whose first line is `lines_before` lines into the block
    /// being processed. With `last_unterminated`, the last row had a quote closed for it.
    fn process_rows(
        &self,
        block: &[u8],
        lines_before: u64,
        last_unterminated: bool,
        task: Task,
        out: &mut BlockOut,
    ) {
        // csv-core straight over the block (mapped or read): no copy into a reader buffer.
        let mut rdr = CoreReader::new();
        let mut input = block;
        // Dedupe writes rows as they came, straight into the block's bytes.
        let mut wtr = (!task.filters()).then(|| writer(std::mem::take(&mut out.bytes)));
        let mut row = csv::ByteRecord::new();
        // The csv crate's positions go wrong on CRLF and comment lines, so line numbers come
        // from walking the same rows by hand. The walk is lazy: it only catches up to the
        // current record when a message needs its line, so good rows cost nothing.
        let mut rows = Rows::new(block);
        let mut index = 0;
        let mut value = Vec::new();
        let mut status = Vec::new();
        let solve_in_place = matches!(task, Task::Solve { .. }) && self.solution.is_some();
        while let Some(rec) = rdr.next(&mut input) {
            index += 1;
            let is_last = input.iter().all(|&b| b == b'\n' || b == b'\r');
            if rec.len() == 1 && rec.get(0).unwrap_or_default().trim_ascii().is_empty() {
                continue; // a blank line: not a record
            }
            let field = rec.get(self.puzzle);
            let outcome = if last_unterminated && is_last {
                Outcome::Invalid(Invalid::UnterminatedQuote)
            } else if rec.len() > self.width {
                // Its fields would push the result columns out of line.
                Outcome::Invalid(Invalid::LongRow {
                    fields: rec.len(),
                    header: self.width,
                })
            } else {
                self.outcome(field, &rec, task)
            };
            out.count(&outcome, || lines_before + rows.line_of(index));
            if task.filters() {
                // The row as it came: from where the row scanner saw it start to where csv-core
                // finished reading it, less its line end.
                rows.line_of(index);
                let end = block.len() - input.len();
                out.bytes
                    .extend_from_slice(without_line_end(&block[rows.counted.min(end)..end]));
                out.bytes.push(b'\n');
                out.keep(&outcome);
                continue;
            }
            value.clear();
            let has_value = outcome.write_value(&mut value);
            row.clear();
            for i in 0..self.width.max(rec.len()) {
                // In place: the answer, or the column's own value when there is none.
                if solve_in_place && has_value && Some(i) == self.solution {
                    row.push_field(&value);
                } else {
                    row.push_field(rec.get(i).unwrap_or_default());
                }
            }
            match (task, outcome) {
                (Task::Solve { .. }, _) if solve_in_place => {}
                (Task::Check { .. }, _) => {}
                (Task::Rate { .. }, Outcome::Rated(r)) => {
                    row.push_field(&value);
                    row.push_field(if r.singles { b"true" } else { b"false" });
                }
                (Task::Rate { .. }, _) => {
                    row.push_field(b"");
                    row.push_field(b"");
                }
                _ => row.push_field(if has_value { &value } else { b"" }),
            }
            status.clear();
            outcome.write_status(&mut status);
            row.push_field(&status);
            if let Some(wtr) = wtr.as_mut() {
                wtr.write_byte_record(&row).expect("writing to memory");
            }
        }
        if let Some(wtr) = wtr {
            out.bytes = wtr.into_inner().expect("writing to memory");
        }
    }

    fn outcome(&self, field: Option<&[u8]>, rec: &Fields, task: Task) -> Outcome {
        let Some(field) = field else {
            return Outcome::Invalid(Invalid::MissingColumn(self.puzzle + 1));
        };
        let puzzle = match Grid::parse(field.trim_ascii()) {
            Ok(p) => p,
            Err(e) => return Outcome::Invalid(e.into()),
        };
        let solution = match task {
            Task::Check { .. } => match self.solution.and_then(|s| rec.get(s)) {
                Some(s) => Some(s.trim_ascii()),
                None => return Outcome::Invalid(Invalid::MissingSolutionColumn),
            },
            _ => None,
        };
        answer(task, &puzzle, solution)
    }
}

/// `row` less the line end (CR and LF bytes) it finishes with.
fn without_line_end(row: &[u8]) -> &[u8] {
    let ends = row.iter().rev().take_while(|&&b| b == b'\n' || b == b'\r');
    &row[..row.len() - ends.count()]
}

/// The puzzle column of a header that names none, found by the data: among the first rows of
/// `rows` that have `width` fields, the first column whose value is an 81-cell puzzle with a
/// blank (a full grid there is more likely a solution column), else any 81-cell value.
pub fn first_puzzle_column(rows: &[u8], width: usize) -> Option<usize> {
    let mut rdr = reader(rows);
    let mut record = csv::ByteRecord::new();
    let mut full = None;
    for _ in 0..64 {
        if !matches!(rdr.read_byte_record(&mut record), Ok(true)) {
            break;
        }
        if record.len() != width {
            continue;
        }
        for (i, field) in record.iter().enumerate() {
            if let Ok(grid) = Grid::parse(field.trim_ascii()) {
                if grid.givens() < crate::grid::CELLS {
                    return Some(i);
                }
                full = full.or(Some(i));
            }
        }
    }
    full
}

/// Drives `csv_core` over a block, reusing its field buffers from row to row.
struct CoreReader {
    core: csv_core::Reader,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// One row's fields, borrowed from a [`CoreReader`].
struct Fields<'a> {
    bytes: &'a [u8],
    ends: &'a [usize],
}

impl Fields<'_> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Option<&[u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.bytes.get(start..end)
    }
}

impl CoreReader {
    fn new() -> CoreReader {
        CoreReader {
            core: csv_core::ReaderBuilder::new().comment(Some(b'#')).build(),
            bytes: vec![0; 1024],
            ends: vec![0; 16],
        }
    }

    /// The next row of `input` (advanced past it), or `None` at the end. An empty `input` is
    /// the end of the data, which also completes a last row without a newline.
    fn next(&mut self, input: &mut &[u8]) -> Option<Fields<'_>> {
        use csv_core::ReadRecordResult::*;
        let (mut out, mut end) = (0, 0);
        loop {
            let (result, nin, nout, nend) =
                self.core
                    .read_record(input, &mut self.bytes[out..], &mut self.ends[end..]);
            *input = &input[nin..];
            out += nout;
            end += nend;
            match result {
                InputEmpty => {}
                OutputFull => self.bytes.resize(self.bytes.len() * 2, 0),
                OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                Record => {
                    return Some(Fields {
                        bytes: &self.bytes[..out],
                        ends: &self.ends[..end],
                    })
                }
                End => return None,
            }
        }
    }
}

/// The records of a block as csv-core reads them, with the 1-based line each starts on.
struct Rows<'a> {
    block: &'a [u8],
    scan: RowScan<'a>,
    /// Line of the offset `counted`.
    line: u64,
    counted: usize,
    /// Rows yielded so far.
    seen: usize,
    /// The line of the last row yielded.
    last: u64,
}

impl<'a> Rows<'a> {
    fn new(block: &'a [u8]) -> Rows<'a> {
        Rows {
            block,
            scan: RowScan::new(block),
            line: 1,
            counted: 0,
            seen: 0,
            last: 0,
        }
    }

    /// The line of the `index`-th row (1-based), walking forward as needed.
    fn line_of(&mut self, index: usize) -> u64 {
        while self.seen < index {
            let Some(start) = self.scan.find_map(|e| match e {
                Event::Row(start) => Some(start),
                Event::Cut(_) | Event::CommentCr(_) => None,
            }) else {
                break;
            };
            self.line += super::block::count_line_ends(&self.block[self.counted..start]);
            self.counted = start;
            self.seen += 1;
            self.last = self.line;
        }
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_skip_quoted_newlines() {
        assert_eq!(last_boundary(b"a,\"x\ny\"\nb,\"p\nq"), Some(8));
        assert_eq!(last_boundary(b"a,\"x\ny"), None);
        assert_eq!(first_row_end(b"\"i\nd\",puzzle\r\nx"), Some(14));
        // Quotes that csv-core reads as plain characters: in a comment, inside an unquoted field.
        assert_eq!(last_boundary(b"# don\"t\n1,\"x\ny\"\n2"), Some(16));
        assert_eq!(last_boundary(b"1,a\"b\n2,\"x\ny\"\n3"), Some(14));
        // A doubled quote stays inside; a lone CR ends a row but is no cut point.
        assert_eq!(last_boundary(b"1,\"a\"\"\nb\"\r2,c\n3"), Some(14));
        // A comment ends at a lone CR too: here `"b` is a row, whose quote runs to the end.
        assert_eq!(last_boundary(b"a\r# \"\r\"b\nc\n"), Some(6));
        assert_eq!(
            &*comments_end_at_cr(b"a\r# \"\r\"b\nc\n"),
            b"a\r# \"\n\"b\nc\n"
        );
        assert_eq!(
            &*comments_end_at_cr(b"# c\r\nx,\"#\r\"\n"),
            b"# c\r\nx,\"#\r\"\n"
        );
        assert_eq!(first_row_end(b"# c\"\n\nid,puzzle\n1"), Some(16));
    }

    #[test]
    fn an_unterminated_quote_ends_at_its_line_and_loses_no_row() {
        let layout = solve_layout(b"id,puzzle\n");
        let mut out = BlockOut::new(10);
        // Only the quote at `b` is never closed (any later quote would close it).
        let block = b"a,\"x\ny\"\nb,\"open\nc,y\r\nd,w\ne,z";
        layout.process(block, Task::Solve { lexmin: false }, &mut out);
        let text = String::from_utf8(out.bytes.clone()).unwrap();
        assert_eq!(out.tally.records, 5, "{text}");
        assert!(
            text.contains("b,open,,invalid: unterminated quote"),
            "{text}"
        );
        assert!(text.contains("c,y,,") && text.contains("d,w,,"), "{text}");
        assert!(text.contains("e,z,,"), "{text}");
        let lines: Vec<u64> = out.messages.iter().map(|m| m.line).collect();
        assert_eq!(lines, [1, 3, 4, 5, 6]);
    }

    fn solve_layout(header: &[u8]) -> Layout {
        Layout::from_header(header, b"", None, None, Task::Solve { lexmin: false }).unwrap()
    }

    fn layout(header: &[u8], rest: &[u8], task: Task) -> Result<Layout, FormatError> {
        Layout::from_header(header, rest, None, None, task)
    }

    #[test]
    fn header_finds_columns_and_keeps_them_all() {
        let check = Task::Check { unique: false };
        let l = layout(b"id,puzzle,solution,clues,difficulty\n", b"", check).unwrap();
        assert_eq!((l.puzzle, l.solution, l.width), (1, Some(2), 5));
        assert_eq!(l.header(), b"id,puzzle,solution,clues,difficulty,status\n");
        // An existing solution column takes solve's answer in place.
        let l = solve_layout(b"quizzes,solutions\r\n");
        assert_eq!((l.puzzle, l.solution), (0, Some(1)));
        assert_eq!(l.header(), b"quizzes,solutions,status\n");
        let l = solve_layout(b"source,question,answer,rating\n");
        assert_eq!((l.puzzle, l.solution), (1, Some(2)));
        assert_eq!(l.header(), b"source,question,answer,rating,status\n");
        assert!(layout(b"a,b\n", b"", Task::Solve { lexmin: false }).is_err());
        let l = Layout::from_header(b"a,b\n", b"", Some("b"), None, Task::Count { limit: 2 });
        assert_eq!(l.unwrap().header(), b"a,b,count,status\n");
        let rate = Task::Rate {
            samples: 1,
            seed: 0,
        };
        let l = layout(
            b"p,\"x,y\"\n",
            format!("1,{}\n", "0".repeat(81)).as_bytes(),
            rate,
        );
        let l = l.unwrap();
        assert_eq!(l.puzzle, 1, "found by its data");
        assert_eq!(l.header(), b"p,\"x,y\",rating,singles,status\n");
        let l = layout(b"p,puzzle\r\n", b"", Task::Dedupe { exact: false }).unwrap();
        assert_eq!(
            l.header(),
            b"p,puzzle\n",
            "dedupe keeps the header as it came"
        );
        let named = Layout::from_header(b"p,mine\n", b"", Some("p"), Some("mine"), check);
        assert_eq!(named.unwrap().solution, Some(1));
        assert!(matches!(
            Layout::from_header(b"p,q\n", b"", Some("p"), Some("nope"), check),
            Err(FormatError::NoSuchColumn { .. })
        ));
    }

    #[test]
    fn rows_keep_every_field_padded_to_the_header() {
        let puzzle =
            "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let solution =
            "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
        let l = solve_layout(b"source,question,answer,rating\n");
        let mut out = BlockOut::new(10);
        let block = format!("\"a,b\",{puzzle},,7\nshort,{puzzle}\nx,bad,,1,extra\n");
        l.process(block.as_bytes(), Task::Solve { lexmin: false }, &mut out);
        let text = String::from_utf8(out.bytes.clone()).unwrap();
        assert_eq!(
            text,
            format!(
                "\"a,b\",{puzzle},{solution},7,solved\nshort,{puzzle},{solution},,solved\n\
                 x,bad,,1,extra,\"invalid: the row has 5 fields, the header 4\"\n"
            )
        );
    }

    #[test]
    fn dedupe_rows_are_written_as_they_came() {
        let l = layout(b"id,puzzle\n", b"", Task::Dedupe { exact: true }).unwrap();
        let mut out = BlockOut::new(10);
        let p = "0".repeat(81);
        let block = format!("# c\r\n\r\n\"1\",\"{p}\"\r\n2,{p}\n3,\"x\ny\"");
        l.process(block.as_bytes(), Task::Dedupe { exact: true }, &mut out);
        let text = String::from_utf8(out.bytes.clone()).unwrap();
        assert_eq!(text, format!("\"1\",\"{p}\"\n2,{p}\n3,\"x\ny\"\n"));
        let classes: Vec<bool> = out.kept.iter().map(|k| k.class.is_some()).collect();
        assert_eq!(classes, [true, true, false]);
        assert_eq!(out.kept[0].end, 88);
    }

    #[test]
    fn messages_name_the_right_lines_with_crlf_and_quoted_newlines() {
        let layout = solve_layout(b"id,puzzle\n");
        let mut out = BlockOut::new(10);
        layout.process(
            b"a,x\r\n\"b\nc\",y\r\n# c\r\n\r\nd,z",
            Task::Solve { lexmin: false },
            &mut out,
        );
        let lines: Vec<u64> = out.messages.iter().map(|n| n.line).collect();
        assert_eq!(lines, [1, 2, 6]);
    }
}
