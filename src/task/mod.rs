//! The task layer: what each task computes on one record ([`answer`]), its typed [`Outcome`],
//! the result columns it adds to a table ([`Task::columns`]: names and types, the one source for
//! the CLI, CSV, Python and Spark), and its counts ([`Tally`]).
//!
//! Formats know nothing of tasks beyond this module: a renderer asks an outcome for the value of
//! each of the task's columns, and the batch loop asks the task whether it filters records
//! (`dedupe`) instead of answering them.

mod outcome;
mod tally;

pub use outcome::{Invalid, Outcome, Problem, Value, Wrong};
pub use tally::Tally;

use crate::dataset::{canon, rate};
use crate::grade;
use crate::grid::{Grid, CELLS};
use crate::solver;

/// What to do with each puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the variant docs say what each field holds
pub enum Task {
    /// Find a solution; with `lexmin`, the lexicographically smallest one.
    Solve { lexmin: bool },
    /// Count solutions up to `limit` (at least 1).
    Count { limit: u32 },
    /// Verify the solution the record carries; with `unique`, also that it is the only one.
    Check { unique: bool },
    /// The canonical (minlex) form of the puzzle.
    Canon,
    /// A difficulty figure: see [`crate::rate`].
    Rate { samples: u32, seed: u64 },
    /// Human-style grade: the hardest technique a person needs and a score on the Sudoku
    /// Explainer scale: see [`crate::grade`]; with `nested`, nested trial is searched
    /// ([`crate::grade::Options::nested`]).
    Grade { nested: bool },
    /// [`Task::Grade`] with each puzzle's path (`grade --explain`): per record of a text input,
    /// the puzzle, one line per step, the grade, and a blank line (docs/grading.md). The
    /// batch run refuses CSV, Parquet and Arrow input for it (its output is not a table); a
    /// single [`answer`] is the grade.
    Explain { nested: bool },
    /// Keep the first record of each class (equivalent puzzles; with `exact`, equal cells). The
    /// record itself is the output; a [`crate::Deduper`] decides which records are kept.
    Dedupe { exact: bool },
}

impl Default for Task {
    fn default() -> Task {
        Task::Solve { lexmin: false }
    }
}

/// The type of a result column's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ColumnType {
    /// 81 digits, `0` for blanks (a solution, a canonical form).
    Grid,
    /// A count: digits, with a `+` when the search stopped at its limit.
    Count,
    /// A decimal figure with two places.
    Float,
    /// `true` or `false`.
    Bool,
    /// Free text (the status).
    Text,
}

/// A column a task adds to a table of records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// Its header name (suffixed `_2`, `_3`, ... where the input already has the name).
    pub name: &'static str,
    /// The type of its values.
    pub kind: ColumnType,
}

/// The `count` limit above which a count is a slow task (see `Task::is_slow`): counting up to `N`
/// solutions takes about `N` times a solve's time (an empty grid's first 3,000,000, a second).
const SLOW_COUNT: u32 = 1_000;

/// The status column every answering task adds after its result columns: `solved`, `ok`,
/// `unsolvable`, `wrong: ...` or `invalid: ...`.
pub const STATUS: Column = Column {
    name: "status",
    kind: ColumnType::Text,
};

/// Names of the tasks, in the order the CLI lists them.
pub const TASK_NAMES: [&str; 7] = [
    "solve", "count", "check", "canon", "rate", "grade", "dedupe",
];

/// A task name that is not one of [`TASK_NAMES`], or a task option out of range.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
pub enum TaskError {
    #[error("unknown task {0:?}; expected one of solve, count, check, canon, rate, grade, dedupe")]
    Unknown(String),
    #[error("count needs a limit of at least 1")]
    ZeroLimit,
    #[error("rate needs at least 1 sample")]
    ZeroSamples,
}

