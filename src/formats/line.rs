//! The line format: one puzzle per line, the first 81 characters (`1`-`9`, blanks `0` or `.`),
//! optionally followed by fields separated by whitespace, `,` or `;`. For `check`, the second field
//! is the solution to verify. Output: one line per record.

use super::answer::{answer, Outcome, Task};
use super::block::{is_skipped, lines, BlockOut};
use crate::grid::{Grid, ParseError, CELLS};

/// Parses and answers every line of `block`.
pub fn process(block: &[u8], task: Task, out: &mut BlockOut) {
    let mut line_no = 0u64;
    for line in lines(block) {
        line_no += 1;
        if !is_skipped(line) {
            let outcome = record(line, task);
            out.count(&outcome, || line_no);
            if task.filters() {
                out.bytes.extend_from_slice(line);
                out.bytes.push(b'\n');
                out.keep(&outcome);
            } else {
                outcome.write_line(&mut out.bytes);
            }
        }
    }
    // Line ends, counted on the way: every line has one but a last line without.
    let unterminated = block.last().is_some_and(|&b| b != b'\n' && b != b'\r');
    out.lines = line_no - u64::from(unterminated);
}

/// True for a byte that ends the puzzle field.
pub fn is_separator(b: u8) -> bool {
    b.is_ascii_whitespace() || b == b',' || b == b';'
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
    (!is_skipped(line)).then(|| Grid::parse(split_field(line.trim_ascii_start()).0))
}

/// The records of a line-format text with their 1-based line numbers: the one reader of puzzle
/// lines for `bench`, the benchmarks, the examples and the tests.
pub fn puzzles(text: &[u8]) -> impl Iterator<Item = (usize, Result<Grid, ParseError>)> + '_ {
    lines(text)
        .enumerate()
        .filter_map(|(i, line)| Some((i + 1, parse_line(line)?)))
}

/// The outcome of one record line (not blank, not a comment, no line end).
fn record(line: &[u8], task: Task) -> Outcome {
    let (field, rest) = split_field(line.trim_ascii_start());
    let puzzle = match Grid::parse(field) {
        Ok(p) => p,
        Err(e) => return Outcome::Invalid(e.into()),
    };
    let solution = match task {
        Task::Check { .. } => {
            let rest = &rest[rest.iter().take_while(|&&b| is_separator(b)).count()..];
            Some(split_field(rest).0).filter(|s| !s.is_empty())
        }
        _ => None,
    };
    answer(task, &puzzle, solution)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str, task: Task) -> (String, BlockOut) {
        let mut out = BlockOut::new(10);
        process(input.as_bytes(), task, &mut out);
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
        let input = format!("{PUZZLE}\nhello\n{PUZZLE}x\n");
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
    fn puzzles_skip_comments_and_number_lines() {
        let text = format!("# c\r\n{PUZZLE}\r\n\nshort\r{PUZZLE} 3");
        let got: Vec<(usize, bool)> = puzzles(text.as_bytes())
            .map(|(line, p)| (line, p.is_ok()))
            .collect();
        assert_eq!(got, [(2, true), (4, false), (5, true)]);
    }
}
