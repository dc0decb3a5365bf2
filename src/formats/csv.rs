//! The CSV format: a header row, then one puzzle per row. The puzzle column is found by its header
//! name (`puzzle`, `quizzes`, `quiz`, `sudoku`, `puzzles`, `question`, or `--column NAME`);
//! blanks may be `0` or `.`. Fields are separated by commas, or by tabs or semicolons when the
//! header row has no comma (see [`delimiter_of`]); the output uses the input's separator.
//! Rows are read with `csv-core` straight over each block and written by [`RowWriter`] with the
//! `csv` crate's quoting rules (quotes, CRLF, a missing final newline).
//!
//! Output is CSV, one row per input row, in order: every input column, in order and with its
//! values, then the result columns (`solution` for solve, `count` for count, `canonical` for
//! canon, `rating` and `singles` for rate), then `status`. An input solution column (`solution`,
//! `solutions`, `answer`) takes solve's answer in place instead of a new column. `dedupe` writes
//! the rows it keeps as they came.

use super::detect::{header_start, OpenRequest, Opened, PEEK};
use super::text::BOM;
use std::borrow::Cow;
use std::sync::Arc;

use super::text;
use super::{FormatError, TextFormat};
use crate::grid::Grid;
use crate::records::{answer_records, BlockOut, RecordReader, Renderer};
use crate::task::{Column, Invalid, Outcome, Record, Task, STATUS};

/// Header names taken as the puzzle column, in order of preference (case-insensitive).
pub const PUZZLE_NAMES: [&str; 6] = ["puzzle", "quizzes", "quiz", "sudoku", "puzzles", "question"];
/// Header names taken as the solution column (for `check`).
pub const SOLUTION_NAMES: [&str; 3] = ["solution", "solutions", "answer"];

/// Where the columns are, learned from the header.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The field separator: `,`, `\t` or `;`.
    delimiter: u8,
    puzzle: usize,
    /// The solution column: what `check` verifies, where `solve` writes its answer.
    solution: Option<usize>,
    /// Fields in the header row: shorter rows are padded to it so result columns line up.
    width: usize,
    /// The output header row, with its line feed.
    header: Vec<u8>,
    /// Solve writes its answer into the solution column instead of adding one.
    fills: bool,
    /// The solution column's name, as the header has it.
    solution_name: Option<String>,
}

/// Walks CSV bytes as `csv-core` reads them (quotes only at the start of a field, doubled quotes
/// inside quoted fields, CR, LF or CRLF ending a row), reporting where rows start and the line
/// feeds outside quoted fields, where input may be cut. A quote in the middle of an unquoted
/// field is a plain character, so counting quotes would not do. After the header every row is
/// data, as in RFC 4180 and pandas: a row that starts with `#` is a record like any other.
pub struct RowScan<'a> {
    buf: &'a [u8],
    cursor: Cursor,
}

