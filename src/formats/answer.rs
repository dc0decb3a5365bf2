//! Answering one record: what a task does with a parsed puzzle ([`answer`]), the typed
//! [`Outcome`] it gives, and the single renderer of an outcome that the line, grid and CSV formats
//! share ([`Outcome::write_value`], [`Outcome::write_status`], [`Outcome::write_line`]).

use std::io::Write as _;

use crate::dataset::{canon, rate};
use crate::grid::{Clash, Grid, ParseError, CELLS};
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
    /// The canonical (minlex) form of the puzzle.
    Canon,
    /// A difficulty figure: see [`rate::rate`].
    Rate { samples: u32, seed: u64 },
    /// Keep the first record of each class (equivalent puzzles; with `exact`, equal cells). The
    /// record itself is the output; the batch writer decides which records are kept.
    Dedupe { exact: bool },
}

impl Default for Task {
    fn default() -> Task {
        Task::Solve { lexmin: false }
    }
}

impl Task {
    /// Whether the output of a record is the record itself (kept or dropped), not an answer.
    pub fn filters(self) -> bool {
        matches!(self, Task::Dedupe { .. })
    }
}

/// Why a record is not a well-formed puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Invalid {
    #[error("{0}")]
    Parse(#[from] ParseError),
    #[error("givens clash: {}", ShowClash(.0))]
    Clash(Clash),
    /// `check`, line format: nothing follows the puzzle.
    #[error("no solution after the puzzle")]
    NoSolution,
    /// CSV: the row is shorter than the puzzle column's position (1-based).
    #[error("the row has no column {0}")]
    MissingColumn(usize),
    /// CSV `check`: the row is shorter than the solution column's position.
    #[error("the row has no solution column")]
    MissingSolutionColumn,
    /// Grid format: row `n` (1-based) of a grid is not nine cells.
    #[error("row {0} is not nine cells (digits, 0 or . for blanks), unseparated or separated by single spaces")]
    GridRow(usize),
    /// Grid format: a run of lines that is not nine rows long.
    #[error("a grid needs 9 rows, this one has {0}")]
    GridRows(usize),
    /// CSV: a quote opened a field and was never closed; the field was closed at the end of its
    /// line so that the rows after it are still read.
    #[error("unterminated quote (the field was closed at the end of its line)")]
    UnterminatedQuote,
    /// CSV: the row has more fields than the header, so its result columns would not line up.
    #[error("the row has {fields} fields, the header {header}")]
    LongRow { fields: usize, header: usize },
    /// A record handed over as a value that is not text (from Python: `None`, a number).
    #[error("not a puzzle string (str or bytes)")]
    NotText,
}

/// Why a carried solution is wrong (`check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Wrong {
    #[error("solution: {0}")]
    Unreadable(ParseError),
    #[error("solution is incomplete ({0} blank cells)")]
    Incomplete(usize),
    #[error("solution is not valid: {}", ShowClash(.0))]
    NotValid(Clash),
    #[error("solution changes the given {digit} at row {row}, column {column}")]
    ChangesGiven {
        digit: u8,
        row: usize,
        column: usize,
    },
    #[error("puzzle has more than one solution")]
    NotUnique,
}

struct ShowClash<'a>(&'a Clash);

impl std::fmt::Display for ShowClash<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let c = self.0;
        write!(
            f,
            "digit {} appears twice in {} {}",
            c.digit, c.unit, c.index
        )
    }
}

/// What became of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `solve`: a solution.
    Solved(Grid),
    /// `count`: solutions found (0 means none), and whether the limit was reached.
    Counted { found: u32, at_limit: bool },
    /// `solve`: no solution.
    Unsolvable,
    /// `check`: the carried solution is right.
    Verified,
    /// `check`: the carried solution is wrong.
    Wrong(Wrong),
    /// `canon`: the canonical form.
    Canonical(Grid),
    /// `rate`: the difficulty figure.
    Rated(rate::Rating),
    /// `dedupe`: the record's class (its canonical form, or its own cells with `exact`).
    Class(Grid),
    /// Not a well-formed puzzle.
    Invalid(Invalid),
}

/// A record that did not get a plain answer, as reported in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("unsolvable")]
    Unsolvable,
    #[error("invalid: {0}")]
    Invalid(Invalid),
    #[error("wrong: {0}")]
    Wrong(Wrong),
}

