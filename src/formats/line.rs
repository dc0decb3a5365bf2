//! The line format: one puzzle per line, the first 81 characters (`1`-`9`, blanks `0` or `.`),
//! optionally followed by fields separated by whitespace, `,` or `;`. For `check`, the second field
//! is the solution to verify. Output: one line per record.

use std::sync::Arc;

use super::detect::{OpenRequest, Opened};
use super::text::{self, is_skipped, lines, Lines};
use super::FormatError;
use super::TextFormat;
use crate::grid::{Grid, ParseError, CELLS};
use crate::records::{answer_records, BlockOut, RecordReader, Renderer};
use crate::task::{Outcome, Record, Task};

/// The line format (no state: every line stands alone).
pub(crate) struct LineFormat;

impl TextFormat for LineFormat {
    fn name(&self) -> &'static str {
        "line"
    }

    fn last_boundary(&self, buf: &[u8]) -> Option<usize> {
        text::last_line_end(buf)
    }

    fn record_start_at_or_after(&self, data: &[u8], _first: usize, p: usize) -> usize {
        // The line that holds byte p - 1 ends the previous shard's records.
        text::line_end(data, p - 1)
    }

    fn answer_block(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        let reader = LineReader {
            lines: lines(block),
            line: b"",
            line_no: 0,
            unterminated: block.last().is_some_and(|&b| b != b'\n' && b != b'\r'),
            needs_solution: task.needs_solution(),
        };
        answer_records(reader, LineRenderer, task, out);
    }

    fn puzzles(&self, block: &[u8], each: &mut dyn FnMut(u64, crate::records::Puzzle)) {
        let reader = LineReader {
            lines: lines(block),
            line: b"",
            line_no: 0,
            unterminated: false,
            needs_solution: false,
        };
        crate::records::each_puzzle(reader, each);
    }
}

/// Reads the records of a block of lines.
struct LineReader<'a> {
    lines: Lines<'a>,
    /// The line of the last record.
    line: &'a [u8],
    line_no: u64,
    /// The block's last line has no line end.
    unterminated: bool,
    needs_solution: bool,
}

impl RecordReader for LineReader<'_> {
    // Inlined into the per-record loop, with the line-by-line path kept out of line: a bare
    // puzzle line then costs no call, and its grid is parsed where the loop answers it.
    #[inline(always)]
    fn next_bare_puzzle(&mut self) -> Option<Grid> {
        let (line, grid) = self.lines.next_bare_puzzle()?;
        self.line_no += 1;
        self.line = line;
        Some(grid)
    }

    // Bare lines too, for the readers of records alone (`bench`, `grade --explain`).
    fn next_record(&mut self) -> Option<Record<'_>> {
        if let Some(grid) = self.next_bare_puzzle() {
            return Some(Record::new(Ok(grid)));
        }
        self.next_line_record()
    }

    fn line(&mut self) -> u64 {
        self.line_no
    }

    fn as_read(&mut self) -> &[u8] {
        self.line
    }

    fn line_ends(&mut self) -> u64 {
        // Every line has one but a last line without.
        self.lines.by_ref().for_each(|_| self.line_no += 1);
        self.line_no - u64::from(self.unterminated)
    }
}

impl LineReader<'_> {
    /// The next record read line by line: any line that is not a bare puzzle.
    #[inline(never)]
    fn next_line_record(&mut self) -> Option<Record<'_>> {
        loop {
            let line = self.lines.next()?;
            self.line_no += 1;
            if !is_skipped(line) {
                self.line = line;
                return Some(record(line, self.needs_solution));
            }
        }
    }
}

/// Writes each answer as one line: the value if there is one, else the status.
struct LineRenderer;

impl<R: ?Sized> Renderer<R> for LineRenderer {
    fn render(&mut self, _: &mut R, outcome: &Outcome, out: &mut Vec<u8>) {
        outcome.write_line(out);
    }
}

/// True for a byte that ends the puzzle field.
pub fn is_separator(b: u8) -> bool {
    text::is_space(b) || b == b',' || b == b';'
}

/// Splits off the first field of `text` (up to a separator).
pub fn split_field(text: &[u8]) -> (&[u8], &[u8]) {
    if text.len() >= CELLS && (text.len() == CELLS || is_separator(text[CELLS])) {
        return text.split_at(CELLS);
    }
    let end = text
        .iter()
        .position(|&b| is_separator(b))
        .unwrap_or(text.len());
    text.split_at(end)
}

/// The puzzle of one line (its line end removed), by the rules above; `None` for a line that is
/// not a record (blank or `#`).
pub fn parse_line(line: &[u8]) -> Option<Result<Grid, ParseError>> {
    (!is_skipped(line)).then(|| Grid::parse(split_field(text::trim_start(line)).0))
}

/// The records of a line-format text with their 1-based line numbers: the one reader of puzzle
/// lines for `bench`, the benchmarks, the examples and the tests.
pub fn puzzles(text: &[u8]) -> impl Iterator<Item = (usize, Result<Grid, ParseError>)> + '_ {
    lines(text)
        .enumerate()
        .filter_map(|(i, line)| Some((i + 1, parse_line(line)?)))
}

