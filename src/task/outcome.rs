//! What became of one record ([`Outcome`]), why a record is not a puzzle ([`Invalid`]) or its
//! carried solution is wrong ([`Wrong`]), and the one renderer of an outcome as text: a value, a
//! status, one output line, or the value of one of the task's result columns.

use std::io::Write as _;

use crate::dataset::rate;
use crate::grade::Grade;
use crate::grid::{Clash, Grid, ParseError, CELLS};

/// What to add to [`Invalid::GridRows`] for a run of more than nine rows: most often grids
/// written one after another with nothing between them.
fn joined_grids(rows: &usize) -> &'static str {
    if *rows > 9 {
        " (grids need a blank or title line between them)"
    } else {
        ""
    }
}

/// Why a record is not a well-formed puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
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
    #[error("row {0} is not nine cells (digits, 0 or . for blanks), unseparated, separated by single spaces, or in boxes")]
    GridRow(usize),
    /// Grid format: a run of lines that is not nine rows long.
    #[error("a grid needs 9 rows, this one has {}{}", .0, joined_grids(.0))]
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
    /// A columnar input (Parquet, Arrow) or a front end's array: the puzzle of this row is null.
    #[error("the puzzle is null")]
    Null,
    /// `check` on a table or a front end's array: the solution of this row is null.
    #[error("the solution is null")]
    NullSolution,
    /// `check` from a front end: the solution handed over is a value that is not text.
    #[error("the solution is not a string (str or bytes)")]
    SolutionNotText,
    /// A record handed over as a number (pandas reads an all-digit column as numbers) that is
    /// negative.
    #[error("a negative number is not a puzzle")]
    NegativeNumber,
    /// A record handed over as a number with more than 81 digits.
    #[error("a number of more than 81 digits is not a puzzle")]
    LongNumber,
}

/// Why a carried solution is wrong (`check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
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
#[non_exhaustive]
#[allow(missing_docs)] // the variant docs say what each field holds
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
    /// `grade`: the human-style grade.
    Graded(Grade),
    /// `dedupe`: the record's class (its canonical form, or its own cells with `exact`).
    Class(Grid),
    /// Not a well-formed puzzle.
    Invalid(Invalid),
}

