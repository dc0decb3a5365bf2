//! The line format: one puzzle per line, the first 81 characters (`1`-`9`, blanks `0` or `.`),
//! optionally followed by fields separated by whitespace, `,` or `;`. For `check`, the second field
//! is the solution to verify. Output: one line per record.

use super::{answer, is_skipped, strip_cr, tally_answer, verify, Answer, BlockOut, Task, Verified};
use crate::grid::{Grid, ParseError, CELLS};

/// Parses and answers every line of `block`.
pub fn process(block: &[u8], task: Task, out: &mut BlockOut) {
    let mut start = 0;
    let mut line_no = 0u64;
    while start < block.len() {
        let end = match memchr::memchr(b'\n', &block[start..]) {
            Some(i) => {
                out.lines += 1;
                start + i
            }
            None => block.len(),
        };
        line_no += 1;
        let line = strip_cr(&block[start..end]);
        if !is_skipped(line) {
            record(line, line_no, task, out);
        }
        start = end + 1;
    }
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

/// The puzzle of one line (LF already removed), by the rules above; `None` for a line that is not
/// a record (blank or `#`). Used by `bench` too, so every command reads lines alike.
pub fn parse_line(line: &[u8]) -> Option<Result<Grid, ParseError>> {
    let line = strip_cr(line);
    (!is_skipped(line)).then(|| Grid::parse(split_field(line.trim_ascii_start()).0))
}

fn record(line: &[u8], line_no: u64, task: Task, out: &mut BlockOut) {
    out.tally.records += 1;
    let body = line.trim_ascii_start();
    let (field, rest) = split_field(body);
    let puzzle = match Grid::parse(field) {
        Ok(p) => p,
        Err(e) => return invalid(out, line_no, &e.to_string()),
    };
    if let Task::Check { unique } = task {
        let rest = &rest[rest.iter().take_while(|&&b| is_separator(b)).count()..];
        let (solution, _) = split_field(rest);
        if solution.is_empty() {
            return invalid(out, line_no, "no solution after the puzzle");
        }
        return match verify(&puzzle, solution, unique) {
            Ok(Verified::Ok) => {
                out.tally.solved += 1;
                out.bytes.extend_from_slice(b"ok\n");
            }
            Ok(Verified::Wrong(reason)) => {
                out.tally.wrong += 1;
                push_status(&mut out.bytes, "wrong: ", &reason);
                out.note(line_no, || format!("wrong: {reason}"));
            }
            Err(reason) => invalid(out, line_no, &reason),
        };
    }
    match answer(task, &puzzle) {
        Ok(a) => {
            tally_answer(&mut out.tally, &a);
            match a {
                Answer::Solution(s) => super::push_digits(&mut out.bytes, &s),
                Answer::Unsolvable => {
                    out.bytes.extend_from_slice(match task {
                        Task::Count { .. } => b"0",
                        _ => b"unsolvable",
                    });
                    out.note(line_no, || "unsolvable".into());
                }
                Answer::Count { found, at_limit } => {
                    super::push_count(&mut out.bytes, found, at_limit)
                }
            }
            out.bytes.push(b'\n');
        }
        Err(reason) => invalid(out, line_no, &reason),
    }
}

fn invalid(out: &mut BlockOut, line_no: u64, reason: &str) {
    out.tally.invalid += 1;
    push_status(&mut out.bytes, "invalid: ", reason);
    out.note(line_no, || format!("invalid: {reason}"));
}

/// Appends `prefix`, then `reason` on one line (control characters shown as `?`), then `\n`.
pub fn push_status(bytes: &mut Vec<u8>, prefix: &str, reason: &str) {
    bytes.extend_from_slice(prefix.as_bytes());
    bytes.extend(
        reason
            .bytes()
            .map(|b| if b.is_ascii_control() { b'?' } else { b }),
    );
    bytes.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: &str, task: Task) -> (String, BlockOut) {
        let mut out = BlockOut {
            note_cap: 10,
            ..Default::default()
        };
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
    fn bad_records_name_their_lines() {
        let input = format!("{PUZZLE}\nhello\n{PUZZLE}x\n");
        let (text, out) = run(&input, Task::Solve { lexmin: false });
        assert_eq!(
            text,
            format!(
                "{SOLUTION}\ninvalid: expected 81 cells, found 5\ninvalid: expected 81 cells, found 82\n"
            )
        );
        assert_eq!(out.notes.iter().map(|n| n.line).collect::<Vec<_>>(), [2, 3]);
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
}
