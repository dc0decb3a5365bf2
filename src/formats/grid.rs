//! The grid format: nine lines of nine cells per puzzle (`0` or `.` for blanks), the cells either
//! separated by single spaces (`0 3 5 4 6 9 2 7 8`) or not at all (`035469278`). Grids are
//! separated by blank lines or title lines (a line that starts with two letters, such as
//! Project Euler's `Grid 01`), which belong to no grid; `#` lines are ignored. A record is a run
//! of lines between separators, so a malformed grid never swallows the next one.
//!
//! Output keeps the style of each input grid: nine lines, spaced if the input was; grids are
//! separated by a blank line. A grid that is not answered gets one status line instead.

use std::sync::Arc;

use super::detect::{OpenRequest, Opened};
use super::text::{self, line_end_before, lines, Lines};
use super::FormatError;
use super::TextFormat;
use crate::grid::{Grid, CELLS};
use crate::records::{answer_records, BlockOut, RecordReader, Renderer};
use crate::task::{Invalid, Outcome, Record, Task};

/// Parses one row: nine cells, unseparated or separated by single spaces. Returns the values
/// (`0` blank) and whether the row was spaced.
pub fn parse_row(text: &[u8]) -> Option<([u8; 9], bool)> {
    let (spaced, step) = match text.len() {
        9 => (false, 1),
        17 => (true, 2),
        _ => return None,
    };
    if spaced && (1..17).step_by(2).any(|i| text[i] != b' ') {
        return None;
    }
    let mut row = [0u8; 9];
    for (k, cell) in row.iter_mut().enumerate() {
        *cell = match text[k * step] {
            b @ b'1'..=b'9' => b - b'0',
            b'0' | b'.' => 0,
            _ => return None,
        };
    }
    Some((row, spaced))
}

/// True for a title line: one that starts (after whitespace) with two ASCII letters, as
/// `Grid 01` does. No row does; a row damaged by one stray letter stays a bad row.
pub fn is_title(line: &[u8]) -> bool {
    let line = text::trim_start(line);
    line.len() >= 2 && line[0].is_ascii_alphabetic() && line[1].is_ascii_alphabetic()
}

/// True for a line that ends the grid before it and belongs to none: blank, or a title.
fn separates(line: &[u8]) -> bool {
    let line = text::trim_start(line);
    line.is_empty() || is_title(line)
}

/// Offset just past the last separator line (blank or title) of `buf` that has its line end (a
/// grid boundary).
pub fn last_boundary(buf: &[u8]) -> Option<usize> {
    let mut limit = buf.len();
    loop {
        let cut = line_end_before(buf, limit)?;
        // The line this end closes runs from the previous line end to its terminator.
        let crlf = cut >= 2 && buf[cut - 1] == b'\n' && buf[cut - 2] == b'\r';
        let terminator = cut - 1 - usize::from(crlf);
        let start = line_end_before(buf, terminator).unwrap_or(0);
        if separates(&buf[start..terminator]) {
            return Some(cut);
        }
        if start == 0 {
            return None;
        }
        limit = start;
    }
}

/// The grid format.
pub(crate) struct GridFormat;

impl TextFormat for GridFormat {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn last_boundary(&self, buf: &[u8]) -> Option<usize> {
        last_boundary(buf)
    }

    fn record_start_at_or_after(&self, data: &[u8], first: usize, p: usize) -> usize {
        // A grid starts on the first line after a separator line (or at `first`).
        let mut line = text::line_end(data, p - 1);
        loop {
            if line >= data.len() {
                return data.len();
            }
            let crlf = line >= 2 && data[line - 1] == b'\n' && data[line - 2] == b'\r';
            let terminator = line - 1 - usize::from(crlf);
            let previous = line_end_before(data, terminator).map_or(first, |s| s.max(first));
            if separates(&data[previous..terminator]) {
                return line;
            }
            line = text::line_end(data, line);
        }
    }

    fn holds_record(&self, bytes: &[u8]) -> bool {
        // Titles are no grid.
        lines(bytes).any(|line| !text::is_skipped(line) && !is_title(line))
    }

    fn block_separator(&self) -> &'static [u8] {
        b"\n"
    }

    fn answer_block(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        let reader = GridReader {
            lines: lines(block).enumerate(),
            block,
            line: 0,
            spaced: false,
        };
        answer_records(reader, GridRenderer, task, out);
    }

    fn puzzles(&self, block: &[u8], each: &mut dyn FnMut(u64, crate::records::Puzzle)) {
        let reader = GridReader {
            lines: lines(block).enumerate(),
            block,
            line: 0,
            spaced: false,
        };
        crate::records::each_puzzle(reader, each);
    }
}

/// Reads the grids of a block: a grid is a run of lines between separators (`#` lines skipped).
struct GridReader<'a> {
    lines: std::iter::Enumerate<Lines<'a>>,
    block: &'a [u8],
    /// The line the last grid is reported on: its first, or its first bad row.
    line: u64,
    /// Whether the last grid's first row was spaced (its answer keeps the style).
    spaced: bool,
}

/// A grid being read.
struct Pending {
    first_line: u64,
    rows: usize,
    cells: [u8; CELLS],
    spaced: bool,
    /// The first problem, and the line it is on.
    error: Option<(u64, Invalid)>,
}

