//! The grid format: nine lines of nine cells per puzzle (`0` or `.` for blanks), the cells either
//! separated by single spaces (`0 3 5 4 6 9 2 7 8`), not at all (`035469278`), or drawn in boxes
//! as forums and other solvers print them (`4.. .3. ...`, `|4..|.3.|...|`, `4 . . | . 3 . | . . .`,
//! with rules such as `------+------+------` between the bands). Grids are separated by blank
//! lines or title lines (a line that starts with two letters, such as Project Euler's `Grid 01`),
//! which belong to no grid, or by borders (a rule right after the rule that follows a row starts
//! the next grid, as where bordered grids are printed one after another); `#` lines are ignored.
//! A record is a run of lines between those boundaries, so a malformed grid never swallows the
//! next one.
//!
//! Output keeps the style of each input grid: nine lines, spaced if the input was; a boxed grid's
//! answer is its own drawing with every blank filled in. Grids are separated by a blank line. A
//! grid that is not answered gets one status line instead.

use std::sync::Arc;

use super::detect::{OpenRequest, Opened};
use super::text::{self, line_end_before, lines, Lines};
use super::FormatError;
use super::TextFormat;
use crate::grid::{Grid, CELLS};
use crate::records::{answer_records, BlockOut, RecordReader, Renderer};
use crate::task::{Invalid, Outcome, Record, Task};

/// How a grid's rows are written, which its answer keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RowStyle {
    /// `035469278`
    Plain,
    /// `0 3 5 4 6 9 2 7 8`
    Spaced,
    /// Drawn in boxes (`4.. .3. ...`, `|4..|.3.|...|`), or any other spacing of nine cells: the
    /// answer copies the input's lines, rules included, with the blanks filled in.
    Boxed,
}

/// Parses one row: nine cells, unseparated, separated by single spaces, or in boxes. Returns the
/// values (`0` blank) and the row's style.
///
/// A boxed row is nine cells in runs separated by spaces, tabs and `|`: three runs of three
/// (`4.. .3. ...`) or nine single cells (`4 . . | . 3 . | . . .`), a `|` only at the edges or
/// between boxes (one in a gap), as in `|4..|.3.|...|`. Anything else (a letter, a tenth cell,
/// `12 345 6789`) is no row.
pub fn parse_row(text: &[u8]) -> Option<([u8; 9], RowStyle)> {
    let (style, step) = match text.len() {
        9 => (RowStyle::Plain, 1),
        17 if (1..17).step_by(2).all(|i| text[i] == b' ') => (RowStyle::Spaced, 2),
        _ => return parse_boxed_row(text).map(|row| (row, RowStyle::Boxed)),
    };
    let mut row = [0u8; 9];
    for (k, cell) in row.iter_mut().enumerate() {
        *cell = match text[k * step] {
            b @ b'1'..=b'9' => b - b'0',
            b'0' | b'.' => 0,
            _ => return None,
        };
    }
    Some((row, style))
}

/// See [`parse_row`].
fn parse_boxed_row(text: &[u8]) -> Option<[u8; 9]> {
    let mut row = [0u8; 9];
    let (mut cells, mut run, mut runs_of_three, mut single_runs) = (0usize, 0usize, 0, 0);
    let mut bars_in_gap = 0;
    // Closes the run of cells that has just ended.
    let mut close = |run: &mut usize| {
        match *run {
            0 => {}
            1 => single_runs += 1,
            3 => runs_of_three += 1,
            _ => return false,
        }
        *run = 0;
        true
    };
    for &b in text {
        match b {
            b'1'..=b'9' | b'0' | b'.' => {
                if cells == 9 {
                    return None;
                }
                row[cells] = if b == b'.' { 0 } else { b - b'0' };
                cells += 1;
                run += 1;
                bars_in_gap = 0;
            }
            b' ' | b'\t' => {
                if !close(&mut run) {
                    return None;
                }
            }
            b'|' => {
                if !close(&mut run) {
                    return None;
                }
                bars_in_gap += 1;
                if bars_in_gap > 1 || cells % 3 != 0 {
                    return None;
                }
            }
            _ => return None,
        }
    }
    if !close(&mut run) || cells != 9 {
        return None;
    }
    (runs_of_three == 3 || single_runs == 9).then_some(row)
}