/// The typed value of one result column (see [`crate::Task::columns`]): what a columnar output
/// (Parquet, Arrow) or a binding stores where text output writes [`Outcome::write_column`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
#[allow(missing_docs)] // the column types say what each holds
pub enum Value {
    /// [`crate::ColumnType::Grid`]: a solution or a canonical form.
    Grid(Grid),
    /// [`crate::ColumnType::Count`]: solutions found; the limit itself means "the limit or more".
    Count(u32),
    /// [`crate::ColumnType::Float`]: a rating.
    Float(f64),
    /// [`crate::ColumnType::Bool`].
    Bool(bool),
    /// [`crate::ColumnType::Text`]: a name (a grade's band, its hardest technique).
    Text(&'static str),
}

/// A record that did not get a plain answer, as reported in a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
pub enum Problem {
    #[error("unsolvable")]
    Unsolvable,
    #[error("invalid: {0}")]
    Invalid(Invalid),
    #[error("wrong: {0}")]
    Wrong(Wrong),
}

impl Outcome {
    /// The problem to report, if the record did not get a plain answer.
    pub fn problem(&self) -> Option<Problem> {
        match *self {
            Outcome::Solved(_)
            | Outcome::Verified
            | Outcome::Canonical(_)
            | Outcome::Rated(_)
            | Outcome::Graded(_)
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
        self.write_column(0, out)
    }

    /// Appends the value of the task's result column `index` (see [`crate::Task::columns`]) for
    /// this outcome, if it has one; returns whether anything was written. An outcome without a
    /// value for the column (a problem) leaves it empty.
    pub fn write_column(&self, index: usize, out: &mut Vec<u8>) -> bool {
        // Matched by reference: an outcome holds a grid, and a copy of it costs on the hot path.
        match (self, index) {
            (Outcome::Solved(grid) | Outcome::Canonical(grid), 0) => {
                let mut digits = [0u8; CELLS];
                grid.write_digits(&mut digits);
                out.extend_from_slice(&digits);
            }
            (Outcome::Counted { found, at_limit }, 0) => {
                let plus = if *at_limit { "+" } else { "" };
                write!(out, "{found}{plus}").expect("writing to memory");
            }
            (Outcome::Rated(rating), 0) => {
                write!(out, "{:.2}", rating.mean_guesses()).expect("writing to memory")
            }
            (Outcome::Rated(rating), 1) => {
                out.extend_from_slice(if rating.singles { b"true" } else { b"false" })
            }
            (Outcome::Graded(g), 0) => out.extend_from_slice(g.band().as_bytes()),
            (Outcome::Graded(g), 1) => push_tenths(out, g.tenths),
            (Outcome::Graded(g), 2) => out.extend_from_slice(g.hardest_text().as_bytes()),
            (Outcome::Graded(g), 3) => write!(out, "{}", g.steps).expect("writing to memory"),
            (Outcome::Graded(g), 4) => push_tenths(out, g.pearl),
            (Outcome::Graded(g), 5) => push_tenths(out, g.diamond),
            _ => return false,
        }
        true
    }

    /// The typed value of the task's result column `index` for this outcome, if it has one
    /// (the value [`Outcome::write_column`] writes as text).
    pub fn value(&self, index: usize) -> Option<Value> {
        match (*self, index) {
            (Outcome::Solved(grid) | Outcome::Canonical(grid), 0) => Some(Value::Grid(grid)),
            (Outcome::Counted { found, .. }, 0) => Some(Value::Count(found)),
            (Outcome::Rated(rating), 0) => Some(Value::Float(rating.mean_guesses())),
            (Outcome::Rated(rating), 1) => Some(Value::Bool(rating.singles)),
            (Outcome::Graded(g), 0) => Some(Value::Text(g.band())),
            (Outcome::Graded(g), 1) => Some(Value::Float(g.se_estimate())),
            (Outcome::Graded(g), 2) => Some(Value::Text(g.hardest_text())),
            (Outcome::Graded(g), 3) => Some(Value::Count(g.steps)),
            (Outcome::Graded(g), 4) => Some(Value::Float(g.se_pearl())),
            (Outcome::Graded(g), 5) => Some(Value::Float(g.se_diamond())),
            _ => None,
        }
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

    /// The status as a string (see [`Outcome::write_status`]).
    pub fn status(&self) -> String {
        let mut s = Vec::new();
        self.write_status(&mut s);
        String::from_utf8(s).expect("statuses are UTF-8")
    }

    /// Appends the answer as one output line: the value if there is one, else the status. A
    /// grade's line is its SE estimate, band and hardest technique: `4.2 hard XY-Wing`.
    #[inline]
    pub fn write_line(&self, out: &mut Vec<u8>) {
        // The common line inline, the others out of line.
        match self {
            Outcome::Solved(grid) | Outcome::Canonical(grid) => grid.write_line(out),
            _ => self.write_other_line(out),
        }
    }

    #[inline(never)]
    fn write_other_line(&self, out: &mut Vec<u8>) {
        match self {
            Outcome::Graded(g) => {
                push_tenths(out, g.tenths);
                out.push(b' ');
                out.extend_from_slice(g.band().as_bytes());
                out.push(b' ');
                out.extend_from_slice(g.hardest_text().as_bytes());
            }
            _ => {
                if !self.write_value(out) {
                    self.write_status(out);
                }
            }
        }
        out.push(b'\n');
    }
}

/// Appends a score in tenths as `{:.1}` writes it divided by ten (`0.0` to `25.5`), without the
/// formatting machinery: on easy puzzles, formatting the float took about 5% of a grade's
/// instructions.
fn push_tenths(out: &mut Vec<u8>, tenths: u8) {
    let whole = tenths / 10;
    if whole >= 10 {
        out.push(b'0' + whole / 10);
    }
    out.extend_from_slice(&[b'0' + whole % 10, b'.', b'0' + tenths % 10]);
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
        assert_eq!(counted(0, false).status(), "unsolvable");
    }

    #[test]
    fn rate_has_two_columns() {
        let rated = Outcome::Rated(rate::Rating {
            guesses: 5,
            samples: 2,
            singles: false,
        });
        let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
        assert!(rated.write_column(0, &mut a) && rated.write_column(1, &mut b));
        assert!(!Outcome::Unsolvable.write_column(1, &mut c));
        assert_eq!(
            (&a[..], &b[..], &c[..]),
            (&b"2.50"[..], &b"false"[..], &b""[..])
        );
    }

    #[test]
    fn scores_are_written_as_the_float_formats_them() {
        for tenths in 0..=u8::MAX {
            let mut out = Vec::new();
            push_tenths(&mut out, tenths);
            assert_eq!(out, format!("{:.1}", f64::from(tenths) / 10.0).as_bytes());
        }
    }
}