/// The options of every task, each read by its own task: what a front end collects from flags
/// or keyword arguments before naming the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskOptions {
    /// `solve`: the lexicographically smallest solution.
    pub lexmin: bool,
    /// `count`: stop counting at this many solutions (default 2).
    pub limit: u32,
    /// `check`: also require the solution to be the only one.
    pub unique: bool,
    /// `rate`: isomorphs searched per puzzle (default 16).
    pub samples: u32,
    /// `rate`: the seed of the isomorphs (default 0).
    pub seed: u64,
    /// `dedupe`: drop only records with equal cells, not equivalent ones.
    pub exact: bool,
    /// `grade`: search nested trial ([`crate::grade::Options::nested`]).
    pub nested: bool,
}

impl Default for TaskOptions {
    fn default() -> TaskOptions {
        TaskOptions {
            lexmin: false,
            limit: 2,
            unique: false,
            samples: 16,
            seed: 0,
            exact: false,
            nested: false,
        }
    }
}

impl TaskOptions {
    /// Sets `lexmin`.
    pub fn lexmin(mut self, yes: bool) -> Self {
        self.lexmin = yes;
        self
    }
    /// Sets `limit`.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = limit;
        self
    }
    /// Sets `unique`.
    pub fn unique(mut self, yes: bool) -> Self {
        self.unique = yes;
        self
    }
    /// Sets `samples`.
    pub fn samples(mut self, samples: u32) -> Self {
        self.samples = samples;
        self
    }
    /// Sets `seed`.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Sets `exact`.
    pub fn exact(mut self, yes: bool) -> Self {
        self.exact = yes;
        self
    }
    /// Sets `nested`.
    pub fn nested(mut self, yes: bool) -> Self {
        self.nested = yes;
        self
    }
}

impl Task {
    /// The task called `name` (one of [`TASK_NAMES`]) with its options taken from `options`.
    pub fn named(name: &str, options: TaskOptions) -> Result<Task, TaskError> {
        let o = options;
        Ok(match name {
            "solve" => Task::Solve { lexmin: o.lexmin },
            "count" if o.limit == 0 => return Err(TaskError::ZeroLimit),
            "count" => Task::Count { limit: o.limit },
            "check" => Task::Check { unique: o.unique },
            "canon" => Task::Canon,
            "rate" if o.samples == 0 => return Err(TaskError::ZeroSamples),
            "rate" => Task::Rate {
                samples: o.samples,
                seed: o.seed,
            },
            "grade" => Task::Grade { nested: o.nested },
            "dedupe" => Task::Dedupe { exact: o.exact },
            other => return Err(TaskError::Unknown(other.to_string())),
        })
    }

