//! Opening an input: the format is decided, a CSV header read, and every rule about which task
//! suits which format is checked here, once, before any record is read.

use super::block::{count_line_ends, is_skipped, line_end, lines};
use super::{csv, grid, Format, Task};

/// Bytes of the input's start that [`open`] looks at to decide the format and read a CSV header.
pub const PEEK: usize = 64 << 10;

/// The format asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FormatChoice {
    /// Detect from the first record (see [`detect`]).
    #[default]
    Auto,
    Line,
    Grid,
    Csv,
}

/// Why an input cannot be read in the chosen format with the chosen task.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("check needs puzzles that carry solutions (line or CSV format), not grids")]
    CheckNeedsSolutions,
    #[error("the CSV header row is longer than 64 KiB")]
    HeaderTooLong,
    #[error("the CSV input has no header row")]
    NoHeader,
    #[error("cannot read the CSV header: {0}")]
    UnreadableHeader(String),
    #[error("no column named {name:?} in the CSV header {names:?}")]
    NoSuchColumn { name: String, names: Vec<String> },
    #[error(
        "no puzzle column in the CSV header {names:?} (looked for {:?}); name it with --column",
        csv::PUZZLE_NAMES
    )]
    NoPuzzleColumn { names: Vec<String> },
    #[error(
        "check needs a solution column; the CSV header {names:?} has none of {:?}",
        csv::SOLUTION_NAMES
    )]
    NoSolutionColumn { names: Vec<String> },
}

/// An input opened for a task: its format and where its records start.
#[derive(Debug, Clone)]
pub struct Opened {
    pub format: Format,
    /// Bytes the output starts with (the CSV output header row).
    pub header: Vec<u8>,
    /// Input bytes before the first record (the CSV header row and what precedes it).
    pub skip: usize,
    /// Input lines before the first record, so messages give whole-input line numbers.
    pub first_line: u64,
}

/// Opens an input whose first bytes are `prefix` (at most [`PEEK`] bytes; fewer only when that is
/// the whole input) for `task` in the format `choice`; `column` names the CSV puzzle column.
pub fn open(
    prefix: &[u8],
    choice: FormatChoice,
    column: Option<&str>,
    task: Task,
) -> Result<Opened, FormatError> {
    let plain = |format| Opened {
        format,
        header: Vec::new(),
        skip: 0,
        first_line: 0,
    };
    let choice = match choice {
        FormatChoice::Auto => detect(prefix, column),
        chosen => chosen,
    };
    match choice {
        FormatChoice::Auto | FormatChoice::Line => Ok(plain(Format::Line)),
        FormatChoice::Grid if matches!(task, Task::Check { .. }) => {
            Err(FormatError::CheckNeedsSolutions)
        }
        FormatChoice::Grid => Ok(plain(Format::Grid)),
        // An empty input has no header: there is nothing to answer, in any format.
        FormatChoice::Csv if prefix.is_empty() => Ok(plain(Format::Line)),
        FormatChoice::Csv => {
            // Blank and `#` lines before the header are skipped, like everywhere else.
            let mut start = 0;
            while start < prefix.len() {
                let end = line_end(prefix, start);
                if !is_skipped(&prefix[start..end]) || end == prefix.len() {
                    break;
                }
                start = end;
            }
            let end = match csv::first_row_end(&prefix[start..]) {
                Some(end) => start + end,
                None if prefix.len() < PEEK => prefix.len(),
                None => return Err(FormatError::HeaderTooLong),
            };
            let layout = csv::Layout::from_header(&prefix[start..end], column, task)?;
            Ok(Opened {
                header: layout.header().to_vec(),
                skip: end,
                first_line: count_line_ends(&prefix[..end]),
                format: Format::Csv(layout),
            })
        }
    }
}

/// Guesses the format from the start of the input: the first record line decides.
///
/// - a line with a comma and a field named like a puzzle column (`puzzle`, `quizzes`, ..., or
///   `column`, any case, quotes ignored): CSV with a header;
/// - a line of 9 cells, or 9 cells separated by single spaces: grid;
/// - anything else: line (so a line file that starts with garbage is still a line file).
pub fn detect(prefix: &[u8], column: Option<&str>) -> FormatChoice {
    let Some(first) = lines(prefix).find(|l| !is_skipped(l)) else {
        return FormatChoice::Line;
    };
    let trimmed = first.trim_ascii();
    let names_puzzle = |field: &[u8]| {
        let name = field.trim_ascii();
        let name = name
            .strip_prefix(b"\"")
            .and_then(|n| n.strip_suffix(b"\""))
            .unwrap_or(name);
        csv::PUZZLE_NAMES
            .iter()
            .copied()
            .chain(column)
            .any(|wanted| name.eq_ignore_ascii_case(wanted.as_bytes()))
    };
    if trimmed.contains(&b',') && trimmed.split(|&b| b == b',').any(names_puzzle) {
        return FormatChoice::Csv;
    }
    if grid::parse_row(trimmed).is_some() {
        return FormatChoice::Grid;
    }
    FormatChoice::Line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detect_formats() {
        let line = format!("# c\n\n{}\n", "1.3".repeat(27));
        assert_eq!(detect(line.as_bytes(), None), FormatChoice::Line);
        assert_eq!(detect(b"quizzes,solutions\n0043", None), FormatChoice::Csv);
        assert_eq!(detect(b"id,\"Puzzle\",solution\n", None), FormatChoice::Csv);
        assert_eq!(detect(b"n,grid\n", None), FormatChoice::Line);
        assert_eq!(detect(b"n,grid\n", Some("grid")), FormatChoice::Csv);
        assert_eq!(detect(b"garbage, here\n", None), FormatChoice::Line);
        assert_eq!(detect(b"0 3 5 4 6 9 2 7 8\r\n", None), FormatChoice::Grid);
        assert_eq!(detect(b"103000509\n", None), FormatChoice::Grid);
        let line = format!("{},{}", "1".repeat(81), "2".repeat(81));
        assert_eq!(detect(line.as_bytes(), None), FormatChoice::Line);
        assert_eq!(detect(b"", None), FormatChoice::Line);
    }

    #[test]
    fn open_reads_the_header_and_counts_its_lines() {
        let input = b"# made by hand\n\nid,puzzle\r\n1,...\n";
        let opened = open(input, FormatChoice::Auto, None, Task::Count { limit: 2 }).unwrap();
        assert_eq!(opened.format.name(), "csv");
        assert_eq!(opened.header, b"id,puzzle,solutions,status\n");
        assert_eq!(&input[opened.skip..], b"1,...\n");
        assert_eq!(opened.first_line, 3);
    }

    #[test]
    fn task_and_format_rules_are_checked_at_open() {
        let check = Task::Check { unique: false };
        assert_eq!(
            open(b"103000509\n", FormatChoice::Auto, None, check).unwrap_err(),
            FormatError::CheckNeedsSolutions
        );
        assert!(matches!(
            open(b"id,puzzle\n", FormatChoice::Csv, None, check),
            Err(FormatError::NoSolutionColumn { .. })
        ));
        assert!(matches!(
            open(b"a,b\n", FormatChoice::Csv, None, Task::Count { limit: 2 }),
            Err(FormatError::NoPuzzleColumn { .. })
        ));
        let long = vec![b'a'; PEEK];
        assert_eq!(
            open(&long, FormatChoice::Csv, None, check).unwrap_err(),
            FormatError::HeaderTooLong
        );
        assert_eq!(
            open(b"", FormatChoice::Csv, None, check)
                .unwrap()
                .format
                .name(),
            "line"
        );
    }
}