/// True for a rule of a boxed grid: a line of `-` or `=` with `+`, `|`, `*`, `:` and spaces
/// (`------+------+------`, `*-----------*`, `|---+---+---|`), and `.` or `'` corners at its
/// ends or between dashes (`.-------.-------.`). Rules are part of the grid they are in and hold
/// no cells; no row is one (a row has no dash).
pub fn is_rule(line: &[u8]) -> bool {
    let line = text::trim(line);
    let dash = |i: usize| matches!(line.get(i), Some(b'-' | b'='));
    line.iter().any(|&b| b == b'-' || b == b'=')
        && line.iter().enumerate().all(|(i, &b)| match b {
            b'-' | b'=' | b'+' | b'|' | b'*' | b':' | b' ' | b'\t' => true,
            b'.' | b'\'' => i == 0 || i + 1 == line.len() || dash(i - 1) && dash(i + 1),
            _ => false,
        })
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

/// What a line is to a grid, as the framing sees it (the reader tells them apart the same way,
/// asking `parse_row` first).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Blank or a title: ends the grid before it, belongs to none.
    Separator,
    /// A `#` line, ignored.
    Comment,
    /// A rule of a boxed grid.
    Rule,
    /// A row, or what should have been one.
    Row,
}

/// The kind of one line (its line end removed).
fn kind(line: &[u8]) -> Kind {
    let line = text::trim_start(line).trim_ascii_end();
    if separates(line) {
        Kind::Separator
    } else if line[0] == b'#' {
        Kind::Comment
    } else if is_rule(line) {
        Kind::Rule
    } else {
        Kind::Row
    }
}

/// Offset of the last grid boundary of `buf` whose lines are whole: just past a separator line
/// (blank or title), or at the start of a rule that follows a row's rule (`#` lines left out):
/// that rule is the next grid's top border, as where bordered grids are printed one after
/// another with no blank line between them.
pub fn last_boundary(buf: &[u8]) -> Option<usize> {
    // The next two lines that are not `#` lines, nearest first: their kinds and starts.
    let mut after = [(Kind::Separator, 0); 2];
    let mut limit = buf.len();
    loop {
        let cut = line_end_before(buf, limit)?;
        // The line this end closes runs from the previous line end to its terminator.
        let crlf = cut >= 2 && buf[cut - 1] == b'\n' && buf[cut - 2] == b'\r';
        let terminator = cut - 1 - usize::from(crlf);
        let start = line_end_before(buf, terminator).unwrap_or(0);
        match kind(&buf[start..terminator]) {
            Kind::Separator => return Some(cut),
            Kind::Comment => {}
            line => {
                if [line, after[0].0, after[1].0] == [Kind::Row, Kind::Rule, Kind::Rule] {
                    return Some(after[1].1);
                }
                after = [(line, start), after[0]];
            }
        }
        if start == 0 {
            return None;
        }
        limit = start;
    }
}