impl RecordReader for GridReader<'_> {
    fn next_record(&mut self) -> Option<Record<'_>> {
        let mut pending: Option<Pending> = None;
        for (i, line) in self.lines.by_ref() {
            let line_no = i as u64 + 1;
            // Whitespace and byte-order marks, as every text format skips them.
            let line = text::trim_start(line).trim_ascii_end();
            if separates(line) {
                if pending.is_some() {
                    break;
                }
                continue;
            }
            if line[0] == b'#' {
                continue;
            }
            let p = pending.get_or_insert(Pending {
                first_line: line_no,
                rows: 0,
                cells: [0; CELLS],
                spaced: false,
                error: None,
            });
            p.rows += 1;
            if p.rows > 9 || p.error.is_some() {
                continue;
            }
            match parse_row(line) {
                Some((row, spaced)) => {
                    if p.rows == 1 {
                        p.spaced = spaced;
                    }
                    p.cells[(p.rows - 1) * 9..p.rows * 9].copy_from_slice(&row);
                }
                None => p.error = Some((line_no, Invalid::GridRow(p.rows))),
            }
        }
        let p = pending?;
        self.spaced = p.spaced;
        let (line, puzzle) = match p.error {
            Some((line, invalid)) => (line, Err(invalid)),
            None if p.rows != 9 => (p.first_line, Err(Invalid::GridRows(p.rows))),
            None => (
                p.first_line,
                Ok(Grid::from_cells(p.cells).expect("cells are 0..=9")),
            ),
        };
        self.line = line;
        // A grid carries no solution: `check` is refused on grids when the input is opened.
        Some(Record::new(puzzle))
    }

    fn line(&mut self) -> u64 {
        self.line
    }

    fn as_read(&mut self) -> &[u8] {
        unreachable!("no filtering task reads grids: refused when the input is opened")
    }

    fn line_ends(&mut self) -> u64 {
        text::count_line_ends(self.block)
    }
}

/// Writes a solution as nine rows in the style of its grid, anything else as one line; grids
/// are separated by a blank line.
struct GridRenderer;

impl Renderer<GridReader<'_>> for GridRenderer {
    fn render(&mut self, reader: &mut GridReader<'_>, outcome: &Outcome, out: &mut Vec<u8>) {
        if !out.is_empty() {
            out.push(b'\n');
        }
        match outcome {
            Outcome::Solved(s) => push_grid(out, s, reader.spaced),
            other => other.write_line(out),
        }
    }
}

/// Appends nine lines of nine digits, spaced or not.
pub fn push_grid(bytes: &mut Vec<u8>, grid: &Grid, spaced: bool) {
    for row in grid.cells().chunks_exact(9) {
        for (k, &v) in row.iter().enumerate() {
            if spaced && k > 0 {
                bytes.push(b' ');
            }
            bytes.push(b'0' + v);
        }
        bytes.push(b'\n');
    }
}

/// Opens an input in this format.
pub(crate) fn open(request: &OpenRequest<'_>) -> Result<Opened, FormatError> {
    match request.task {
        Task::Check { .. } => Err(FormatError::CheckNeedsSolutions),
        task if task.filters() => Err(FormatError::DedupeNeedsRecordLines),
        _ => Ok(request.plain(Arc::new(GridFormat))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_in_both_styles() {
        assert_eq!(
            parse_row(b"0 3 5 4 6 9 2 7 8"),
            Some(([0, 3, 5, 4, 6, 9, 2, 7, 8], true))
        );
        assert_eq!(
            parse_row(b"10300050."),
            Some(([1, 0, 3, 0, 0, 0, 5, 0, 0], false))
        );
        assert_eq!(parse_row(b"0 3 5 4 6 9 2 7  "), None);
        assert_eq!(parse_row(b"0  3 5 4 6 9 2 7 8"), None);
        assert_eq!(parse_row(b"12345678x"), None);
    }

    #[test]
    fn boundary_is_after_the_last_blank_line() {
        assert_eq!(last_boundary(b"123\n\n456\n"), Some(5));
        assert_eq!(last_boundary(b"123\r\n \r\n456"), Some(8));
        assert_eq!(last_boundary(b"123\n456\n"), None);
        assert_eq!(last_boundary(b"\n123"), Some(1));
        assert_eq!(last_boundary(b"123\r\r456\r"), Some(5));
        assert_eq!(last_boundary(b"123\r\n\r\n456\r\n"), Some(7));
        // A title line separates grids as a blank line does; a `#` line does not.
        assert_eq!(last_boundary(b"123\nGrid 02\n456\n"), Some(12));
        assert_eq!(last_boundary(b"123\n # note\n456\n"), None);
    }

    #[test]
    fn titles_start_with_a_word() {
        assert!(is_title(b"Grid 01"));
        assert!(is_title(b" \tPuzzle"));
        assert!(!is_title(b"x23456789"));
        assert!(!is_title(b"1 2 3 4 5 6 7 8 9"));
        assert!(!is_title(b"# Grid 01"));
        assert!(!is_title(b"G"));
    }

    #[test]
    fn grids_start_after_separators() {
        let data = b"Grid 01\n123\n456\nGrid 02\n789\n\n012\n";
        let start = |p| GridFormat.record_start_at_or_after(data, 0, p);
        assert_eq!(start(1), 8);
        assert_eq!(start(9), 24);
        assert_eq!(start(25), 29);
        assert_eq!(start(30), data.len());
    }
}
