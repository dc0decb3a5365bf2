//! Record formats: how an input splits into records, how a record is parsed, and how its answer is
//! written. Every format plugs into the same pipeline through [`Format`]:
//!
//! - [`Format::last_boundary`] tells the reader where a block may end (a record boundary), so every
//!   block holds whole records;
//! - [`Format::process`] parses and answers every record of one block into that block's
//!   [`BlockOut`], without allocating per record on the good path.
//!
//! Formats: [`line`] (one puzzle per line), [`grid`] (nine lines of nine digits per puzzle) and
//! [`csv`] (a header naming the puzzle column).

pub mod csv;
pub mod grid;
pub mod line;

use crate::grid::{Grid, CELLS};
use crate::solver;

/// What to do with each puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Task {
    /// Find a solution; with `lexmin`, the lexicographically smallest one.
    Solve { lexmin: bool },
    /// Count solutions up to `limit` (at least 1).
    Count { limit: u32 },
    /// Verify the solution the record carries; with `unique`, also that it is the only one.
    Check { unique: bool },
}

/// The format asked for on the command line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FormatChoice {
    /// Detect from the first record (see [`detect`]).
    #[default]
    Auto,
    Line,
    Grid,
    Csv,
}

/// The format of one run, with what was learned from the input's header (CSV).
#[derive(Debug, Clone)]
pub enum Format {
    Line,
    Grid,
    Csv(csv::Layout),
}

/// Per-block counts of outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Records seen (blank and comment lines are not records).
    pub records: u64,
    /// Solved (`solve`), at least one solution (`count`), or verified (`check`).
    pub solved: u64,
    /// No solution.
    pub unsolvable: u64,
    /// Not a well-formed puzzle (bad length, bad character, clashing givens, ...).
    pub invalid: u64,
    /// `check`: the carried solution is wrong (or, with `--unique`, not the only one).
    pub wrong: u64,
    /// `count`: exactly one solution (only when the limit is at least 2).
    pub unique: u64,
    /// `count`: two or more solutions.
    pub multiple: u64,
}

impl Tally {
    pub fn add(&mut self, other: &Tally) {
        self.records += other.records;
        self.solved += other.solved;
        self.unsolvable += other.unsolvable;
        self.invalid += other.invalid;
        self.wrong += other.wrong;
        self.unique += other.unique;
        self.multiple += other.multiple;
    }

    /// Records that make the exit status 1.
    pub fn failed(&self) -> u64 {
        self.unsolvable + self.invalid + self.wrong
    }
}

/// A message about one record, for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    /// 1-based line number within the block.
    pub line: u64,
    pub text: String,
}

/// The output of one block: its bytes, counts and messages.
#[derive(Debug, Default)]
pub struct BlockOut {
    pub bytes: Vec<u8>,
    pub tally: Tally,
    /// Messages about bad records, at most `note_cap` of them; `notes_dropped` counts the rest.
    pub notes: Vec<Note>,
    pub notes_dropped: u64,
    /// Number of line feeds in the block (so the writer can number lines of later blocks).
    pub lines: u64,
    pub note_cap: usize,
}

impl BlockOut {
    /// Empties the buffers for reuse, keeping their capacity.
    pub fn reset(&mut self, note_cap: usize) {
        self.bytes.clear();
        self.tally = Tally::default();
        self.notes.clear();
        self.notes_dropped = 0;
        self.lines = 0;
        self.note_cap = note_cap;
    }

    /// Records a message about the record at block line `line` (built only if it will be kept).
    pub fn note(&mut self, line: u64, text: impl FnOnce() -> String) {
        if self.notes.len() < self.note_cap {
            self.notes.push(Note { line, text: text() });
        } else {
            self.notes_dropped += 1;
        }
    }
}

/// The answer for one well-formed puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Solution(Grid),
    Unsolvable,
    /// `count`: solutions found, and whether the limit was reached.
    Count {
        found: u32,
        at_limit: bool,
    },
}

/// Why a record is not a well-formed puzzle, or why a carried solution is wrong.
pub type Reason = String;

/// Runs `task` (solve or count) on a parsed puzzle; clashing givens are invalid, not unsolvable.
///
/// Clashing givens have no solution, so the clash check runs only when the search finds none: it
/// stays off the hot path of good records.
pub fn answer(task: Task, puzzle: &Grid) -> Result<Answer, Reason> {
    let answer = match task {
        Task::Solve { lexmin } => {
            let solved = if lexmin {
                solver::lexmin(puzzle)
            } else {
                solver::solve(puzzle)
            };
            match solved.solution {
                Some(s) => Answer::Solution(s),
                None => Answer::Unsolvable,
            }
        }
        Task::Count { limit } => {
            let counted = solver::count(puzzle, limit);
            if counted.solutions == 0 {
                Answer::Unsolvable
            } else {
                Answer::Count {
                    found: counted.solutions,
                    at_limit: counted.solutions >= limit,
                }
            }
        }
        Task::Check { .. } => unreachable!("check records go through verify()"),
    };
    if answer == Answer::Unsolvable {
        if let Some(clash) = find_clash(puzzle) {
            return Err(clash);
        }
    }
    Ok(answer)
}

/// Outcome of verifying a carried solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verified {
    Ok,
    /// The puzzle is well formed but the solution is wrong (or not unique).
    Wrong(Reason),
}