/// The record of one line (not blank, not a comment, no line end).
fn record(line: &[u8], needs_solution: bool) -> Record<'_> {
    let (field, rest) = split_field(text::trim_start(line));
    let record = Record::new(Grid::parse(field).map_err(Into::into));
    if !needs_solution || record.puzzle.is_err() {
        return record;
    }
    let rest = &rest[rest.iter().take_while(|&&b| is_separator(b)).count()..];
    record.with_solution(Some(split_field(rest).0).filter(|s| !s.is_empty()))
}

/// The end of a header row at the start of `body` (after the blank and `#` lines before it):
/// a first record line whose fields, separated as a record's are, all look like column names
/// (a letter, then letters, digits, `_`, `-` or `.`), the first one a usual name of the puzzle
/// column (`puzzle solution`, `quizzes solutions rating`). Such a line cannot be a puzzle, nor a
/// damaged one. `complete`: `body` runs to the end of the input, so a last line without a line
/// end is whole.
pub(crate) fn header_end(body: &[u8], complete: bool) -> Option<usize> {
    let start = super::detect::header_start(body);
    let end = text::line_end(body, start);
    let line = lines(&body[start..end]).next().unwrap_or_default();
    if line.len() == end - start && !complete {
        return None;
    }
    let mut fields = text::trim_start(line)
        .split(|&b| is_separator(b))
        .filter(|f| !f.is_empty());
    let first = fields.next()?;
    let is_name = |f: &[u8]| {
        f[0].is_ascii_alphabetic()
            && f.iter()
                .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    };
    let named = super::PUZZLE_NAMES
        .iter()
        .any(|name| first.eq_ignore_ascii_case(name.as_bytes()));
    (named && fields.all(is_name)).then_some(end)
}

/// The header row that starts a line-format input, if it has one (a first record line of
/// column names, the first a puzzle column's, such as `puzzle solution`): its line (counting
/// from 0) and the offset in `prefix` just past it. `prefix` is the input's start, `complete`
/// when it is the whole input. For front ends that read the lines themselves: the engine skips
/// that line, and so should they.
pub fn header_line(prefix: &[u8], complete: bool) -> Option<(u64, usize)> {
    let body = prefix.strip_prefix(text::BOM).unwrap_or(prefix);
    let end = header_end(body, complete)?;
    let line = text::count_line_ends(&body[..super::detect::header_start(body)]);
    Some((line, prefix.len() - body.len() + end))
}

/// Where the first record line of a line input's start begins: past a byte-order mark, the
/// blank and `#` lines, and a whole header row with those after it.
pub(crate) fn first_record_start(prefix: &[u8]) -> usize {
    let body = prefix.strip_prefix(text::BOM).unwrap_or(prefix);
    let mut start = prefix.len() - body.len() + super::detect::header_start(body);
    if let Some(end) = header_end(&prefix[start..], false) {
        start += end;
        start += super::detect::header_start(&prefix[start..]);
    }
    start
}

/// Whether the first record of a line input's start, past a header row, has a puzzle that
/// reads (what [`super::decided`] settles `--format line` on).
pub(crate) fn first_puzzle_reads(prefix: &[u8]) -> bool {
    lines(&prefix[first_record_start(prefix)..])
        .next()
        .is_some_and(|line| record(line, false).puzzle.is_ok())
}