/// The field separator of a table whose header row starts `buf`: a comma if the header row
/// holds one outside quoted fields (or holds none of the three), else a tab if it holds one,
/// else a semicolon. Tab- and semicolon-separated files (TSV, a spreadsheet's CSV in locales
/// with a decimal comma) name their columns without commas. A quote opens a field where a
/// field may start after any of the three; the row ends at a line end outside quotes.
pub fn delimiter_of(buf: &[u8]) -> u8 {
    const SEPARATORS: [u8; 3] = [b',', b'\t', b';'];
    let mut seen = [false; 3];
    let (mut quoted, mut field_start) = (false, true);
    let mut i = 0;
    while i < buf.len() {
        let b = buf[i];
        i += 1;
        if quoted {
            match (b, buf.get(i)) {
                (b'"', Some(b'"')) => i += 1, // a doubled quote: still inside
                (b'"', _) => quoted = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'\n' | b'\r' => break,
            b'"' if field_start => quoted = true,
            _ => {}
        }
        let separator = SEPARATORS.iter().position(|&s| s == b);
        if let Some(k) = separator {
            seen[k] = true;
        }
        field_start = separator.is_some();
    }
    SEPARATORS
        .into_iter()
        .zip(seen)
        .find_map(|(s, seen)| seen.then_some(s))
        .unwrap_or(b',')
}

/// Where a [`RowScan`] is, apart from the bytes it scans (so that a walk can be kept beside a
/// buffer it does not borrow).
#[derive(Clone, Copy)]
struct Cursor {
    /// The field separator.
    delimiter: u8,
    pos: usize,
    state: State,
    /// Where the last quoted field opened.
    quote: usize,
}

impl Cursor {
    fn new(delimiter: u8) -> Cursor {
        Cursor {
            delimiter,
            pos: 0,
            state: State::RecordStart,
            quote: 0,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    RecordStart,
    FieldStart,
    Unquoted,
    Quoted,
}

/// What [`RowScan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// A record (not a blank line) starts at this offset.
    Row(usize),
    /// Offset just past a line end (an LF, or a lone CR with more bytes after it) that is not
    /// inside a quoted field: input may be cut here.
    Cut(usize),
}

impl<'a> RowScan<'a> {
    /// Scans `buf`, which starts at the start of a row, with fields separated by `delimiter`.
    pub fn with_delimiter(buf: &'a [u8], delimiter: u8) -> RowScan<'a> {
        RowScan {
            buf,
            cursor: Cursor::new(delimiter),
        }
    }

    /// Once the scan is over: the offset of a quote that opened a field and was never closed.
    pub fn open_quote(&self) -> Option<usize> {
        (self.cursor.state == State::Quoted).then_some(self.cursor.quote)
    }
}

/// The offset of a quote in `buf` that opens a field and is never closed, if any.
fn open_quote(buf: &[u8], delimiter: u8) -> Option<usize> {
    memchr::memchr(b'"', buf)?;
    let mut scan = RowScan::with_delimiter(buf, delimiter);
    scan.by_ref().for_each(drop);
    scan.open_quote()
}

impl Iterator for RowScan<'_> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        self.cursor.next_event(self.buf)
    }
}

impl Cursor {
    /// The next event in `buf`, which is the buffer this cursor has walked so far.
    fn next_event(&mut self, buf: &[u8]) -> Option<Event> {
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
                    b if b == self.delimiter => self.pos += 1,
                    _ => self.state = State::Unquoted,
                },
                State::Unquoted => {
                    let Some(i) = memchr::memchr3(self.delimiter, b'\n', b'\r', &buf[self.pos..])
                    else {
                        self.pos = buf.len();
                        return None;
                    };
                    self.pos += i;
                    match buf[self.pos] {
                        b if b == self.delimiter => {
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
            }
        }
    }
}

/// Offset just past the line end that ends the first row of `buf` (the header row, whose
/// separator [`delimiter_of`] tells).
pub fn first_row_end(buf: &[u8]) -> Option<usize> {
    let mut seen_row = false;
    RowScan::with_delimiter(buf, delimiter_of(buf)).find_map(|e| match e {
        Event::Row(_) => {
            seen_row = true;
            None
        }
        Event::Cut(c) => seen_row.then_some(c),
    })
}

/// Offset just past the last line end of `buf` outside quoted fields (`buf` starts a row).
pub fn last_boundary(buf: &[u8], delimiter: u8) -> Option<usize> {
    next_cuts(buf, delimiter).last()
}

/// The cut points of `buf`, in order.
pub fn next_cuts(buf: &[u8], delimiter: u8) -> impl Iterator<Item = usize> + '_ {
    RowScan::with_delimiter(buf, delimiter).filter_map(|e| match e {
        Event::Cut(c) => Some(c),
        Event::Row(_) => None,
    })
}

/// A reader of the rows of `data`, fields separated by `delimiter`.
pub(crate) fn reader(data: &[u8], delimiter: u8) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(data)
}

/// Writes CSV rows straight into a byte buffer, as the `csv` crate's writer does with this
/// engine's settings: a field is quoted when it holds the separator, a quote, a CR or LF; quotes
/// inside are doubled; rows end with LF; a row of one empty field is written `""`.
struct RowWriter {
    core: csv_core::Writer,
    delimiter: u8,
    fields: usize,
    bytes: usize,
}