/// Runs `task` on a parsed puzzle. `solution` is the solution text the record carries (`check`
/// only; `None` when it has none). Clashing givens are [`Invalid::Clash`], not unsolvable.
///
/// Clashing givens have no solution, so the clash check runs only when the search finds none: it
/// stays off the hot path of good records.
pub fn answer(task: Task, puzzle: &Grid, solution: Option<&[u8]>) -> Outcome {
    let outcome = match task {
        Task::Solve { lexmin } => {
            let solved = if lexmin {
                solver::lexmin(puzzle)
            } else {
                solver::solve(puzzle)
            };
            match solved.solution {
                Some(s) => Outcome::Solved(s),
                None => Outcome::Unsolvable,
            }
        }
        Task::Count { limit } => {
            let found = solver::count(puzzle, limit).solutions;
            Outcome::Counted {
                found,
                at_limit: found >= limit,
            }
        }
        Task::Check { unique } => {
            return match solution {
                None => Outcome::Invalid(Invalid::NoSolution),
                Some(text) => verify(puzzle, text, unique),
            }
        }
        // Equivalence classes and ratings are only meaningful for puzzles whose givens agree.
        Task::Canon | Task::Dedupe { .. } => {
            if let Some(clash) = puzzle.first_clash() {
                return Outcome::Invalid(Invalid::Clash(clash));
            }
            return match task {
                Task::Dedupe { exact: true } => Outcome::Class(*puzzle),
                Task::Dedupe { exact: false } => Outcome::Class(canon::canonical(puzzle)),
                _ => Outcome::Canonical(canon::canonical(puzzle)),
            };
        }
        Task::Rate { samples, seed } => match rate::rate(puzzle, samples, seed) {
            Some(rating) => Outcome::Rated(rating),
            None => Outcome::Unsolvable,
        },
    };
    if matches!(
        outcome,
        Outcome::Unsolvable | Outcome::Counted { found: 0, .. }
    ) {
        if let Some(clash) = puzzle.first_clash() {
            return Outcome::Invalid(Invalid::Clash(clash));
        }
    }
    outcome
}

/// Checks that `solution_text` is a complete, valid grid that keeps every given of `puzzle` and
/// (with `unique`) is its only solution.
fn verify(puzzle: &Grid, solution_text: &[u8], unique: bool) -> Outcome {
    if let Some(clash) = puzzle.first_clash() {
        return Outcome::Invalid(Invalid::Clash(clash));
    }
    let wrong = match Grid::parse(solution_text) {
        Err(e) => Some(Wrong::Unreadable(e)),
        Ok(s) if s.givens() != CELLS => Some(Wrong::Incomplete(CELLS - s.givens())),
        Ok(s) => match s.first_clash() {
            Some(clash) => Some(Wrong::NotValid(clash)),
            None => (0..CELLS)
                .find(|&i| {
                    let p = puzzle.cells()[i];
                    p != 0 && p != s.cells()[i]
                })
                .map(|i| Wrong::ChangesGiven {
                    digit: puzzle.cells()[i],
                    row: i / 9 + 1,
                    column: i % 9 + 1,
                }),
        },
    };
    let wrong = wrong.or_else(|| {
        (unique && solver::count(puzzle, 2).solutions >= 2).then_some(Wrong::NotUnique)
    });
    match wrong {
        Some(w) => Outcome::Wrong(w),
        None => Outcome::Verified,
    }
}

impl Outcome {
    /// The problem to report, if the record did not get a plain answer.
    pub fn problem(&self) -> Option<Problem> {
        match *self {
            Outcome::Solved(_)
            | Outcome::Verified
            | Outcome::Canonical(_)
            | Outcome::Rated(_)
            | Outcome::Class(_) => None,
            Outcome::Counted { found, .. } => (found == 0).then_some(Problem::Unsolvable),
            Outcome::Unsolvable => Some(Problem::Unsolvable),
            Outcome::Wrong(w) => Some(Problem::Wrong(w)),
            Outcome::Invalid(i) => Some(Problem::Invalid(i)),
        }
    }

    /// Appends the answer's value, if it has one: a solution's or canonical form's 81 digits, a
    /// count (`N`, `N+` when the limit was reached), or a rating (`12.40`). Returns whether
    /// anything was written.
    pub fn write_value(&self, out: &mut Vec<u8>) -> bool {
        match *self {
            Outcome::Solved(grid) | Outcome::Canonical(grid) => {
                let mut digits = [0u8; CELLS];
                grid.write_digits(&mut digits);
                out.extend_from_slice(&digits);
            }
            Outcome::Counted { found, at_limit } => {
                let plus = if at_limit { "+" } else { "" };
                write!(out, "{found}{plus}").expect("writing to memory");
            }
            Outcome::Rated(rating) => {
                write!(out, "{:.2}", rating.mean_guesses()).expect("writing to memory")
            }
            _ => return false,
        }
        true
    }