/// Whether a grid starts at `at`, the start of a line of `data` whose records start at
/// `first`: the line before it is a separator, or it is a rule that follows a row's rule.
fn starts_grid(data: &[u8], first: usize, at: usize) -> bool {
    let line_before = |end: usize| {
        let crlf = end >= 2 && data[end - 1] == b'\n' && data[end - 2] == b'\r';
        let terminator = end - 1 - usize::from(crlf);
        let start = line_end_before(data, terminator).map_or(first, |s| s.max(first));
        (start, &data[start..terminator])
    };
    let (mut start, previous) = line_before(at);
    if separates(previous) {
        return true;
    }
    if kind(&data[at..text::line_end(data, at)]) != Kind::Rule {
        return false;
    }
    // The two lines before it that are not `#` lines, nearest first.
    let mut kinds = [kind(previous), Kind::Separator];
    let mut found = usize::from(kinds[0] != Kind::Comment);
    while found < 2 && start > first {
        let (s, line) = line_before(start);
        start = s;
        match kind(line) {
            Kind::Comment => {}
            k => {
                kinds[found] = k;
                found += 1;
            }
        }
    }
    found == 2 && kinds == [Kind::Rule, Kind::Row]
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
        let mut line = text::line_end(data, p - 1);
        while line < data.len() && !starts_grid(data, first, line) {
            line = text::line_end(data, line);
        }
        line
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
            style: RowStyle::Plain,
            drawing: 0..0,
            next: None,
        };
        answer_records(reader, GridRenderer, task, out);
    }

    fn puzzles(&self, block: &[u8], each: &mut dyn FnMut(u64, crate::records::Puzzle)) {
        let reader = GridReader {
            lines: lines(block).enumerate(),
            block,
            line: 0,
            style: RowStyle::Plain,
            drawing: 0..0,
            next: None,
        };
        crate::records::each_puzzle(reader, each);
    }
}

/// Reads the grids of a block: a grid is a run of lines between separators, or ended by a rule
/// after a row's rule (which starts the next one); `#` lines skipped.
struct GridReader<'a> {
    lines: std::iter::Enumerate<Lines<'a>>,
    block: &'a [u8],
    /// The line the last grid is reported on: its first, or its first bad row.
    line: u64,
    /// The last grid's style (its answer keeps it): its first row's, or boxed if any row or a
    /// rule is.
    style: RowStyle,
    /// Where the last grid's lines are in the block (a boxed grid's answer is drawn over them).
    drawing: std::ops::Range<usize>,
    /// A line read that starts the next grid (a top border right after the last grid's bottom).
    next: Option<(usize, &'a [u8])>,
}

/// A grid being read.
struct Pending {
    first_line: u64,
    rows: usize,
    cells: [u8; CELLS],
    style: RowStyle,
    /// Its lines' bytes in the block.
    drawing: std::ops::Range<usize>,
    /// The first problem, and the line it is on.
    error: Option<(u64, Invalid)>,
}

impl Pending {
    /// A grid whose first line is `first_line`, at `drawing` in the block.
    fn new(first_line: u64, drawing: std::ops::Range<usize>, style: RowStyle) -> Self {
        Pending {
            first_line,
            rows: 0,
            cells: [0; CELLS],
            style,
            drawing,
            error: None,
        }
    }
}

impl RecordReader for GridReader<'_> {
    fn next_record(&mut self) -> Option<Record<'_>> {
        // A top border that ended the last grid starts this one.
        let mut pending = self.next.take().map(|(i, raw)| {
            let start = raw.as_ptr() as usize - self.block.as_ptr() as usize;
            Pending::new(i as u64 + 1, start..start + raw.len(), RowStyle::Boxed)
        });
        // 1 after a row, 2 after a row and a rule: a rule then starts the next grid (as
        // `last_boundary` and `starts_grid` cut).
        let mut ending = 0u8;
        for (i, raw) in self.lines.by_ref() {
            let line_no = i as u64 + 1;
            let start = raw.as_ptr() as usize - self.block.as_ptr() as usize;
            // Whitespace and byte-order marks, as every text format skips them.
            let line = text::trim_start(raw).trim_ascii_end();
            if separates(line) {
                if pending.is_some() {
                    break;
                }
                continue;
            }
            if line[0] == b'#' {
                continue;
            }
            let end = start + raw.len();
            let p = pending.get_or_insert(Pending::new(line_no, start..end, RowStyle::Plain));
            // A rule holds no cell, so no row is one (asked only of what is no row).
            let row = parse_row(line);
            if row.is_none() && is_rule(line) {
                if ending == 2 {
                    self.next = Some((i, raw));
                    break;
                }
                ending = if ending == 1 { 2 } else { 0 };
                p.drawing.end = end;
                p.style = RowStyle::Boxed;
                continue;
            }
            ending = 1;
            p.drawing.end = end;
            p.rows += 1;
            if p.rows > 9 || p.error.is_some() {
                continue;
            }
            match row {
                Some((row, style)) => {
                    if p.rows == 1 || style == RowStyle::Boxed {
                        p.style = p.style.max(style);
                    }
                    p.cells[(p.rows - 1) * 9..p.rows * 9].copy_from_slice(&row);
                }
                None => p.error = Some((line_no, Invalid::GridRow(p.rows))),
            }
        }
        let p = pending?;
        self.style = p.style;
        self.drawing = p.drawing;
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
        match (outcome, reader.style) {
            (Outcome::Solved(s), RowStyle::Boxed) => {
                push_drawing(out, &reader.block[reader.drawing.clone()], s)
            }
            (Outcome::Solved(s), style) => push_grid(out, s, style == RowStyle::Spaced),
            (other, _) => other.write_line(out),
        }
    }
}