impl RowWriter {
    fn new(delimiter: u8) -> RowWriter {
        RowWriter {
            core: csv_core::WriterBuilder::new()
                .delimiter(delimiter)
                .terminator(csv_core::Terminator::Any(b'\n'))
                .build(),
            delimiter,
            fields: 0,
            bytes: 0,
        }
    }

    fn field(&mut self, out: &mut Vec<u8>, field: &[u8]) {
        let quote = self.core.should_quote(field);
        self.write(out, field, quote);
    }

    /// A header row's name: in a table separated by tabs or semicolons, quoted also when it
    /// holds a comma, a semicolon or a tab, because a header's unquoted bytes decide its
    /// separator when the output is read again (a comma anywhere makes it comma-separated).
    fn name(&mut self, out: &mut Vec<u8>, name: &[u8]) {
        let quote = self.core.should_quote(name)
            || self.delimiter != b',' && name.iter().any(|b| b",;\t".contains(b));
        self.write(out, name, quote);
    }

    fn write(&mut self, out: &mut Vec<u8>, field: &[u8], quote: bool) {
        if self.fields > 0 {
            out.push(self.delimiter);
        }
        if quote {
            out.push(b'"');
            for &b in field {
                if b == b'"' {
                    out.push(b'"');
                }
                out.push(b);
            }
            out.push(b'"');
        } else {
            out.extend_from_slice(field);
        }
        self.fields += 1;
        self.bytes += field.len();
    }

    fn end(&mut self, out: &mut Vec<u8>) {
        if self.fields <= 1 && self.bytes == 0 {
            out.extend_from_slice(b"\"\"");
        }
        out.push(b'\n');
        self.fields = 0;
        self.bytes = 0;
    }
}

/// The CSV format of one input: where its columns are.
pub(crate) struct CsvFormat {
    layout: Layout,
}

impl CsvFormat {
    pub fn new(layout: Layout) -> CsvFormat {
        CsvFormat { layout }
    }
}

impl TextFormat for CsvFormat {
    fn name(&self) -> &'static str {
        "csv"
    }

    fn last_boundary(&self, buf: &[u8]) -> Option<usize> {
        last_boundary(buf, self.layout.delimiter)
    }

    /// A CSV row may hold quoted line feeds, so whether `p` is inside a quoted field is learned
    /// by scanning the rows since `first` as csv-core reads them (at memchr speed): no local
    /// rule is safe with quoted fields.
    fn record_start_at_or_after(&self, data: &[u8], first: usize, p: usize) -> usize {
        next_cuts(&data[first..], self.layout.delimiter)
            .map(|cut| first + cut)
            .find(|&cut| cut >= p)
            .unwrap_or(data.len())
    }

    fn answer_block(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        let renderer = CsvRenderer {
            layout: &self.layout,
            columns: task.columns(),
            writer: RowWriter::new(self.layout.delimiter),
            value: Vec::new(),
            status: Vec::new(),
            replaced: 0,
        };
        answer_records(
            CsvReader::new(&self.layout, block, task.needs_solution()),
            renderer,
            task,
            out,
        );
    }

    fn puzzles(&self, block: &[u8], each: &mut dyn FnMut(u64, crate::records::Puzzle)) {
        crate::records::each_puzzle(CsvReader::new(&self.layout, block, false), each);
    }
}

/// A piece of a block that csv-core reads in one go: the whole block, or, around a quote that
/// is never closed, the rows up to that quote's line with the quote closed at its line end.
struct Segment<'a> {
    bytes: Cow<'a, [u8]>,
    /// Lines of the block before the segment.
    lines_before: u64,
    /// The segment's last row had its quote closed for it.
    last_unterminated: bool,
}