/// Checks that `solution` is complete, valid, keeps every given of `puzzle`, and (with `unique`) is
/// the only solution. Errors are problems with the puzzle or the solution text itself.
pub fn verify(puzzle: &Grid, solution_text: &[u8], unique: bool) -> Result<Verified, Reason> {
    if let Some(clash) = find_clash(puzzle) {
        return Err(clash);
    }
    let solution = match Grid::parse(solution_text) {
        Ok(s) => s,
        Err(e) => return Ok(Verified::Wrong(format!("solution: {e}"))),
    };
    if solution.givens() != CELLS {
        return Ok(Verified::Wrong(format!(
            "solution is incomplete ({} blank cells)",
            CELLS - solution.givens()
        )));
    }
    if let Some(clash) = find_clash(&solution) {
        return Ok(Verified::Wrong(format!("solution is not valid: {clash}")));
    }
    if let Some(cell) = (0..CELLS).find(|&i| {
        let p = puzzle.cells()[i];
        p != 0 && p != solution.cells()[i]
    }) {
        return Ok(Verified::Wrong(format!(
            "solution changes the given {} at row {}, column {}",
            puzzle.cells()[cell],
            cell / 9 + 1,
            cell % 9 + 1
        )));
    }
    if unique && solver::count(puzzle, 2).solutions >= 2 {
        return Ok(Verified::Wrong("puzzle has more than one solution".into()));
    }
    Ok(Verified::Ok)
}

/// Names the first digit that appears twice in a unit, if any.
pub fn find_clash(grid: &Grid) -> Option<Reason> {
    grid.first_clash().map(|c| {
        format!(
            "givens clash: digit {} appears twice in {} {}",
            c.digit, c.unit, c.index
        )
    })
}

/// Adds an answer to the tally.
pub fn tally_answer(tally: &mut Tally, answer: &Answer) {
    match *answer {
        Answer::Solution(_) => tally.solved += 1,
        Answer::Unsolvable => tally.unsolvable += 1,
        Answer::Count { found, at_limit } => {
            tally.solved += 1;
            if found >= 2 {
                tally.multiple += 1;
            } else if !at_limit {
                tally.unique += 1;
            }
        }
    }
}

/// Appends the count as text: `N`, or `N+` when the limit was reached.
pub fn push_count(out: &mut Vec<u8>, found: u32, at_limit: bool) {
    use std::io::Write;
    let plus = if at_limit { "+" } else { "" };
    write!(out, "{found}{plus}").expect("writing to memory");
}

/// Appends the 81 digits of a grid.
pub fn push_digits(out: &mut Vec<u8>, grid: &Grid) {
    let mut digits = [0u8; CELLS];
    grid.write_digits(&mut digits);
    out.extend_from_slice(&digits);
}

/// The line without its trailing `\r` (CRLF input).
pub fn strip_cr(line: &[u8]) -> &[u8] {
    match line.last() {
        Some(b'\r') => &line[..line.len() - 1],
        _ => line,
    }
}

/// True for a line that is not a record: blank (only whitespace) or a `#` comment.
pub fn is_skipped(line: &[u8]) -> bool {
    match line.iter().position(|b| !b.is_ascii_whitespace()) {
        None => true,
        Some(i) => line[i] == b'#',
    }
}

/// Offset just past the last line feed in `buf`.
pub fn last_line_end(buf: &[u8]) -> Option<usize> {
    memchr::memrchr(b'\n', buf).map(|i| i + 1)
}

impl Format {
    /// Offset just past the last record boundary in `buf`, which starts at a boundary; `None` when
    /// `buf` holds no complete record yet (the reader then reads on).
    pub fn last_boundary(&self, buf: &[u8]) -> Option<usize> {
        match self {
            Format::Line => last_line_end(buf),
            Format::Grid => grid::last_boundary(buf),
            Format::Csv(_) => csv::last_boundary(buf),
        }
    }

    /// Parses and answers every record of `block` into `out`.
    pub fn process(&self, block: &[u8], task: Task, out: &mut BlockOut) {
        match self {
            Format::Line => line::process(block, task, out),
            Format::Grid => grid::process(block, task, out),
            Format::Csv(layout) => layout.process(block, task, out),
        }
        if !matches!(self, Format::Line) {
            out.lines = memchr::memchr_iter(b'\n', block).count() as u64;
        }
    }

    /// Bytes the writer puts between two non-empty blocks (grids are separated by blank lines).
    pub fn block_separator(&self) -> &'static [u8] {
        match self {
            Format::Grid => b"\n",
            _ => b"",
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Format::Line => "line",
            Format::Grid => "grid",
            Format::Csv(_) => "csv",
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
    let Some(first) = prefix
        .split(|&b| b == b'\n')
        .map(strip_cr)
        .find(|l| !is_skipped(l))
    else {
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
    fn clash_names_unit() {
        let mut cells = [0u8; 81];
        cells[0] = 4;
        cells[10] = 4;
        let g = Grid::from_cells(cells).unwrap();
        assert_eq!(
            find_clash(&g).unwrap(),
            "givens clash: digit 4 appears twice in box 1"
        );
    }

    #[test]
    fn counts_print_with_plus_at_limit() {
        let mut out = Vec::new();
        push_count(&mut out, 0, false);
        out.push(b' ');
        push_count(&mut out, 123, true);
        assert_eq!(out, b"0 123+");
    }
}
