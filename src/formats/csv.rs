//! The CSV format: a header row, then one puzzle per row. The puzzle column is found by its header
//! name (`puzzle`, `quizzes`, `quiz`, `sudoku`, `puzzles`, `question`, or `--column NAME`);
//! blanks may be `0` or `.`.
//! Rows are read with `csv-core` straight over each block and written with the `csv` crate
//! (quotes, CRLF, a missing final newline).
//!
//! Output is CSV: the key columns (`id` if present, then the puzzle column), then the answer
//! (`solution` for solve, `solutions` for count), then `status`; one row per input row, in order.

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
    solution: Option<usize>,
    id: Option<usize>,
    /// The output header row, with its line feed.
    header: Vec<u8>,
}

/// Offset just past the first line feed that is outside quotes (the end of the header row).
pub fn first_row_end(buf: &[u8]) -> Option<usize> {
    let mut inside = false;
    for (i, &b) in buf.iter().enumerate() {
        match b {
            b'"' => inside = !inside,
            b'\n' if !inside => return Some(i + 1),
            _ => {}
        }
    }
    None
}

/// Offset just past the last line feed of `buf` that is outside quotes (`buf` starts outside).
pub fn last_boundary(buf: &[u8]) -> Option<usize> {
    let mut odd = memchr::memchr_iter(b'"', buf).count() % 2 == 1;
    for i in (0..buf.len()).rev() {
        match buf[i] {
            b'\n' if !odd => return Some(i + 1),
            b'"' => odd = !odd,
            _ => {}
        }
    }
    None
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
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(buf)
}

impl Layout {
    /// Reads the header row and finds the columns. `column` overrides the puzzle column's name.
    pub fn from_header(
        header: &[u8],
        column: Option<&str>,
        task: Task,
    ) -> Result<Layout, FormatError> {
        let mut record = csv::ByteRecord::new();
        match reader(header).read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => return Err(FormatError::NoHeader),
            Err(e) => return Err(FormatError::UnreadableHeader(e.to_string())),
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
        let puzzle =
            match column {
                Some(name) => names.iter().position(|n| n == name).ok_or_else(|| {
                    FormatError::NoSuchColumn {
                        name: name.to_string(),
                        names: names.clone(),
                    }
                })?,
                None => find(&PUZZLE_NAMES).ok_or_else(|| FormatError::NoPuzzleColumn {
                    names: names.clone(),
                })?,
            };
        let solution = find(&SOLUTION_NAMES).filter(|&s| s != puzzle);
        if matches!(task, Task::Check { .. }) && solution.is_none() {
            return Err(FormatError::NoSolutionColumn { names });
        }
        let id = find(&["id"]).filter(|&i| i != puzzle);
        let mut out = writer(Vec::new());
        let mut row = csv::ByteRecord::new();
        if let Some(i) = id {
            row.push_field(names[i].as_bytes());
        }
        row.push_field(names[puzzle].as_bytes());
        match task {
            Task::Solve { .. } => row.push_field(b"solution"),
            Task::Count { .. } => row.push_field(b"solutions"),
            Task::Check { .. } => {}
        }
        row.push_field(b"status");
        out.write_byte_record(&row).expect("writing to memory");
        Ok(Layout {
            puzzle,
            solution,
            id,
            header: out.into_inner().expect("writing to memory"),
        })
    }

    /// The output header row.
    pub fn header(&self) -> &[u8] {
        &self.header
    }

    /// Parses and answers every row of `block`.
    pub fn process(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        // csv-core straight over the block (mapped or read): no copy into a reader buffer.
        let mut rdr = CoreReader::new();
        let mut input = block;
        let mut wtr = writer(std::mem::take(&mut out.bytes));
        let mut row = csv::ByteRecord::new();
        // The csv crate's positions go wrong on CRLF and comment lines, so line numbers come
        // from walking the same rows by hand. The walk is lazy: it only catches up to the
        // current record when a message needs its line, so good rows cost nothing.
        let mut rows = Rows {
            block,
            pos: 0,
            line: 1,
            seen: 0,
            last: 0,
        };
        let mut index = 0;
        let mut value = Vec::new();
        let mut status = Vec::new();
        while let Some(rec) = rdr.next(&mut input) {
            index += 1;
            if rec.len() == 1 && rec.get(0).unwrap_or_default().trim_ascii().is_empty() {
                continue; // a blank line: not a record
            }
            row.clear();
            if let Some(i) = self.id {
                row.push_field(rec.get(i).unwrap_or_default());
            }
            let field = rec.get(self.puzzle);
            row.push_field(field.unwrap_or_default());
            let outcome = self.outcome(field, &rec, task);
            out.count(&outcome, || rows.line_of(index));
            if !matches!(task, Task::Check { .. }) {
                value.clear();
                outcome.write_value(&mut value);
                row.push_field(&value);
            }
            status.clear();
            outcome.write_status(&mut status);
            row.push_field(&status);
            wtr.write_byte_record(&row).expect("writing to memory");
        }
        out.bytes = wtr.into_inner().expect("writing to memory");
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

/// The rows of a block as the csv crate sees them (empty lines and `#` comment lines skipped),
/// yielding the 1-based line each row starts on.
struct Rows<'a> {
    block: &'a [u8],
    pos: usize,
    line: u64,
    /// Rows yielded so far.
    seen: usize,
    /// The line of the last row yielded.
    last: u64,
}

impl Rows<'_> {
    /// The line of the `index`-th row (1-based), walking forward as needed.
    fn line_of(&mut self, index: usize) -> u64 {
        while self.seen < index {
            match self.next() {
                Some(line) => {
                    self.seen += 1;
                    self.last = line;
                }
                None => return 0,
            }
        }
        self.last
    }
}

impl Iterator for Rows<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        while self.pos < self.block.len() {
            let rest = &self.block[self.pos..];
            let end = first_row_end(rest).unwrap_or(rest.len());
            let row = &rest[..end];
            let start = self.line;
            self.line += memchr::memchr_iter(b'\n', row).count() as u64;
            self.pos += end;
            let body = super::strip_cr(row.strip_suffix(b"\n").unwrap_or(row));
            if !body.is_empty() && body[0] != b'#' {
                return Some(start);
            }
        }
        None
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
    }

    #[test]
    fn header_finds_columns() {
        let l = Layout::from_header(
            b"id,puzzle,solution,clues,difficulty\n",
            None,
            Task::Check { unique: false },
        )
        .unwrap();
        assert_eq!((l.id, l.puzzle, l.solution), (Some(0), 1, Some(2)));
        assert_eq!(l.header(), b"id,puzzle,status\n");
        let l = Layout::from_header(
            b"quizzes,solutions\r\n",
            None,
            Task::Solve { lexmin: false },
        )
        .unwrap();
        assert_eq!((l.id, l.puzzle, l.solution), (None, 0, Some(1)));
        assert_eq!(l.header(), b"quizzes,solution,status\n");
        assert!(Layout::from_header(b"a,b\n", None, Task::Solve { lexmin: false }).is_err());
        let l = Layout::from_header(b"a,b\n", Some("b"), Task::Count { limit: 2 }).unwrap();
        assert_eq!(l.header(), b"b,solutions,status\n");
    }

    #[test]
    fn messages_name_the_right_lines_with_crlf_and_quoted_newlines() {
        let layout =
            Layout::from_header(b"id,puzzle\n", None, Task::Solve { lexmin: false }).unwrap();
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