/// The segments of `block` (see [`Segment`]).
///
/// A quote that is never closed would swallow every row after it into one field. A block
/// can end inside quotes only at the end of the input, so such a quote is closed at the end
/// of its physical line instead: that row is `invalid: unterminated quote ...` and the rows
/// after it are read as rows. No row is lost.
fn segments(block: &[u8], delimiter: u8) -> Vec<Segment<'_>> {
    let mut segments = Vec::with_capacity(1);
    let (mut start, mut lines_before) = (0, 0);
    loop {
        let rest = &block[start..];
        let Some(quote) = open_quote(rest, delimiter) else {
            segments.push(Segment {
                bytes: Cow::Borrowed(rest),
                lines_before,
                last_unterminated: false,
            });
            return segments;
        };
        let end = text::line_end(rest, quote);
        let mut closed = Vec::with_capacity(end + 2);
        closed.extend_from_slice(rest[..end].trim_ascii_end());
        closed.extend_from_slice(b"\"\n");
        segments.push(Segment {
            bytes: Cow::Owned(closed),
            lines_before,
            last_unterminated: true,
        });
        lines_before += text::count_line_ends(&rest[..end]);
        start += end;
        if start >= block.len() {
            return segments;
        }
    }
}

/// Reads the rows of a block with csv-core, straight over the block (mapped or read): no copy
/// into a reader buffer.
struct CsvReader<'a> {
    layout: &'a Layout,
    needs_solution: bool,
    /// The block as given (its line ends are counted).
    block: &'a [u8],
    segments: std::vec::IntoIter<Segment<'a>>,
    segment: Option<Segment<'a>>,
    core: CoreReader,
    /// Bytes of the segment csv-core has read.
    pos: usize,
    /// The row last read: its field lengths (see [`CoreReader::fields`]) and its index among
    /// the segment's rows (1-based, blank lines included, as the line walk counts them).
    row: (usize, usize),
    index: usize,
    /// The csv crate's positions go wrong on CRLF and lone CR line ends, so line numbers come from
    /// walking the same rows by hand. The walk is lazy: it only catches up to the current row
    /// when a message (or a filter) needs its line, so good rows cost nothing.
    walk: RowWalk,
}

impl<'a> CsvReader<'a> {
    fn new(layout: &'a Layout, block: &'a [u8], needs_solution: bool) -> CsvReader<'a> {
        CsvReader {
            layout,
            needs_solution,
            block,
            segments: segments(block, layout.delimiter).into_iter(),
            segment: None,
            core: CoreReader::new(layout.delimiter),
            pos: 0,
            row: (0, 0),
            index: 0,
            walk: RowWalk::new(layout.delimiter),
        }
    }

    /// The fields of the row last read.
    fn fields(&self) -> Fields<'_> {
        self.core.fields(self.row)
    }

    fn bytes(&self) -> &[u8] {
        self.segment.as_ref().map_or(&[], |s| &s.bytes)
    }
}

impl CsvReader<'_> {
    /// Reads the next row with csv-core: `None` at the end of the block, `Some(None)` for a
    /// blank line (not a record), `Some(Some(unterminated))` for a row, `unterminated` when it
    /// is the row whose quote was closed for it.
    fn read_row(&mut self) -> Option<Option<bool>> {
        loop {
            if self.segment.is_none() {
                self.segment = Some(self.segments.next()?);
                self.core.restart();
                let delimiter = self.layout.delimiter;
                (self.pos, self.index, self.walk) = (0, 0, RowWalk::new(delimiter));
            }
            let segment = self.segment.as_ref().expect("a segment is being read");
            let start = self.pos;
            let mut input = &segment.bytes[start..];
            let Some(row) = self.core.next(&mut input) else {
                self.segment = None;
                continue;
            };
            self.pos = segment.bytes.len() - input.len();
            self.row = row;
            self.index += 1;
            let rec = self.core.fields(row);
            // A blank line (spaces at most) is not a record; a quoted empty field (`""`, as
            // pandas quotes a missing value) or a lone quote is one.
            if rec.len() == 1
                && text::trim_space(rec.get(0).unwrap_or_default()).is_empty()
                && !segment.bytes[start..self.pos].contains(&b'"')
            {
                return Some(None);
            }
            let is_last = || input.iter().all(|&b| b == b'\n' || b == b'\r');
            return Some(Some(segment.last_unterminated && is_last()));
        }
    }
}