/// Opens an input in this format, past a header row if it starts with one ([`header_end`]):
/// the header is not a record (`dedupe`, whose output is the input's own lines, copies it).
/// `check` is refused up front when the first record whose puzzle reads has nothing after it:
/// a file of bare puzzles would give one `invalid` per record.
pub(crate) fn open(request: &OpenRequest<'_>) -> Result<Opened, FormatError> {
    let body = request.body();
    let mut opened = request.plain(Arc::new(LineFormat));
    let records = match header_end(body, request.prefix.len() < super::detect::PEEK) {
        Some(end) => {
            opened.skip += end;
            opened.first_line = text::count_line_ends(&body[..end]);
            if matches!(request.task, Task::Dedupe { .. }) {
                let start = super::detect::header_start(body);
                opened.header = lines(&body[start..end]).next().unwrap_or_default().to_vec();
                opened.header.push(b'\n');
            }
            &body[end..]
        }
        None => body,
    };
    if request.task.needs_solution() {
        // The first record whose puzzle reads decides (damaged records before it say nothing
        // of the others), among the whole lines: one the prefix cuts short may have its
        // solution past the cut.
        let whole = match request.prefix.len() < super::detect::PEEK {
            true => records,
            // A line whose CR ends the prefix is whole (an LF after it adds nothing to it).
            false => &records[..memchr::memrchr2(b'\n', b'\r', records).map_or(0, |i| i + 1)],
        };
        let first = lines(whole)
            .filter(|line| !is_skipped(line))
            .map(|line| record(line, true))
            .find(|record| record.puzzle.is_ok());
        if first.is_some_and(|record| record.solution.is_none()) {
            return Err(FormatError::NoSolutions);
        }
    }
    Ok(opened)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str, task: Task) -> (String, BlockOut) {
        let mut out = BlockOut::new(10);
        LineFormat.answer_block(input.as_bytes(), task, &mut out);
        (
            String::from_utf8(std::mem::take(&mut out.bytes)).unwrap(),
            out,
        )
    }

    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";

    #[test]
    fn a_header_row_is_column_names_the_first_a_puzzle_columns() {
        for (text, end) in [
            ("puzzle solution\nP", Some(16)),
            (
                "# c\n\n\u{feff} Quizzes\tsolutions;se.rating-2\r\nP",
                Some(40),
            ),
            ("sudoku\r", Some(7)),
            ("sudoku", Some(6)),
            ("id puzzle\nP", None),
            ("puzzle 2.5\nP", None),
            ("puzzle:\nP", None),
            ("puzzles of 2026\nP", None),
        ] {
            assert_eq!(header_end(text.as_bytes(), true), end, "{text:?}");
        }
        // A last line without its end may go on, unless the input is whole.
        assert_eq!(header_end(b"sudoku", false), None);
        assert_eq!(header_end(b"sudoku so", false), None);
        assert_eq!(
            header_line("\u{feff}#\n\u{feff}\npuzzle\nP".as_bytes(), false),
            Some((2, 16))
        );
        assert_eq!(header_line(format!("{PUZZLE}\n").as_bytes(), true), None);
    }

    #[test]
    fn solves_with_trailing_fields_crlf_comments() {
        let input = format!("# c\n\n{PUZZLE} rating 3\r\n{PUZZLE};x\n{PUZZLE}");
        let (text, out) = run(&input, Task::Solve { lexmin: false });
        assert_eq!(text, format!("{SOLUTION}\n{SOLUTION}\n{SOLUTION}\n"));
        assert_eq!(out.tally.records, 3);
        assert_eq!(out.tally.solved, 3);
        assert_eq!(out.lines, 4);
    }

    #[test]
    fn a_lone_cr_ends_a_line() {
        let input = format!("{PUZZLE}\r{PUZZLE}\rbad\r\n{PUZZLE}");
        let (text, out) = run(&input, Task::Solve { lexmin: false });
        assert_eq!(
            text,
            format!("{SOLUTION}\n{SOLUTION}\ninvalid: expected 81 cells, found 3\n{SOLUTION}\n")
        );
        assert_eq!(out.messages[0].line, 3);
        assert_eq!(out.lines, 3);
    }

    #[test]
    fn bad_records_name_their_lines() {
        let input = format!("{PUZZLE}\nhello\n{PUZZLE}x\n\n# end\n");
        let (text, out) = run(&input, Task::Solve { lexmin: false });
        assert_eq!(
            text,
            format!(
                "{SOLUTION}\ninvalid: expected 81 cells, found 5\ninvalid: expected 81 cells, found 82\n"
            )
        );
        assert_eq!(
            out.messages.iter().map(|n| n.line).collect::<Vec<_>>(),
            [2, 3]
        );
        assert_eq!(out.tally.invalid, 2);
        assert_eq!(out.lines, 5, "lines after the last record count too");
    }

    #[test]
    fn check_reports_wrong_solutions() {
        let mut bad = SOLUTION.to_string();
        bad.replace_range(0..2, "35");
        let input = format!("{PUZZLE},{SOLUTION}\n{PUZZLE},{bad}\n{PUZZLE}\n");
        let (text, out) = run(&input, Task::Check { unique: true });
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "ok");
        assert!(lines[1].starts_with("wrong: "), "{}", lines[1]);
        assert_eq!(lines[2], "invalid: no solution after the puzzle");
        assert_eq!(
            (out.tally.solved, out.tally.wrong, out.tally.invalid),
            (1, 1, 1)
        );
    }

    #[test]
    fn filters_copy_records_as_they_came() {
        // A bare puzzle line (read without a scan for its end) is kept as it came too.
        let input = format!("# c\n{PUZZLE} x\r\n{PUZZLE}\r\n{PUZZLE}");
        let (text, out) = run(&input, Task::Dedupe { exact: true });
        assert_eq!(text, format!("{PUZZLE} x\n{PUZZLE}\n{PUZZLE}\n"));
        assert_eq!(out.kept.len(), 3);
        assert_eq!(out.kept[0].end, 84);
        assert_eq!(out.kept[1].end, 166);
        assert_eq!(out.lines, 3);
    }

    #[test]
    fn puzzles_skip_comments_and_number_lines() {
        let text = format!("# c\r\n{PUZZLE}\r\n\nshort\r{PUZZLE} 3");
        let got: Vec<(usize, bool)> = puzzles(text.as_bytes())
            .map(|(line, p)| (line, p.is_ok()))
            .collect();
        assert_eq!(got, [(2, true), (4, false), (5, true)]);
    }
}