/// Appends a boxed grid's lines with its rows' cells replaced by `grid`'s, in order: rules and
/// separators as they were, each line's indent kept (its spaces and tabs) and trailing
/// whitespace dropped; `#` lines left out.
fn push_drawing(bytes: &mut Vec<u8>, drawing: &[u8], grid: &Grid) {
    let mut values = grid.cells().iter();
    for line in lines(drawing) {
        let body = text::trim(line);
        if matches!(body.first(), None | Some(b'#')) {
            continue;
        }
        let indent = &line[..line.len() - text::trim_start(line).len()];
        bytes.extend(indent.iter().filter(|&&b| b == b' ' || b == b'\t'));
        if is_rule(body) {
            bytes.extend_from_slice(body);
            bytes.push(b'\n');
            continue;
        }
        for &b in body {
            match b {
                b'1'..=b'9' | b'0' | b'.' => {
                    bytes.push(b'0' + values.next().expect("a solved grid has 81 cells"))
                }
                b => bytes.push(b),
            }
        }
        bytes.push(b'\n');
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
    fn rows_parse_in_every_style() {
        use RowStyle::*;
        let row = [0, 3, 5, 4, 6, 9, 2, 7, 8];
        assert_eq!(parse_row(b"0 3 5 4 6 9 2 7 8"), Some((row, Spaced)));
        assert_eq!(parse_row(b"035469278"), Some((row, Plain)));
        assert_eq!(
            parse_row(b"10300050."),
            Some(([1, 0, 3, 0, 0, 0, 5, 0, 0], Plain))
        );
        for boxed in [
            &b"035 469 278"[..],
            b"|035|469|278|",
            b"0 3 5 | 4 6 9 | 2 7 8",
            b"| 0 3 5 | 4 6 9 | 2 7 8 |",
            b"035\t469\t278",
            b"0  3 5 4 6 9 2 7 8",
        ] {
            let text = String::from_utf8_lossy(boxed);
            assert_eq!(parse_row(boxed), Some((row, Boxed)), "{text}");
        }
        assert_eq!(
            parse_row(b".3. |4.. |...").map(|(row, _)| row),
            Some([0, 3, 0, 4, 0, 0, 0, 0, 0])
        );
        for bad in [
            &b"0 3 5 4 6 9 2 7  "[..],
            b"12345678x",
            b"12 345 6789",
            b"035469|278",
            b"035 469 27",
            b"035 469 278 1",
            b"03|5 469 278",
            b"035 || 469 278",
            b"035 469 27x",
            b"0 3 5 469 2 7 8",
            b"|0 3 5|4 6 9|2 7 8 9|",
            b"",
        ] {
            let text = String::from_utf8_lossy(bad);
            assert_eq!(parse_row(bad), None, "{text}");
        }
    }

    #[test]
    fn rules_are_lines_of_dashes() {
        for rule in [
            &b"------+-------+------"[..],
            b"*-----------*",
            b"|---+---+---|",
            b" ======:=====:===== ",
            b"+-------+-------+-------+",
            b".-------.-------.-------.",
            b"'-------'-------'-------'",
            b":---.---:",
        ] {
            assert!(is_rule(rule), "{}", String::from_utf8_lossy(rule));
        }
        for other in [
            &b"+ + +"[..],
            b"",
            b"|   |",
            b"--- x ---",
            b"-1-",
            b"...-...-...",
            b"-..-",
            b"- . -",
        ] {
            assert!(!is_rule(other), "{}", String::from_utf8_lossy(other));
        }
    }

    /// Answers every grid of `text` (solve) as the grid format writes them.
    fn answer(text: &str) -> String {
        let mut out = BlockOut::new(10);
        GridFormat.answer_block(text.as_bytes(), Task::Solve { lexmin: false }, &mut out);
        String::from_utf8(out.bytes).unwrap()
    }

    #[test]
    fn a_boxed_grid_is_answered_in_its_own_drawing() {
        let drawing = concat!(
            "Grid 01\n",
            "*-----------*\n",
            "|..3|.2.|6..|\n",
            "|9..|3.5|..1|\n",
            "|..1|8.6|4..|\n",
            ".---.---.---.\n",
            "|..8|1.2|9..|\n",
            "# a note\n",
            "|7..|...|..8|\r\n",
            "|..6|7.8|2..|   \n",
            "|---+---+---|\n",
            "|..2|6.9|5..|\n",
            "|8..|2.3|..9|\n",
            "|..5|.1.|3..|\n",
            "*-----------*\n",
            "\n",
            "  . . 3 | . 2 . | 6 . .\n",
            "  9 . . | 3 . 5 | . . 1\n",
            "  . . 1 | 8 . 6 | 4 . .\n",
            "  ------+-------+------\n",
            "  . . 8 | 1 . 2 | 9 . .\n",
            "  7 . . | . . . | . . 8\n",
            "  . . 6 | 7 . 8 | 2 . .\n",
            "  ------+-------+------\n",
            "  . . 2 | 6 . 9 | 5 . .\n",
            "  8 . . | 2 . 3 | . . 9\n",
            "  . . 5 | . 1 . | 3 . .\n",
        );
        let expected = concat!(
            "*-----------*\n",
            "|483|921|657|\n",
            "|967|345|821|\n",
            "|251|876|493|\n",
            ".---.---.---.\n",
            "|548|132|976|\n",
            "|729|564|138|\n",
            "|136|798|245|\n",
            "|---+---+---|\n",
            "|372|689|514|\n",
            "|814|253|769|\n",
            "|695|417|382|\n",
            "*-----------*\n",
            "\n",
            "  4 8 3 | 9 2 1 | 6 5 7\n",
            "  9 6 7 | 3 4 5 | 8 2 1\n",
            "  2 5 1 | 8 7 6 | 4 9 3\n",
            "  ------+-------+------\n",
            "  5 4 8 | 1 3 2 | 9 7 6\n",
            "  7 2 9 | 5 6 4 | 1 3 8\n",
            "  1 3 6 | 7 9 8 | 2 4 5\n",
            "  ------+-------+------\n",
            "  3 7 2 | 6 8 9 | 5 1 4\n",
            "  8 1 4 | 2 5 3 | 7 6 9\n",
            "  6 9 5 | 4 1 7 | 3 8 2\n",
        );
        assert_eq!(answer(drawing), expected);
    }

    /// The example's grid drawn with a top and a bottom border (HoDoKu's corners), and its
    /// answer.
    fn bordered(crlf: bool) -> (String, String) {
        let rows = [
            "..3.2.6..",
            "9..3.5..1",
            "..18.64..",
            "..81.29..",
            "7.......8",
            "..67.82..",
            "..26.95..",
            "8..2.3..9",
            "..5.1.3..",
        ];
        let answer = [
            "483921657",
            "967345821",
            "251876493",
            "548132976",
            "729564138",
            "136798245",
            "372689514",
            "814253769",
            "695417382",
        ];
        let end = if crlf { "\r\n" } else { "\n" };
        let draw = |rows: [&str; 9]| {
            let mut out = format!(".-------.-------.-------.{end}");
            for (i, row) in rows.iter().enumerate() {
                let b = row.as_bytes();
                let cells = |k: usize| {
                    format!("{} {} {}", b[k] as char, b[k + 1] as char, b[k + 2] as char)
                };
                out += &format!("| {} | {} | {} |{end}", cells(0), cells(3), cells(6));
                if i == 2 || i == 5 {
                    out += &format!(":-------+-------+-------:{end}");
                }
            }
            out + &format!("'-------'-------'-------'{end}")
        };
        (draw(rows), draw(answer).replace("\r\n", "\n"))
    }

    #[test]
    fn bordered_grids_back_to_back_are_one_record_each() {
        // A bottom border and the next grid's top border with no blank line between them (as
        // `cat` joins exported grids): the second rule starts the next grid. A `#` line between
        // them changes nothing; a grid short of a row is answered alone; a double rule before any
        // row is no boundary.
        let (grid, solved) = bordered(false);
        let (grid_crlf, _) = bordered(true);
        let short: String = grid
            .lines()
            .filter(|l| !l.starts_with("| . . 8"))
            .map(|l| format!("{l}\n"))
            .collect();
        let text = format!("=======\n{grid}{grid_crlf}# note\n{short}{grid}{grid}");
        let expected = format!(
            "=======\n{solved}\n{solved}\ninvalid: a grid needs 9 rows, this one has 8\n\n\
             {solved}\n{solved}"
        );
        // The first grid has two rules before its first row: both are its own.
        let whole = answer(&text);
        assert_eq!(whole, expected);
        // The framing agrees with the reader at every cut.
        let data = text.as_bytes();
        let mut starts = Vec::new();
        for p in 1..data.len() {
            let cut = GridFormat.record_start_at_or_after(data, 0, p);
            starts.push(cut);
            let joined = [answer(&text[..cut]), answer(&text[cut..])]
                .into_iter()
                .filter(|a| !a.is_empty())
                .collect::<Vec<_>>()
                .join("\n");
            assert_eq!(joined, whole, "cut at {cut}");
            if let Some(b) = last_boundary(&data[..p]) {
                assert!(
                    starts.contains(&b) || b == 0,
                    "boundary {b} of {p} bytes is no start"
                );
            }
        }
        starts.dedup();
        assert_eq!(
            starts.len(),
            5,
            "four grid starts after the first, and the end: {starts:?}"
        );
    }

    #[test]
    fn grids_with_nothing_between_them_are_one_invalid_record_that_says_so() {
        let grid = "003020600\n900305001\n001806400\n008102900\n700000008\n006708200\n\
                    002609500\n800203009\n005010300\n";
        assert_eq!(
            answer(&format!("{grid}{grid}")),
            "invalid: a grid needs 9 rows, this one has 18 (grids need a blank or title line \
             between them)\n"
        );
        assert_eq!(
            answer(&grid[10..]),
            "invalid: a grid needs 9 rows, this one has 8\n"
        );
    }

    #[test]
    fn a_grid_of_rules_alone_or_with_a_bad_row_is_invalid() {
        let text = "-----+-----\n\n003 020 600\n900 305 0x1\n";
        let mut out = BlockOut::new(10);
        GridFormat.answer_block(text.as_bytes(), Task::Solve { lexmin: false }, &mut out);
        assert_eq!(
            String::from_utf8(out.bytes).unwrap(),
            "invalid: a grid needs 9 rows, this one has 0\n\ninvalid: row 2 is not nine cells \
             (digits, 0 or . for blanks), unseparated, separated by single spaces, or in boxes\n"
        );
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
        // A rule after a row's rule starts the next grid, once its line has ended.
        assert_eq!(last_boundary(b"123\n---\n---\n456\n"), Some(8));
        assert_eq!(last_boundary(b"123\n---\n# x\n---\n"), Some(12));
        assert_eq!(last_boundary(b"123\n---\n---"), None);
        assert_eq!(last_boundary(b"---\n---\n456\n"), None);
        assert_eq!(last_boundary(b"123\n---\n456\n---\n"), None);
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