    /// The task's name, as the CLI's subcommand and the Python functions spell it
    /// (`grade --explain` for [`Task::Explain`], which is a flag of `grade`, not a task of its
    /// own there).
    pub fn name(self) -> &'static str {
        match self {
            Task::Solve { .. } => "solve",
            Task::Count { .. } => "count",
            Task::Check { .. } => "check",
            Task::Canon => "canon",
            Task::Rate { .. } => "rate",
            Task::Grade { .. } => "grade",
            Task::Explain { .. } => "grade --explain",
            Task::Dedupe { .. } => "dedupe",
        }
    }

    /// About the most input bytes one block holds for this task where nothing says how much
    /// input is left (a stream, a piece of text from a front end), and the least a block of a
    /// mapped file shrinks to towards its end, where that is less than a run's own choice (64
    /// KiB to 1 MiB): `grade`, `rate` and a `count` to a high limit spend up to milliseconds per
    /// record, so blocks of about fifty puzzle lines keep a file of a few hundred puzzles spread
    /// over every thread, and its last block short.
    pub(crate) fn block_limit(self) -> Option<usize> {
        self.is_slow().then_some(4 << 10)
    }

    /// The records one parallel job answers, as `(min, max)` for rayon's `with_min_len` and
    /// `with_max_len`: `fast_min` (enough records to pay for a job) and no maximum, except for
    /// `grade`, `rate` and a `count` to a high limit, which spend up to milliseconds per record.
    /// Rayon splits a batch only as deep as its threads need at the start, so on those tasks one
    /// thread could be left with a quarter of a batch while the others idled; jobs of at most 8
    /// records end together.
    pub fn job_len(self, fast_min: usize) -> (usize, usize) {
        if self.is_slow() {
            (1, 8)
        } else {
            (fast_min, usize::MAX)
        }
    }

    /// `grade` and `rate`, and `count` with a limit over [`SLOW_COUNT`]: up to milliseconds per
    /// record (a second or more for a count of millions), where the others take microseconds.
    fn is_slow(self) -> bool {
        match self {
            Task::Grade { .. } | Task::Explain { .. } | Task::Rate { .. } => true,
            Task::Count { limit } => limit > SLOW_COUNT,
            _ => false,
        }
    }

    /// Whether the output of a record is the record itself (kept or dropped), not an answer.
    pub fn filters(self) -> bool {
        matches!(self, Task::Dedupe { .. })
    }

    /// Whether the task writes its answer into an existing solution column rather than adding
    /// one (`solve`, whose answer is a solution).
    pub fn fills_solution_column(self) -> bool {
        matches!(self, Task::Solve { .. })
    }

    /// Whether the task reads the solution a record carries.
    pub fn needs_solution(self) -> bool {
        matches!(self, Task::Check { .. })
    }

    /// The columns the task adds to a table, before [`STATUS`] (which every task but `dedupe`
    /// adds too): `solution` (solve), `count`, `canonical` (canon), `rating` and `singles`
    /// (rate); `grade`, `se_estimate`, `hardest`, `steps`, `se_pearl` and `se_diamond` (grade);
    /// none for check (its verdict is the status), dedupe (its output is the kept records) and
    /// explain (its output is text). Solve fills an existing solution column in place instead of
    /// adding one.
    pub fn columns(self) -> &'static [Column] {
        const fn col(name: &'static str, kind: ColumnType) -> Column {
            Column { name, kind }
        }
        const SOLVE: [Column; 1] = [col("solution", ColumnType::Grid)];
        const COUNT: [Column; 1] = [col("count", ColumnType::Count)];
        const CANON: [Column; 1] = [col("canonical", ColumnType::Grid)];
        const RATE: [Column; 2] = [
            col("rating", ColumnType::Float),
            col("singles", ColumnType::Bool),
        ];
        const GRADE: [Column; 6] = [
            col("grade", ColumnType::Text),
            col("se_estimate", ColumnType::Float),
            col("hardest", ColumnType::Text),
            col("steps", ColumnType::Count),
            col("se_pearl", ColumnType::Float),
            col("se_diamond", ColumnType::Float),
        ];
        match self {
            Task::Solve { .. } => &SOLVE,
            Task::Grade { .. } => &GRADE,
            Task::Count { .. } => &COUNT,
            Task::Canon => &CANON,
            Task::Rate { .. } => &RATE,
            Task::Check { .. } | Task::Dedupe { .. } | Task::Explain { .. } => &[],
        }
    }

    /// Runs the task on a parsed puzzle: see [`answer`].
    pub fn answer(self, puzzle: &Grid, solution: Option<&[u8]>) -> Outcome {
        answer(self, puzzle, solution)
    }
}

impl std::fmt::Display for Task {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Task {
    type Err = TaskError;

    /// A task by name, with default options (`count` to 2, `rate` over 16 samples, seed 0).
    fn from_str(name: &str) -> Result<Task, TaskError> {
        Task::named(name, TaskOptions::default())
    }
}

/// One record to answer: its puzzle (or why it is not one) and, for `check`, the solution text
/// it carries. Format readers yield records; embedders build them (see [`crate::Engine`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record<'a> {
    /// The puzzle, or why the record is not one.
    pub puzzle: Result<Grid, Invalid>,
    /// The solution text the record carries (`check`).
    pub solution: Option<&'a [u8]>,
}