    /// Appends the status: `solved`, `ok`, `unsolvable`, `wrong: <reason>` or `invalid: <reason>`.
    /// Every status starts with a word, never a digit.
    pub fn write_status(&self, out: &mut Vec<u8>) {
        match (self, self.problem()) {
            (_, Some(problem)) => write!(out, "{problem}").expect("writing to memory"),
            (Outcome::Solved(_), None) => out.extend_from_slice(b"solved"),
            (_, None) => out.extend_from_slice(b"ok"),
        }
    }

    /// Appends the answer as one output line: the value if there is one, else the status.
    pub fn write_line(&self, out: &mut Vec<u8>) {
        if !self.write_value(out) {
            self.write_status(out);
        }
        out.push(b'\n');
    }
}

/// Counts of outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Tally {
    /// Records seen (blank and comment lines are not records).
    pub records: u64,
    /// Solved (`solve`), at least one solution (`count`), verified (`check`), or answered
    /// (`canon`, `rate`, `dedupe`).
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
    /// `dedupe`: records dropped as equivalent to (or, with `--exact`, equal to) an earlier one.
    pub duplicates: u64,
}

impl Tally {
    /// Counts one record.
    pub fn count(&mut self, outcome: &Outcome) {
        self.records += 1;
        match *outcome {
            Outcome::Solved(_)
            | Outcome::Verified
            | Outcome::Canonical(_)
            | Outcome::Rated(_)
            | Outcome::Class(_) => self.solved += 1,
            Outcome::Unsolvable | Outcome::Counted { found: 0, .. } => self.unsolvable += 1,
            Outcome::Counted { found, at_limit } => {
                self.solved += 1;
                if found >= 2 {
                    self.multiple += 1;
                } else if !at_limit {
                    self.unique += 1;
                }
            }
            Outcome::Wrong(_) => self.wrong += 1,
            Outcome::Invalid(_) => self.invalid += 1,
        }
    }

    pub fn add(&mut self, other: &Tally) {
        self.records += other.records;
        self.solved += other.solved;
        self.unsolvable += other.unsolvable;
        self.invalid += other.invalid;
        self.wrong += other.wrong;
        self.unique += other.unique;
        self.multiple += other.multiple;
        self.duplicates += other.duplicates;
    }

    /// Records that make the exit status 1.
    pub fn failed(&self) -> u64 {
        self.unsolvable + self.invalid + self.wrong
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(outcome: Outcome) -> String {
        let mut out = Vec::new();
        outcome.write_line(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn clash_names_unit() {
        let mut cells = [0u8; 81];
        cells[0] = 4;
        cells[10] = 4;
        let g = Grid::from_cells(cells).unwrap();
        let outcome = answer(Task::Solve { lexmin: false }, &g, None);
        assert_eq!(
            line(outcome),
            "invalid: givens clash: digit 4 appears twice in box 1\n"
        );
        assert_eq!(
            answer(Task::Count { limit: 2 }, &g, None),
            Outcome::Invalid(Invalid::Clash(g.first_clash().unwrap()))
        );
    }

    #[test]
    fn lines_are_a_value_or_a_status() {
        let counted = |found, at_limit| Outcome::Counted { found, at_limit };
        assert_eq!(line(counted(0, false)), "0\n");
        assert_eq!(line(counted(123, true)), "123+\n");
        assert_eq!(line(Outcome::Unsolvable), "unsolvable\n");
        assert_eq!(line(Outcome::Verified), "ok\n");
        assert_eq!(
            line(Outcome::Wrong(Wrong::NotUnique)),
            "wrong: puzzle has more than one solution\n"
        );
        let mut status = Vec::new();
        counted(0, false).write_status(&mut status);
        assert_eq!(status, b"unsolvable");
    }

    #[test]
    fn tally_counts_each_kind() {
        let mut t = Tally::default();
        t.count(&Outcome::Counted {
            found: 1,
            at_limit: false,
        });
        t.count(&Outcome::Counted {
            found: 2,
            at_limit: true,
        });
        t.count(&Outcome::Counted {
            found: 0,
            at_limit: false,
        });
        t.count(&Outcome::Invalid(Invalid::NoSolution));
        assert_eq!(
            (
                t.records,
                t.solved,
                t.unique,
                t.multiple,
                t.unsolvable,
                t.invalid
            ),
            (4, 2, 1, 1, 1, 1)
        );
        assert_eq!(t.failed(), 2);
    }
}