impl RecordReader for CsvReader<'_> {
    fn next_record(&mut self) -> Option<Record<'_>> {
        let unterminated = loop {
            if let Some(unterminated) = self.read_row()? {
                break unterminated;
            }
        };
        let rec = self.core.fields(self.row);
        let layout = self.layout;
        let puzzle = if unterminated {
            Err(Invalid::UnterminatedQuote)
        } else if rec.len() > layout.width {
            // Its fields would push the result columns out of line.
            Err(Invalid::LongRow {
                fields: rec.len(),
                header: layout.width,
            })
        } else {
            match rec.get(layout.puzzle) {
                None => Err(Invalid::MissingColumn(layout.puzzle + 1)),
                Some(field) => Grid::parse(text::trim_space(field)).map_err(Invalid::from),
            }
        };
        let record = Record::new(puzzle);
        if !self.needs_solution || record.puzzle.is_err() {
            return Some(record);
        }
        Some(match layout.solution.and_then(|s| rec.get(s)) {
            Some(s) => record.with_solution(Some(text::trim_space(s))),
            None => Record::new(Err(Invalid::MissingSolutionColumn)),
        })
    }

    fn line(&mut self) -> u64 {
        let Some(segment) = &self.segment else {
            return 0;
        };
        segment.lines_before + self.walk.line_of(&segment.bytes, self.index)
    }

    /// The row as it came: from where the row walk saw it start to where csv-core finished
    /// reading it, less its line end.
    fn as_read(&mut self) -> &[u8] {
        if let Some(segment) = &self.segment {
            self.walk.line_of(&segment.bytes, self.index);
        }
        let end = self.pos;
        without_line_end(&self.bytes()[self.walk.counted.min(end)..end])
    }

    fn line_ends(&mut self) -> u64 {
        text::count_line_ends(self.block)
    }
}

/// Writes each row: every input field (padded to the header's width), the answer in the
/// solution column (solve, when the input has one) or in the task's result columns, and the
/// status.
struct CsvRenderer<'a> {
    layout: &'a Layout,
    columns: &'static [Column],
    writer: RowWriter,
    value: Vec<u8>,
    status: Vec<u8>,
    /// Values of the solution column that an answer replaced.
    replaced: u64,
}

impl Renderer<CsvReader<'_>> for CsvRenderer<'_> {
    fn render(&mut self, reader: &mut CsvReader<'_>, outcome: &Outcome, out: &mut Vec<u8>) {
        let rec = reader.fields();
        let layout = self.layout;
        // In place: the answer, or the column's own value when there is none.
        self.value.clear();
        let fill = layout.fills && outcome.write_value(&mut self.value);
        for i in 0..layout.width.max(rec.len()) {
            if fill && Some(i) == layout.solution {
                let old = text::trim_space(rec.get(i).unwrap_or_default());
                self.replaced += u64::from(!old.is_empty() && old != self.value.as_slice());
                self.writer.field(out, &self.value);
            } else {
                self.writer.field(out, rec.get(i).unwrap_or_default());
            }
        }
        if !layout.fills {
            for i in 0..self.columns.len() {
                self.value.clear();
                outcome.write_column(i, &mut self.value);
                self.writer.field(out, &self.value);
            }
        }
        self.status.clear();
        outcome.write_status(&mut self.status);
        self.writer.field(out, &self.status);
        self.writer.end(out);
    }