impl<'a> Record<'a> {
    /// A record of a puzzle already parsed (or the reason it could not be), with no solution.
    pub fn new(puzzle: Result<Grid, Invalid>) -> Record<'a> {
        Record {
            puzzle,
            solution: None,
        }
    }

    /// A record of puzzle text: 81 cells (`1`-`9`, blanks `0` or `.`), surrounding whitespace
    /// and leading byte-order marks ignored, as on a line of a text file (a column read from a
    /// file saved with a mark has it on its first value).
    pub fn parse(text: &[u8]) -> Record<'a> {
        Record::new(Grid::parse(crate::formats::text::trim(text)).map_err(Invalid::from))
    }

    /// The same record carrying `solution` (the text `check` verifies), surrounding whitespace
    /// and leading byte-order marks ignored, as for the puzzle.
    pub fn with_solution(self, solution: Option<&'a [u8]>) -> Record<'a> {
        Record {
            solution: solution.map(crate::formats::text::trim),
            ..self
        }
    }

    /// The record with its row's value of a solution column (a table's, a front end's array),
    /// or why that value is no solution text (a null: [`Invalid::NullSolution`]): the record is
    /// then invalid for that reason, unless its puzzle already is.
    pub fn with_solution_value(self, solution: Result<&'a [u8], Invalid>) -> Record<'a> {
        match solution {
            Ok(text) => self.with_solution(Some(text)),
            Err(why) => Record {
                puzzle: self.puzzle.and(Err(why)),
                solution: None,
            },
        }
    }

    /// Runs `task` on the record: [`answer`] on its puzzle, or the reason it is not one.
    #[inline]
    pub fn answer(&self, task: Task) -> Outcome {
        match &self.puzzle {
            Ok(grid) => answer(task, grid, self.solution),
            Err(invalid) => Outcome::Invalid(*invalid),
        }
    }

    /// [`Record::answer`] into `outcome`, whatever it held: for a loop over records, where
    /// `solve` writes each solution over the last one's (no grid cleared, none copied).
    #[inline(always)] // into the per-record loop: a call costs a record more than it saves
    pub(crate) fn answer_into(&self, task: Task, outcome: &mut Outcome) {
        match &self.puzzle {
            Ok(puzzle) => answer_puzzle_into(puzzle, self.solution, task, outcome),
            Err(invalid) => *outcome = Outcome::Invalid(*invalid),
        }
    }
}

/// [`Record::answer_into`] of a parsed puzzle and the solution text its record carries, if any.
#[inline(always)]
pub(crate) fn answer_puzzle_into(
    puzzle: &Grid,
    solution: Option<&[u8]>,
    task: Task,
    outcome: &mut Outcome,
) {
    match task {
        Task::Solve { lexmin: false } => solve_into(puzzle, outcome),
        _ => *outcome = answer_out_of_line(task, puzzle, solution),
    }
}

/// `solve` of `puzzle` into `outcome`. A found solution fills every cell, so a grid already
/// there is written over as it is.
#[inline(always)]
fn solve_into(puzzle: &Grid, outcome: &mut Outcome) {
    if !matches!(outcome, Outcome::Solved(_)) {
        *outcome = Outcome::Solved(Grid::EMPTY);
    }
    if let Outcome::Solved(solution) = outcome {
        if solver::solve_into(puzzle, solution) {
            return;
        }
    }
    *outcome = no_solution(puzzle, Outcome::Unsolvable);
}

/// Runs `task` on a parsed puzzle. `solution` is the solution text the record carries (`check`
/// only; `None` when it has none). Clashing givens are [`Invalid::Clash`], not unsolvable.
///
/// Clashing givens have no solution, so the clash check runs only when the search finds none: it
/// stays off the hot path of good records.
#[inline]
pub fn answer(task: Task, puzzle: &Grid, solution: Option<&[u8]>) -> Outcome {
    // `solve`, the task of most runs, is answered inline, its search writing the solution
    // straight into the outcome; the rest out of line. (The batch's per-record loop uses
    // `Record::answer_into`, which also keeps one outcome from record to record.)
    match task {
        Task::Solve { lexmin: false } => {
            let mut outcome = Outcome::Unsolvable;
            solve_into(puzzle, &mut outcome);
            outcome
        }
        _ => answer_out_of_line(task, puzzle, solution),
    }
}

/// [`answer`] for every task ([`answer`] itself takes `solve` without `lexmin`).
#[inline(never)]
fn answer_out_of_line(task: Task, puzzle: &Grid, solution: Option<&[u8]>) -> Outcome {
    match task {
        Task::Solve { lexmin } => {
            let solved = if lexmin {
                solver::lexmin(puzzle)
            } else {
                solver::solve(puzzle)
            };
            match solved.solution {
                Some(s) => Outcome::Solved(s),
                None => no_solution(puzzle, Outcome::Unsolvable),
            }
        }
        Task::Count { limit } => {
            // A limit of 0 (a variant built by hand, past `Task::named`) counts as 1.
            let limit = limit.max(1);
            match solver::count(puzzle, limit).solutions {
                0 => no_solution(
                    puzzle,
                    Outcome::Counted {
                        found: 0,
                        at_limit: false,
                    },
                ),
                found => Outcome::Counted {
                    found,
                    at_limit: found >= limit,
                },
            }
        }
        Task::Check { unique } => match solution {
            None => Outcome::Invalid(Invalid::NoSolution),
            Some(text) => verify(puzzle, text, unique),
        },
        // Equivalence classes and ratings are only meaningful for puzzles whose givens agree.
        Task::Canon | Task::Dedupe { .. } => {
            if let Some(clash) = puzzle.first_clash() {
                return Outcome::Invalid(Invalid::Clash(clash));
            }
            match task {
                Task::Dedupe { exact: true } => Outcome::Class(*puzzle),
                Task::Dedupe { exact: false } => {
                    Outcome::Class(canon::canonical_consistent(puzzle))
                }
                _ => Outcome::Canonical(canon::canonical_consistent(puzzle)),
            }
        }
        Task::Rate { samples, seed } => match rate::rate(puzzle, samples, seed) {
            Some(rating) => Outcome::Rated(rating),
            None => no_solution(puzzle, Outcome::Unsolvable),
        },
        Task::Grade { nested } | Task::Explain { nested } => {
            match grade::grade_with_options(puzzle, grade::Options { nested }) {
                Some(g) => Outcome::Graded(g),
                None => no_solution(puzzle, Outcome::Unsolvable),
            }
        }
    }
}

/// [`Task::Explain`] on one puzzle: appends the puzzle, its path (one numbered line per step),
/// its grade line and a blank line to `out`, or, for a puzzle without a solution, the puzzle,
/// its status line (`unsolvable`, or `invalid: givens clash: ...`) and a blank line.
pub(crate) fn explain_into(puzzle: &Grid, nested: bool, out: &mut Vec<u8>) -> Outcome {
    use std::io::Write as _;
    writeln!(out, "{puzzle}").expect("writing to memory");
    let mut n = 0;
    let mut line = |step: &grade::Step| {
        n += 1;
        writeln!(out, "{n:4}. {step}").expect("writing to memory");
    };
    let outcome = match grade::explain_with_options(puzzle, grade::Options { nested }, &mut line) {
        Some(g) => {
            writeln!(
                out,
                "grade: {:.1} {} {} ({} step{}; pearl {:.1}, diamond {:.1})",
                g.se_estimate(),
                g.band(),
                g.hardest_text(),
                g.steps,
                if g.steps == 1 { "" } else { "s" },
                g.se_pearl(),
                g.se_diamond()
            )
            .expect("writing to memory");
            Outcome::Graded(g)
        }
        None => {
            let outcome = no_solution(puzzle, Outcome::Unsolvable);
            outcome.write_line(out);
            outcome
        }
    };
    out.push(b'\n');
    outcome
}

/// The outcome of a puzzle the search found no solution for: invalid if its givens clash, else
/// `none` (unsolvable, or a count of 0).
#[cold]
fn no_solution(puzzle: &Grid, none: Outcome) -> Outcome {
    match puzzle.first_clash() {
        Some(clash) => Outcome::Invalid(Invalid::Clash(clash)),
        None => none,
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clash_names_unit() {
        let mut cells = [0u8; 81];
        cells[0] = 4;
        cells[10] = 4;
        let g = Grid::from_cells(cells).unwrap();
        let outcome = answer(Task::Solve { lexmin: false }, &g, None);
        let mut line = Vec::new();
        outcome.write_line(&mut line);
        assert_eq!(
            line,
            b"invalid: givens clash: digit 4 appears twice in box 1\n"
        );
        assert_eq!(
            answer(Task::Count { limit: 2 }, &g, None),
            Outcome::Invalid(Invalid::Clash(g.first_clash().unwrap()))
        );
    }

    #[test]
    fn names_round_trip_and_options_are_checked() {
        for name in TASK_NAMES {
            let task: Task = name.parse().unwrap();
            assert_eq!(task.to_string(), name);
        }
        assert_eq!(
            Task::named("count", TaskOptions::default().limit(0)),
            Err(TaskError::ZeroLimit)
        );
        assert_eq!(
            Task::named("rate", TaskOptions::default().samples(3).seed(9)),
            Ok(Task::Rate {
                samples: 3,
                seed: 9
            })
        );
        assert!(matches!("nope".parse::<Task>(), Err(TaskError::Unknown(_))));
    }

    #[test]
    fn records_built_by_hand_cannot_bypass_the_checks() {
        let p =
            b"53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let s =
            b"534678912672195348198342567859761423426853791713924856961537284287419635345286179";
        let record = Record::parse(p);
        // A zero limit built past `Task::named` counts as 1, never "0+ unsolvable".
        assert_eq!(
            record.answer(Task::Count { limit: 0 }),
            Outcome::Counted {
                found: 1,
                at_limit: true
            }
        );
        // A carried solution's surrounding whitespace is ignored, as a puzzle's is.
        let mut padded = b" ".to_vec();
        padded.extend_from_slice(s);
        padded.extend_from_slice(b"\r\n");
        let checked = record.with_solution(Some(&padded));
        assert_eq!(
            checked.answer(Task::Check { unique: true }),
            Outcome::Verified
        );
    }

    #[test]
    fn a_record_text_is_read_as_a_line_of_a_file_is() {
        let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let puzzle = Grid::parse(p.as_bytes()).unwrap();
        for text in [
            format!("\u{feff}{p}"),
            format!(" \u{feff}\t{p}\r\n"),
            format!("\u{feff}\u{feff}{p} "),
        ] {
            assert_eq!(
                Record::parse(text.as_bytes()).puzzle,
                Ok(puzzle),
                "{text:?}"
            );
        }
        // A mark anywhere but the start is a damaged record, as it is in a file: one character
        // too many.
        assert_eq!(
            Record::parse(format!("{p}\u{feff}").as_bytes()).puzzle,
            Err(Invalid::Parse(crate::grid::ParseError::Length {
                found: 82
            }))
        );
    }

    #[test]
    fn a_count_to_a_high_limit_is_a_slow_task() {
        let count = |limit| Task::Count { limit };
        assert_eq!(count(2).job_len(16), (16, usize::MAX));
        assert_eq!(count(SLOW_COUNT).block_limit(), None);
        assert_eq!(count(SLOW_COUNT + 1).job_len(16), (1, 8));
        assert_eq!(
            count(1_000_000).block_limit(),
            Task::Rate {
                samples: 16,
                seed: 0
            }
            .block_limit()
        );
    }

    #[test]
    fn columns_are_the_tables_result_columns() {
        let names = |t: Task| t.columns().iter().map(|c| c.name).collect::<Vec<_>>();
        assert_eq!(names(Task::default()), ["solution"]);
        assert_eq!(names("rate".parse().unwrap()), ["rating", "singles"]);
        assert!(names(Task::Check { unique: true }).is_empty());
        assert_eq!(
            names(Task::Grade { nested: false }),
            [
                "grade",
                "se_estimate",
                "hardest",
                "steps",
                "se_pearl",
                "se_diamond"
            ]
        );
    }
}