    fn replaced(&self) -> u64 {
        self.replaced
    }
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
        keep_solution: bool,
        task: Task,
    ) -> Result<Layout, FormatError> {
        let delimiter = delimiter_of(header);
        let mut record = csv::ByteRecord::new();
        match reader(header, delimiter).read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return Err(FormatError::NoHeader),
            Err(e) => return Err(FormatError::UnreadableHeader(e.to_string())),
        }
        // A puzzle is never a column name: the input has no header (its first puzzle would be lost).
        if record
            .iter()
            .any(|f| Grid::parse(text::trim_space(f)).is_ok())
        {
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
                .or_else(|| first_puzzle_column(rest, names.len(), delimiter))
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
        let mut row: Vec<Vec<u8>> = record.iter().map(<[u8]>::to_vec).collect();
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
            row.push(fresh.clone().into_bytes());
            taken.push(fresh);
        };
        let fills = task.fills_solution_column() && solution.is_some() && !keep_solution;
        if !fills {
            for column in task.columns() {
                added(column.name.as_bytes());
            }
        }
        let header = if task.filters() {
            // Dedupe keeps rows as they came, header included.
            let mut out = without_line_end(header).to_vec();
            out.push(b'\n');
            out
        } else {
            added(STATUS.name.as_bytes());
            let mut out = Vec::new();
            let mut writer = RowWriter::new(delimiter);
            for name in &row {
                writer.name(&mut out, name);
            }
            writer.end(&mut out);
            out
        };
        Ok(Layout {
            delimiter,
            puzzle,
            solution,
            width: record.len(),
            header,
            fills,
            solution_name: solution.map(|i| names[i].clone()),
        })
    }

    /// The output header row.
    pub fn header(&self) -> &[u8] {
        &self.header
    }

    /// The solution column that `solve` fills in place, if it does.
    pub fn filled(&self) -> Option<&str> {
        self.solution_name.as_deref().filter(|_| self.fills)
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
pub fn first_puzzle_column(rows: &[u8], width: usize, delimiter: u8) -> Option<usize> {
    let mut rdr = reader(rows, delimiter);
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
            if let Ok(grid) = Grid::parse(text::trim_space(field)) {
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
    delimiter: u8,
    core: csv_core::Reader,
    /// Nothing read since the last (re)start.
    fresh: bool,
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

/// One row's fields, borrowed from a [`CoreReader`].
struct Fields<'a> {
    bytes: &'a [u8],
    ends: &'a [usize],
}

impl<'a> Fields<'a> {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn get(&self, i: usize) -> Option<&'a [u8]> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.bytes.get(start..end)
    }
}

impl CoreReader {
    fn new(delimiter: u8) -> CoreReader {
        CoreReader {
            delimiter,
            core: Self::core(delimiter),
            fresh: true,
            bytes: vec![0; 1024],
            ends: vec![0; 16],
        }
    }

    /// Starts reading from the start of a row again (a new segment), keeping the buffers.
    fn restart(&mut self) {
        self.core = Self::core(self.delimiter);
        self.fresh = true;
    }

    /// csv-core with its default settings (no comment character) but the separator.
    fn core(delimiter: u8) -> csv_core::Reader {
        csv_core::ReaderBuilder::new().delimiter(delimiter).build()
    }

    /// Reads the next row of `input` (advanced past it): the lengths of its field bytes and of
    /// its field ends, for [`CoreReader::fields`]; `None` at the end. An empty `input` is the end
    /// of the data, which also completes a last row without a newline.
    fn next(&mut self, input: &mut &[u8]) -> Option<(usize, usize)> {
        use csv_core::ReadRecordResult::*;
        let (mut out, mut end) = (0, 0);
        // csv-core drops a byte-order mark that starts the first bytes it is given. A segment
        // starts at a row, where a mark is the row's data, as everywhere after the header (the
        // input's own mark is skipped before it): whether a row starts a block must not change
        // how it reads. So a first read that starts with a mark is of one byte, too short to be
        // one.
        let mut first = std::mem::replace(&mut self.fresh, false) && input.starts_with(BOM);
        loop {
            let piece = if first { &input[..1] } else { *input };
            first = false;
            let (result, nin, nout, nend) =
                self.core
                    .read_record(piece, &mut self.bytes[out..], &mut self.ends[end..]);
            *input = &input[nin..];
            out += nout;
            end += nend;
            match result {
                InputEmpty => {}
                OutputFull => self.bytes.resize(self.bytes.len() * 2, 0),
                OutputEndsFull => self.ends.resize(self.ends.len() * 2, 0),
                Record => return Some((out, end)),
                End => return None,
            }
        }
    }

    /// The fields of the row [`CoreReader::next`] read last.
    fn fields(&self, (bytes, ends): (usize, usize)) -> Fields<'_> {
        Fields {
            bytes: &self.bytes[..bytes],
            ends: &self.ends[..ends],
        }
    }
}

/// The rows of a segment as csv-core reads them, with the 1-based line each starts on.
struct RowWalk {
    cursor: Cursor,
    /// Line of the offset `counted`.
    line: u64,
    counted: usize,
    /// Rows walked so far.
    seen: usize,
    /// The line of the last row walked.
    last: u64,
}

impl RowWalk {
    fn new(delimiter: u8) -> RowWalk {
        RowWalk {
            cursor: Cursor::new(delimiter),
            line: 1,
            counted: 0,
            seen: 0,
            last: 0,
        }
    }

    /// The line of the `index`-th row (1-based) of `block`, walking forward as needed.
    fn line_of(&mut self, block: &[u8], index: usize) -> u64 {
        while self.seen < index {
            let Some(start) =
                std::iter::from_fn(|| self.cursor.next_event(block)).find_map(|e| match e {
                    Event::Row(start) => Some(start),
                    Event::Cut(_) => None,
                })
            else {
                break;
            };
            self.line += text::count_line_ends(&block[self.counted..start]);
            self.counted = start;
            self.seen += 1;
            self.last = self.line;
        }
        self.last
    }
}

/// Opens an input in this format.
pub(crate) fn open(request: &OpenRequest<'_>) -> Result<Opened, FormatError> {
    let body = request.body();
    // An empty input has no header: there is nothing to answer, in any format.
    if body.is_empty() {
        return super::line::open(request);
    }
    let start = header_start(body);
    let end = match first_row_end(&body[start..]) {
        Some(end) => start + end,
        None if request.prefix.len() < PEEK => body.len(),
        None => return Err(FormatError::HeaderTooLong),
    };
    let layout = Layout::from_header(
        &body[start..end],
        &body[end..],
        request.column,
        request.solution_column,
        request.keep_solution,
        request.task,
    )?;
    Ok(Opened {
        header: layout.header().to_vec(),
        skip: request.bom + end,
        first_line: text::count_line_ends(&body[..end]),
        filled: layout.filled().map(str::to_string),
        format: Arc::new(CsvFormat::new(layout)),
        note: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundaries_skip_quoted_newlines() {
        assert_eq!(last_boundary(b"a,\"x\ny\"\nb,\"p\nq", b','), Some(8));
        assert_eq!(last_boundary(b"a,\"x\ny", b','), None);
        assert_eq!(first_row_end(b"\"i\nd\",puzzle\r\nx"), Some(14));
        // Quotes that csv-core reads as plain characters: inside an unquoted field.
        assert_eq!(last_boundary(b"# don\"t\n1,\"x\ny\"\n2", b','), Some(16));
        assert_eq!(last_boundary(b"1,a\"b\n2,\"x\ny\"\n3", b','), Some(14));
        // A doubled quote stays inside; a lone CR ends a row but is no cut point.
        assert_eq!(last_boundary(b"1,\"a\"\"\nb\"\r2,c\n3", b','), Some(14));
        // A lone CR ends a row: here `"b` opens a quote that runs to the end.
        assert_eq!(last_boundary(b"a\r# \"\r\"b\nc\n", b','), Some(6));
        // After the header, a row that starts with `#` is a row like any other.
        assert_eq!(first_row_end(b"# c\"\n\nid,puzzle\n1"), Some(5));
        // A quote opens a field only after the table's own separator.
        assert_eq!(last_boundary(b"a\t\"x\ny\"\tz", b'\t'), None);
        assert_eq!(last_boundary(b"a\t\"x\ny\"\tz", b','), Some(5));
        assert_eq!(first_row_end(b"i\t\"a\nb\"\tpuzzle\nx"), Some(15));
    }

    #[test]
    fn the_header_row_sets_the_separator() {
        assert_eq!(delimiter_of(b"id,puzzle\tx;y\n"), b',');
        assert_eq!(delimiter_of(b"id\tpuzzle;x\n1,2"), b'\t');
        assert_eq!(delimiter_of(b"id;puzzle\r\n1,2\t3"), b';');
        assert_eq!(delimiter_of(b"puzzle\n1;2"), b',');
        assert_eq!(delimiter_of(b""), b',');
        // Separators inside quoted names do not count, and a quoted name may hold a line end.
        assert_eq!(delimiter_of(b"id\t\"Rating, 1-5\"\tpuzzle\n"), b'\t');
        assert_eq!(delimiter_of(b"\"i\nd\"\tpuzzle\n1,2"), b'\t');
        assert_eq!(delimiter_of(b"\"a\"\",b\";puzzle\n"), b';');
        // A quote inside a field is a plain character, as csv-core reads it.
        assert_eq!(delimiter_of(b"a\"b;c\tpuzzle\n"), b'\t');
    }

    #[test]
    fn an_unterminated_quote_ends_at_its_line_and_loses_no_row() {
        let layout = solve_layout(b"id,puzzle\n");
        let mut out = BlockOut::new(10);
        // Only the quote at `b` is never closed (any later quote would close it).
        let block = b"a,\"x\ny\"\nb,\"open\nc,y\r\nd,w\ne,z";
        CsvFormat::new(layout.clone()).answer_block(block, Task::Solve { lexmin: false }, &mut out);
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
        Layout::from_header(
            header,
            b"",
            None,
            None,
            false,
            Task::Solve { lexmin: false },
        )
        .unwrap()
    }

    fn layout(header: &[u8], rest: &[u8], task: Task) -> Result<Layout, FormatError> {
        Layout::from_header(header, rest, None, None, false, task)
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
        let l = Layout::from_header(
            b"a,b\n",
            b"",
            Some("b"),
            None,
            false,
            Task::Count { limit: 2 },
        );
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
        let named = Layout::from_header(b"p,mine\n", b"", Some("p"), Some("mine"), false, check);
        assert_eq!(named.unwrap().solution, Some(1));
        assert!(matches!(
            Layout::from_header(b"p,q\n", b"", Some("p"), Some("nope"), false, check),
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
        CsvFormat::new(l.clone()).answer_block(
            block.as_bytes(),
            Task::Solve { lexmin: false },
            &mut out,
        );
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
        let block = format!("\r\n\r\n\"1\",\"{p}\"\r\n2,{p}\n3,\"x\ny\"");
        CsvFormat::new(l.clone()).answer_block(
            block.as_bytes(),
            Task::Dedupe { exact: true },
            &mut out,
        );
        let text = String::from_utf8(out.bytes.clone()).unwrap();
        assert_eq!(text, format!("\"1\",\"{p}\"\n2,{p}\n3,\"x\ny\"\n"));
        let classes: Vec<bool> = out
            .kept
            .iter()
            .map(|k| matches!(k.outcome, Outcome::Class(_)))
            .collect();
        assert_eq!(classes, [true, true, false]);
        assert_eq!(out.kept[0].end, 88);
    }

    #[test]
    fn messages_name_the_right_lines_with_crlf_and_quoted_newlines() {
        let layout = solve_layout(b"id,puzzle\n");
        let mut out = BlockOut::new(10);
        CsvFormat::new(layout.clone()).answer_block(
            b"a,x\r\n\"b\nc\",y\r\n# c\r\n\r\nd,z",
            Task::Solve { lexmin: false },
            &mut out,
        );
        // After the header, `# c` is a row (of one field: no puzzle column), not a comment.
        let lines: Vec<u64> = out.messages.iter().map(|n| n.line).collect();
        assert_eq!(lines, [1, 2, 4, 6]);
        assert_eq!(out.tally.records, 4);
    }
}
