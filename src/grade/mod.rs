//! Human-style grading: a logical solver that applies a fixed ladder of techniques, always the
//! easiest that makes progress, and scores the puzzle on the Sudoku Explainer (SE) scale.
//!
//! The ladder ([`Technique`], easiest first) is walked from the bottom at every round: the first
//! rung that finds anything applies *every* instance it finds in the current candidates at once
//! (each instance is one [`Step`]), then the walk starts again from the bottom. Because each rung
//! looks at the whole grid at once, the rounds, the steps, the hardest technique and the score
//! are a function of the puzzle's candidates alone, not of a cell order: every isomorph of a
//! puzzle gets the same [`Grade`].
//!
//! What the ladder cannot finish falls to *trial*: a candidate is assumed and the ladder (up to
//! the chains) run from there; a contradiction removes it. Trial that needs more than one level
//! of nesting is not searched: the grade then says "trial, depth 2 or more".
//!
//! Uniqueness techniques (unique rectangles, BUG+1) assume the puzzle has one solution; they are
//! used only when it has (the grader counts solutions when the ladder first reaches them; a
//! ladder that fills the grid without them has proved the puzzle unique), so puzzles with
//! several solutions are graded without them, and end in trial.
//!
//! Everything is on the stack: grading a record allocates nothing. A puzzle that reaches the
//! forcing chains or trial takes up to about 400 KiB of it, nested trial about 420 KiB (a
//! thread Rust starts has 2 MiB).

// Cells and digits index several tables at once: plain index loops read best.
#![allow(clippy::needless_range_loop)]

mod basic;
mod chains;
mod patterns;
mod wings;

use std::mem::MaybeUninit;

use crate::grid::{givens_mask, Grid, CELLS, UNITS};
use crate::solver;

/// The version of the grading figures: it changes only when a puzzle's `se_estimate`,
/// `se_pearl`, `se_diamond`, `hardest` or `grade` could change (a new technique, a different
/// score).
pub const GRADE_VERSION: u32 = 5;

/// A technique of the ladder, easiest first; see [`Technique::se`] for the scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
#[allow(missing_docs)] // `name` says what each is
pub enum Technique {
    FullHouse,
    HiddenSingleBox,
    HiddenSingle,
    DirectPointing,
    DirectClaiming,
    DirectHiddenPair,
    NakedSingle,
    DirectHiddenTriple,
    Pointing,
    Claiming,
    NakedPair,
    XWing,
    HiddenPair,
    NakedTriple,
    Swordfish,
    HiddenTriple,
    XyWing,
    XyzWing,
    UniqueRectangle,
    NakedQuad,
    Jellyfish,
    HiddenQuad,
    BugPlusOne,
    TurbotFish,
    SimpleColoring,
    XChain,
    XyChain,
    WWing,
    Aic,
    Nishio,
    FinnedXWing,
    FinnedSwordfish,
    FinnedJellyfish,
    AlsXz,
    AlsXyWing,
    DynamicForcingChain,
    TrialWithChains,
    TrialWithForcingChains,
    // Last: besides depth 1 (below the two above), trial stands for depth 2 and "3 or more",
    // which come after them, so that a tie of scores names trial.
    Trial,
}

impl Technique {
    /// Every technique, in ladder order.
    pub const ALL: [Technique; 39] = [
        Technique::FullHouse,
        Technique::HiddenSingleBox,
        Technique::HiddenSingle,
        Technique::DirectPointing,
        Technique::DirectClaiming,
        Technique::DirectHiddenPair,
        Technique::NakedSingle,
        Technique::DirectHiddenTriple,
        Technique::Pointing,
        Technique::Claiming,
        Technique::NakedPair,
        Technique::XWing,
        Technique::HiddenPair,
        Technique::NakedTriple,
        Technique::Swordfish,
        Technique::HiddenTriple,
        Technique::XyWing,
        Technique::XyzWing,
        Technique::UniqueRectangle,
        Technique::NakedQuad,
        Technique::Jellyfish,
        Technique::HiddenQuad,
        Technique::BugPlusOne,
        Technique::TurbotFish,
        Technique::SimpleColoring,
        Technique::XChain,
        Technique::XyChain,
        Technique::WWing,
        Technique::Aic,
        Technique::Nishio,
        Technique::FinnedXWing,
        Technique::FinnedSwordfish,
        Technique::FinnedJellyfish,
        Technique::AlsXz,
        Technique::AlsXyWing,
        Technique::DynamicForcingChain,
        Technique::TrialWithChains,
        Technique::TrialWithForcingChains,
        Technique::Trial,
    ];

    /// Whether the technique is a single: it places a digit and removes nothing (the
    /// techniques of the rungs that [`Rung::places_only`]).
    pub(crate) fn places_only(self) -> bool {
        use Technique::*;
        matches!(
            self,
            FullHouse | HiddenSingleBox | HiddenSingle | NakedSingle
        )
    }

    /// Whether the technique assumes candidates and follows them with other techniques
    /// (trial of any depth, and nested trial's levels): a grade whose hardest technique is one
    /// is in the `trial` band.
    pub fn is_trial(self) -> bool {
        matches!(
            self,
            Technique::Trial | Technique::TrialWithChains | Technique::TrialWithForcingChains
        )
    }

    /// The technique's name, as the `hardest` column and `--explain` show it.
    pub fn name(self) -> &'static str {
        use Technique::*;
        match self {
            FullHouse => "Full House",
            HiddenSingleBox => "Hidden Single (box)",
            HiddenSingle => "Hidden Single",
            DirectPointing => "Direct Pointing",
            DirectClaiming => "Direct Claiming",
            DirectHiddenPair => "Direct Hidden Pair",
            NakedSingle => "Naked Single",
            DirectHiddenTriple => "Direct Hidden Triple",
            Pointing => "Pointing",
            Claiming => "Claiming",
            NakedPair => "Naked Pair",
            XWing => "X-Wing",
            HiddenPair => "Hidden Pair",
            NakedTriple => "Naked Triple",
            Swordfish => "Swordfish",
            HiddenTriple => "Hidden Triple",
            XyWing => "XY-Wing",
            XyzWing => "XYZ-Wing",
            UniqueRectangle => "Unique Rectangle",
            NakedQuad => "Naked Quad",
            Jellyfish => "Jellyfish",
            HiddenQuad => "Hidden Quad",
            BugPlusOne => "BUG+1",
            TurbotFish => "Turbot Fish",
            FinnedXWing => "Finned X-Wing",
            FinnedSwordfish => "Finned Swordfish",
            FinnedJellyfish => "Finned Jellyfish",
            SimpleColoring => "Simple Coloring",
            XChain => "X-Chain",
            XyChain => "XY-Chain",
            WWing => "W-Wing",
            Aic => "AIC",
            AlsXz => "ALS-XZ",
            AlsXyWing => "ALS-XY-Wing",
            Nishio => "Nishio Forcing Chain",
            DynamicForcingChain => "Dynamic Forcing Chain",
            Trial => "Trial",
            TrialWithChains => "Trial with Chains",
            TrialWithForcingChains => "Trial with Forcing Chains",
        }
    }

    /// The technique's base score on the SE scale, in tenths (SE 1.2.1.3's figures, from the
    /// `getDifficulty()` of its hint classes; see `docs/grading.md`). Chains add to it with their
    /// length ([`length_tenths`]).
    pub fn se(self) -> u8 {
        use Technique::*;
        match self {
            FullHouse => 10,
            HiddenSingleBox => 12,
            HiddenSingle => 15,
            DirectPointing => 17,
            DirectClaiming => 19,
            DirectHiddenPair => 20,
            NakedSingle => 23,
            DirectHiddenTriple => 25,
            Pointing => 26,
            Claiming => 28,
            NakedPair => 30,
            XWing => 32,
            HiddenPair => 34,
            NakedTriple => 36,
            Swordfish => 38,
            HiddenTriple => 40,
            XyWing => 42,
            XyzWing => 44,
            UniqueRectangle => 45,
            NakedQuad => 50,
            Jellyfish => 52,
            HiddenQuad => 54,
            BugPlusOne => 56,
            TurbotFish | SimpleColoring | XChain | XyChain => 66,
            WWing | Aic => 70,
            Nishio | FinnedXWing | FinnedSwordfish | FinnedJellyfish => 75,
            AlsXz | AlsXyWing => 80,
            DynamicForcingChain => 85,
            Trial => 95,
            TrialWithChains => 102,
            TrialWithForcingChains => 111,
        }
    }
}

impl std::fmt::Display for Technique {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// SE's length add for a chain of `nodes` links' worth of candidates, in tenths: 0.1 for each of
/// the thresholds 4, 6, 8, 12, 16, 24, 32, ... (alternately times 3/2 and 4/3) that it exceeds.
pub fn length_tenths(nodes: u32) -> u8 {
    match LENGTH_TENTHS.get(nodes as usize) {
        Some(&add) => add,
        None => length_tenths_by_loop(nodes),
    }
}

/// [`length_tenths`] of the lengths chains usually have, by table: it is asked for at every
/// chain end.
const LENGTH_TENTHS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut n = 0;
    while n < 256 {
        t[n] = length_tenths_by_loop(n as u32);
        n += 1;
    }
    t
};

const fn length_tenths_by_loop(nodes: u32) -> u8 {
    let (mut ceil, mut add, mut odd) = (4u32, 0u8, false);
    while nodes > ceil {
        add += 1;
        ceil = if odd { ceil * 4 / 3 } else { ceil * 3 / 2 };
        odd = !odd;
    }
    add
}

/// One step of a solution path: a technique applied at one place, what it placed and what it
/// removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The technique.
    pub technique: Technique,
    /// Its score on the SE scale, in tenths (the technique's base plus a chain's length add).
    pub tenths: u8,
    /// A cell (0-80) and the digit (1-9) placed in it, if the step places one.
    pub place: Option<(u8, u8)>,
    /// The candidates removed: bit `c` of `eliminations[d - 1]` is digit `d` removed from cell
    /// `c`.
    pub eliminations: [u128; 9],
    /// The cells of the pattern (a subset, a fish's base cells, a chain's ends, an assumption).
    pub cells: u128,
    /// The digits of the pattern (bit `d - 1` for digit `d`).
    pub digits: u16,
    /// A chain's length in candidates, a trial's depth; 0 otherwise.
    pub length: u8,
    /// The unit of a single (0-8 rows, 9-17 columns, 18-26 boxes); `None` otherwise.
    pub unit: Option<u8>,
}

impl Step {
    fn new(technique: Technique) -> Step {
        Step {
            technique,
            tenths: technique.se(),
            place: None,
            eliminations: [0; 9],
            cells: 0,
            digits: 0,
            length: 0,
            unit: None,
        }
    }

    /// The step's score on the SE scale.
    pub fn se(&self) -> f64 {
        f64::from(self.tenths) / 10.0
    }

    /// The number of candidates the step removes.
    pub fn removed(&self) -> u32 {
        self.eliminations.iter().map(|m| m.count_ones()).sum()
    }
}

impl std::fmt::Display for Step {
    /// One line, as a hint system would show it: `Naked Pair (3.0): 3,7 in r1c2 r1c5; removes
    /// r1c4<>3, r1c8<>7`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:.1})", self.technique, self.se())?;
        if self.length > 0 {
            let what = if self.technique == Technique::Trial {
                "depth"
            } else {
                "length"
            };
            write!(f, " [{what} {}]", self.length)?;
        }
        let mut sep = ":";
        if self.digits != 0 {
            write!(f, "{sep} ")?;
            let mut first = true;
            for d in 0..9 {
                if self.digits >> d & 1 == 1 {
                    write!(f, "{}{}", if first { "" } else { "," }, d + 1)?;
                    first = false;
                }
            }
            sep = "";
            if self.cells != 0 {
                write!(f, " in")?;
            }
        }
        if self.cells != 0 {
            if sep == ":" {
                write!(f, ":")?;
            }
            for c in cells_of(self.cells) {
                write!(f, " r{}c{}", c / 9 + 1, c % 9 + 1)?;
            }
            sep = "";
        }
        let _ = sep;
        if let Some((cell, digit)) = self.place {
            let sep = if self.cells == 0 && self.digits == 0 {
                ":"
            } else {
                ";"
            };
            write!(
                f,
                "{sep} places {digit} in r{}c{}",
                cell / 9 + 1,
                cell % 9 + 1
            )?;
            if let Some(u) = self.unit {
                let kind = ["row", "column", "box"][usize::from(u / 9)];
                write!(f, " (the {kind}'s last place for {digit})")?;
            }
        }
        if self.removed() > 0 {
            write!(f, "; removes")?;
            let mut first = true;
            for (d, &m) in self.eliminations.iter().enumerate() {
                for c in cells_of(m) {
                    let comma = if first { "" } else { "," };
                    write!(f, "{comma} r{}c{}<>{}", c / 9 + 1, c % 9 + 1, d + 1)?;
                    first = false;
                }
            }
        }
        Ok(())
    }
}

/// The grade of one puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grade {
    /// The hardest technique the path used; `None` for a grid with no empty cell (no step).
    pub hardest: Option<Technique>,
    /// The SE-scale score, in tenths: the highest score of any step.
    pub tenths: u8,
    /// The number of steps of the path.
    pub steps: u32,
    /// The SE-scale pearl, in tenths: the highest score of the steps up to and including the
    /// first that places a digit (Sudoku Explainer's EP). Where the path places none, as when
    /// it stops at a trial it does not search, the whole path's score.
    pub pearl: u8,
    /// The SE-scale diamond, in tenths: the score of the first step (Sudoku Explainer's ED).
    pub diamond: u8,
    /// The depth of the path's deepest [`Technique::Trial`] step (1; 2; 3 meaning "3 or
    /// more"), where a standard grade (not [`Options::nested`]) does not search past 1 and says
    /// 2 for "2 or more"; 0 without one. Nested trial's other levels (`Trial with Chains`,
    /// `Trial with Forcing Chains`) do not count.
    pub trial_depth: u8,
    /// Whether the grade searched nested trial ([`Options::nested`], on a unique puzzle
    /// that needed it).
    pub nested: bool,
    /// Whether the puzzle has exactly one solution (uniqueness techniques were allowed).
    pub unique: bool,
}

impl Grade {
    /// The SE-scale estimate: the highest score of any step.
    pub fn se_estimate(&self) -> f64 {
        f64::from(self.tenths) / 10.0
    }

    /// The SE-scale pearl estimate: how hard it is to place the first digit (see
    /// [`Grade::pearl`]).
    pub fn se_pearl(&self) -> f64 {
        f64::from(self.pearl) / 10.0
    }

    /// The SE-scale diamond estimate: how hard the first step is (see [`Grade::diamond`]).
    pub fn se_diamond(&self) -> f64 {
        f64::from(self.diamond) / 10.0
    }

    /// The grade's band, by the SE estimate: `easy` (hidden singles and direct locked candidates,
    /// below 2.0), `medium` (below 2.6: naked singles, direct hidden subsets), `hard` (below 4.5:
    /// locked candidates, subsets, basic fish, XY- and XYZ-wings), `fiendish` (below 6.5:
    /// uniqueness, quads, jellyfish, BUG), `diabolical` (below 7.5: chains), `extreme` (forcing
    /// chains), `trial`.
    pub fn band(&self) -> &'static str {
        match self.tenths {
            _ if self.hardest.is_some_and(Technique::is_trial) => "trial",
            0..=19 => "easy",
            20..=25 => "medium",
            26..=44 => "hard",
            45..=64 => "fiendish",
            65..=74 => "diabolical",
            _ => "extreme",
        }
    }

    /// The hardest technique as the `hardest` column writes it: its name, for trial its depth
    /// (`Trial depth 1`, `Trial depth 2+`), and `none` for a grid that needs no step.
    pub fn hardest_text(&self) -> &'static str {
        match (self.hardest, self.trial_depth, self.nested) {
            (None, ..) => "none",
            (Some(Technique::Trial), 1, _) => "Trial depth 1",
            (Some(Technique::Trial), 2, false) => "Trial depth 2+",
            (Some(Technique::Trial), 2, true) => "Trial depth 2",
            (Some(Technique::Trial), ..) => "Trial depth 3+",
            (Some(t), ..) => t.name(),
        }
    }
}

/// How the ladder grades: [`Options::default`] is the standard grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Options {
    /// Where trial of depth 1 finds nothing, search nested trial: each candidate assumed and
    /// followed with the patterns and the chains inside the assumption (`Trial with Chains`),
    /// then with the forcing chains too (`Trial with Forcing Chains`), then with trial of depth 1
    /// (`Trial depth 2`), scored by the lowest-scoring contradiction at the first level that
    /// finds any, instead of stopping at `Trial depth 2+`. It ranks the hardest
    /// puzzles among themselves, at up to a second or two for each puzzle that needs it;
    /// puzzles that do not are graded as without it. Unique puzzles only: one with several
    /// solutions stops at `Trial depth 2+` either way.
    pub nested: bool,
}

/// Grades `puzzle`; `None` when it has no solution.
pub fn grade(puzzle: &Grid) -> Option<Grade> {
    ladder(puzzle, Options::default(), None, Solve::WhenNeeded)
}

/// Grades `puzzle` and returns its path too (for a hint system; this one allocates); `None` when
/// it has no solution.
pub fn explain(puzzle: &Grid) -> Option<(Grade, Vec<Step>)> {
    let mut steps = Vec::new();
    // Steps handed over before the puzzle is known to have no solution are dropped with the
    // vector.
    let grade = ladder(
        puzzle,
        Options::default(),
        Some(&mut |s| steps.push(*s)),
        Solve::WhenNeeded,
    )?;
    Some((grade, steps))
}

/// Grades `puzzle`, handing each step of the path to `step` in order; `None` when it has no
/// solution (then no step is handed over).
pub fn grade_with(puzzle: &Grid, step: &mut dyn FnMut(&Step)) -> Option<Grade> {
    ladder(puzzle, Options::default(), Some(step), Solve::First)
}

/// [`grade`] with `options`.
pub fn grade_with_options(puzzle: &Grid, options: Options) -> Option<Grade> {
    ladder(puzzle, options, None, Solve::WhenNeeded)
}

/// [`grade_with`] with `options`.
pub fn explain_with_options(
    puzzle: &Grid,
    options: Options,
    step: &mut dyn FnMut(&Step),
) -> Option<Grade> {
    ladder(puzzle, options, Some(step), Solve::First)
}

/// When the ladder asks the solver about the puzzle.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Solve {
    /// Before any step (a first solution), so that no step is handed over for a puzzle
    /// without a solution; the solutions are counted when needed, as below.
    First,
    /// When a rung first needs the answer: the uniqueness rungs once they find something (is
    /// the puzzle unique?) and the rungs that assume candidates (the solution); or when the
    /// board dies or a placement clashes, which happens only to a puzzle without a solution.
    /// A ladder that places every cell without them needs no solver: its steps are deductions
    /// that hold in every solution, and it ends on a full grid of checked placements, so that
    /// grid is the one solution.
    WhenNeeded,
}

/// The solver's answer about the graded puzzle, found when first asked for.
///
/// The solver is asked about the board the ladder has reached, with the cells it has placed
/// as givens: those placements hold in every solution of the puzzle, so that grid has the
/// puzzle's solutions, and no more branches to search than the puzzle itself.
struct Answer {
    /// Whether the puzzle is unique, once counted (`None` before: [`Answer::unique`] counts).
    counted: Option<bool>,
    /// Whether `known` holds a solution.
    solved: bool,
    /// A solution's cells, by digit, once the solver has run.
    known: [u128; 9],
}

impl Answer {
    /// Whether the puzzle is unique; `None` if it has no solution.
    #[inline]
    fn unique(&mut self, state: &State) -> Option<bool> {
        if self.counted.is_none() && !self.solve(state, 2) {
            return None;
        }
        self.counted
    }

    /// A solution, in `known`; `None` if the puzzle has none. Cheaper than [`Answer::unique`]:
    /// the search stops at the first solution.
    #[inline]
    fn solution(&mut self, state: &State) -> Option<()> {
        (self.solved || self.solve(state, 1)).then_some(())
    }

    /// Searches for up to `limit` solutions (1 or 2) of `state`'s placements: whether there is
    /// one.
    #[cold]
    #[inline(never)]
    fn solve(&mut self, state: &State, limit: u32) -> bool {
        let mut solution = Grid::EMPTY;
        let found = solver::count_into(&Grid::from_values(state.value), limit, &mut solution);
        if found == 0 {
            return false;
        }
        self.known = solution_by_digit(&solution);
        self.solved = true;
        if limit == 2 {
            self.counted = Some(found == 1);
        }
        true
    }
}

/// The ladder: each round, the rungs in order until one finds something; its steps are applied.
fn ladder(
    puzzle: &Grid,
    options: Options,
    step: Option<&mut dyn FnMut(&Step)>,
    solve: Solve,
) -> Option<Grade> {
    let mut answer = Answer {
        counted: None,
        solved: false,
        known: [0; 9],
    };
    let state = State::new(puzzle)?;
    if solve == Solve::First {
        answer.solution(&state)?;
    }
    let mut ladder = Ladder {
        state,
        answer,
        grade: Grade {
            hardest: None,
            tenths: 0,
            steps: 0,
            pearl: 0,
            diamond: 0,
            trial_depth: 0,
            nested: false,
            unique: true,
        },
        buf: Steps::new(),
        todo: Todo::everywhere(),
        options,
        step,
    };
    // Most puzzles never reach the dynamic forcing chains: the memory they keep from round to
    // round, a large part of a stack frame, is made only for those that do.
    if !ladder.rounds(None)? {
        with_dynamic_memo(&mut ladder)?;
    }
    Some(ladder.finish())
}

/// A ladder under way: the board, what the solver said, the grade so far.
struct Ladder<'a> {
    state: State,
    answer: Answer,
    grade: Grade,
    buf: Steps,
    todo: Todo,
    options: Options,
    /// Where each step goes, if anywhere.
    step: Option<&'a mut dyn FnMut(&Step)>,
}

#[cfg(test)]
thread_local! {
    /// The calls of [`basic::singles_closure`] (one a round) the ladders of this thread have
    /// made: the tests see that `grade` makes them where it may, and `grade_with` never.
    static CLOSURES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Runs `ladder`'s rounds with a [`chains::DynamicMemo`], in a frame of its own.
#[inline(never)]
fn with_dynamic_memo(ladder: &mut Ladder<'_>) -> Option<bool> {
    ladder.rounds(Some(&mut chains::DynamicMemo::new()))
}

impl Ladder<'_> {
    /// The rounds, until the grid is full or the ladder stops; `None` when the puzzle has no
    /// solution. `Some(false)` when a round reaches the dynamic forcing chains without `memo`:
    /// given one, the next call goes on from there.
    #[inline(always)]
    fn rounds(&mut self, mut memo: Option<&mut chains::DynamicMemo>) -> Option<bool> {
        const NONE_KNOWN: [u128; 9] = [0; 9];
        // Called with `memo` after a call without it stopped at the dynamic forcing chains:
        // that round goes on from there (every rung below found nothing).
        let mut skip_to_dynamic = memo.is_some();
        let Ladder {
            state,
            answer,
            grade,
            buf,
            todo,
            options,
            step,
        } = self;
        'rounds: while !state.solved() {
            buf.clear();
            // Most rounds place singles: the singles rungs run here, without the rungs'
            // machinery, and the loop below starts after them.
            if !skip_to_dynamic {
                // Once the grade scores a hidden single's 1.5 or more, no single raises it (full
                // houses and hidden singles in boxes score less, and no other technique scores
                // 1.5, so a tie leaves the hardest as it is): the rounds of singles change only
                // the board and the count of steps (see `basic::singles_closure`). Without steps
                // to hand on, the singles are placed at once, as many passes as it takes. (The
                // same for full houses and hidden singles in boxes, once the grade holds the
                // latter's score, took more instructions than their rounds.)
                let singles = if step.is_none() && grade.tenths >= Technique::HiddenSingle.se() {
                    #[cfg(test)]
                    CLOSURES.with(|n| n.set(n.get() + 1));
                    basic::singles_closure(state).map(|n| {
                        grade.steps += n;
                        if n > 0 {
                            grade.placed();
                        }
                        state.solved()
                    })
                } else {
                    singles_round(state, grade, step)
                };
                match singles {
                    Ok(true) => continue,
                    Ok(false) => {}
                    Err(Contradiction) => {
                        // As below: only on a puzzle without a solution.
                        answer.unique(state)?;
                        break;
                    }
                }
            }
            // Whether this round's board is known to be alive (see below): always, once the
            // puzzle is known to have a solution.
            let mut alive = answer.solved;
            for &rung in &Rung::ALL[SINGLES_RUNGS..] {
                if skip_to_dynamic {
                    if rung != Rung::Dynamic {
                        continue;
                    }
                    skip_to_dynamic = false;
                }
                let known = match rung {
                    // The ladder without them (`Rung::NOT_UNIQUE`) once the puzzle is known to have
                    // several solutions; until then, they are looked for, and what they find is
                    // kept only if the puzzle is unique (below).
                    Rung::UniqueRectangle | Rung::Bug if answer.counted == Some(false) => continue,
                    // A solution's cells, by digit: assuming one of its candidates can never end
                    // in a contradiction, so the rungs that assume each candidate in turn pass
                    // over them.
                    Rung::Nishio | Rung::Dynamic | Rung::Trial => {
                        answer.unique(state)?;
                        alive = true;
                        &answer.known
                    }
                    _ => &NONE_KNOWN,
                };
                if !alive && !rung.places_only() {
                    // Before the solver has run, the puzzle may have no solution, and then the
                    // board may die (a cell without a candidate, a digit without a place in a
                    // unit). The singles place on empty cells, checked, on any board; the other
                    // rungs are asked about live boards only, as inside trial.
                    if state.check().is_err() {
                        answer.unique(state)?;
                        break 'rounds; // sound steps never kill a board; stop rather than loop
                    }
                    alive = true;
                }
                match (rung, memo.as_deref_mut()) {
                    (Rung::Dynamic, Some(memo)) => chains::dynamic(state, known, memo, buf),
                    (Rung::Dynamic, None) => return Some(false),
                    _ => todo.run(state, rung, known, buf),
                }
                if !buf.is_empty() {
                    if matches!(rung, Rung::UniqueRectangle | Rung::Bug) && !answer.unique(state)? {
                        buf.clear();
                        continue;
                    }
                    break;
                }
            }
            // Nested trial, where asked for and the puzzle is unique (the solver has run: trial
            // needed it).
            let nested = buf.is_empty() && options.nested && answer.unique(state) == Some(true);
            if nested {
                chains::nested_trial(state, &answer.known, buf);
                grade.nested = true;
            }
            if buf.is_empty() {
                // Trial of a depth not searched: 2 or more, or with `nested`, 3 or more.
                let mut s = Step::new(Technique::Trial);
                s.length = if nested { 3 } else { 2 };
                s.tenths = if nested { TRIAL3_TENTHS } else { TRIAL2_TENTHS };
                grade.note(&s);
                grade.trial_depth = s.length;
                if let Some(step) = step {
                    step(&s);
                }
                break;
            }
            let mut take = |s: &Step| {
                grade.note(s);
                if s.place.is_some() {
                    grade.placed();
                }
                if s.technique == Technique::Trial {
                    grade.trial_depth = grade.trial_depth.max(s.length);
                }
                if let Some(step) = step {
                    step(s);
                }
            };
            let steps = buf.steps();
            // A round's steps are one rung's. The singles rungs skip the cells they placed this
            // round (`basic::Placed`); a pattern can be found in two of its units (a hidden pair
            // in a box and in the line its cells share), and is one step.
            if steps[0].technique.places_only() {
                steps.iter().for_each(take);
            } else {
                for (i, s) in steps.iter().enumerate() {
                    if !steps[..i].contains(s) {
                        take(s);
                    }
                }
            }
            if state.apply_unchecked(buf.steps()).is_err() {
                // A placement clashed: only on a puzzle without a solution.
                answer.unique(state)?;
                // Sound steps never clash; stop rather than loop.
                break;
            }
        }
        Some(true)
    }

    /// The grade, once the rounds are over.
    fn finish(self) -> Grade {
        let mut grade = self.grade;
        // Unless the solutions were counted, the ladder placed every cell with deductions
        // that hold in every solution: the puzzle is unique. (Every way it stops short counts
        // them: trial, a dead board, a clash.)
        grade.unique = self.answer.counted.unwrap_or(true);
        if grade.steps == 0 {
            // A full grid: nothing to do.
            grade.tenths = 0;
        }
        if grade.pearl == 0 {
            // No step placed a digit (or there was no step).
            grade.pearl = grade.tenths;
        }
        grade
    }
}

/// The ladder's first rungs, which [`singles_round`] runs.
const SINGLES_RUNGS: usize = 3;
const _: () = assert!(
    SINGLES_RUNGS == 3
        && matches!(Rung::ALL[0], Rung::FullHouse)
        && matches!(Rung::ALL[1], Rung::HiddenSingleBox)
        && matches!(Rung::ALL[2], Rung::HiddenSingle)
);

/// A round of the singles rungs (full house, then hidden singles in boxes, then in rows and
/// columns: the first that finds something), as the ladder's round runs it: the same steps,
/// noted and handed on in the same order, then placed. `Ok(false)` when none finds anything;
/// `Err` when a placement clashes (only on a puzzle without a solution), as in the ladder's
/// round.
#[inline(always)]
fn singles_round(
    state: &mut State,
    grade: &mut Grade,
    step: &mut Option<&mut dyn FnMut(&Step)>,
) -> Result<bool, Contradiction> {
    let mut found: Stack<basic::Single, CELLS> = Stack::new();
    let Some(technique) = basic::first_singles(state, &mut found) else {
        return Ok(false);
    };
    let found = found.as_slice();
    grade.note_as(technique, technique.se(), found.len() as u32);
    grade.placed();
    if let Some(step) = step {
        for f in found {
            let (c, d, u) = (
                usize::from(f.cell),
                usize::from(f.digit),
                usize::from(f.unit),
            );
            step(&basic::single_in(technique, c, d, u));
        }
    }
    for f in found {
        // Each cell of a round is empty (a full house's last cell, a hidden single's place)
        // and met once.
        state.place_in_empty(usize::from(f.cell), usize::from(f.digit))?;
    }
    Ok(true)
}

/// The cells of each digit in a full grid.
fn solution_by_digit(solution: &Grid) -> [u128; 9] {
    let mut known = [0u128; 9];
    for (c, &v) in solution.cells().iter().enumerate() {
        known[usize::from(v - 1)] |= 1u128 << c;
    }
    known
}

/// The score of a trial that needs two levels of nesting or more (not searched).
const TRIAL2_TENTHS: u8 = 105;
/// The score of a trial that needs three levels of nesting or more (not searched).
const TRIAL3_TENTHS: u8 = 120;

impl Grade {
    fn note(&mut self, s: &Step) {
        self.note_as(s.technique, s.tenths, 1);
    }

    /// Notes `n` steps of `technique` scoring `tenths`.
    fn note_as(&mut self, technique: Technique, tenths: u8, n: u32) {
        if self.steps == 0 {
            self.diamond = tenths;
        }
        self.steps += n;
        // The score decides, then the technique's place in the ladder: a technique with a
        // lower score never replaces the hardest. One comparison of (score, technique) keys.
        let key = |tenths: u8, t: Option<Technique>| {
            u16::from(tenths) << 8 | t.map_or(0, |t| t as u16 + 1)
        };
        if key(tenths, Some(technique)) > key(self.tenths, self.hardest) {
            self.tenths = tenths;
            self.hardest = Some(technique);
        }
    }

    /// Notes that the step just noted placed a digit: the first such step sets the pearl.
    /// (Every step scores at least 1.0, so 0 means not set yet.)
    fn placed(&mut self) {
        if self.pearl == 0 {
            self.pearl = self.tenths;
        }
    }
}

/// The rungs of the ladder: which families run, in order, and where trial stops.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Rung {
    FullHouse,
    HiddenSingleBox,
    HiddenSingle,
    DirectLocking,
    DirectHiddenPair,
    NakedSingle,
    DirectHiddenTriple,
    Locking,
    NakedPair,
    XWing,
    HiddenPair,
    NakedTriple,
    Swordfish,
    HiddenTriple,
    XyWing,
    XyzWing,
    UniqueRectangle,
    NakedQuad,
    Jellyfish,
    HiddenQuad,
    Bug,
    Chains,
    Nishio,
    Als,
    Dynamic,
    Trial,
    /// Trial's alone: the naked pairs, triples and quads in one search (an assumption's board
    /// needs only what they remove, in any order).
    NakedSets,
    /// Trial's alone: the hidden pairs, triples and quads in one search.
    HiddenSets,
    /// Trial's alone: X-Wing, Swordfish and Jellyfish in one search.
    Fish,
}

impl Rung {
    /// What the rung can skip on a board it has seen part of: see [`Todo`].
    const fn memory(self) -> Memory {
        match self {
            Rung::XWing
            | Rung::Swordfish
            | Rung::Jellyfish
            | Rung::DirectHiddenPair
            | Rung::DirectHiddenTriple
            | Rung::NakedPair
            | Rung::HiddenPair
            | Rung::NakedTriple
            | Rung::HiddenTriple
            | Rung::NakedQuad
            | Rung::HiddenQuad
            | Rung::NakedSets
            | Rung::HiddenSets
            | Rung::Fish
            | Rung::Locking
            | Rung::XyWing
            | Rung::XyzWing => Memory::Searched,
            Rung::Chains | Rung::Nishio | Rung::Als => Memory::Failed,
            _ => Memory::None,
        }
    }

    /// Whether the rung only places singles on empty cells (each placement checked), which
    /// is safe on any board.
    fn places_only(self) -> bool {
        matches!(
            self,
            Rung::FullHouse | Rung::HiddenSingleBox | Rung::HiddenSingle | Rung::NakedSingle
        )
    }

    /// The whole ladder.
    const ALL: &'static [Rung] = &[
        Rung::FullHouse,
        Rung::HiddenSingleBox,
        Rung::HiddenSingle,
        Rung::DirectLocking,
        Rung::DirectHiddenPair,
        Rung::NakedSingle,
        Rung::DirectHiddenTriple,
        Rung::Locking,
        Rung::NakedPair,
        Rung::XWing,
        Rung::HiddenPair,
        Rung::NakedTriple,
        Rung::Swordfish,
        Rung::HiddenTriple,
        Rung::XyWing,
        Rung::XyzWing,
        Rung::UniqueRectangle,
        Rung::NakedQuad,
        Rung::Jellyfish,
        Rung::HiddenQuad,
        Rung::Bug,
        Rung::Chains,
        Rung::Nishio,
        Rung::Als,
        Rung::Dynamic,
        Rung::Trial,
    ];
    /// The ladder without the uniqueness techniques.
    const NOT_UNIQUE: &'static [Rung] = &[
        Rung::FullHouse,
        Rung::HiddenSingleBox,
        Rung::HiddenSingle,
        Rung::DirectLocking,
        Rung::DirectHiddenPair,
        Rung::NakedSingle,
        Rung::DirectHiddenTriple,
        Rung::Locking,
        Rung::NakedPair,
        Rung::XWing,
        Rung::HiddenPair,
        Rung::NakedTriple,
        Rung::Swordfish,
        Rung::HiddenTriple,
        Rung::XyWing,
        Rung::XyzWing,
        Rung::NakedQuad,
        Rung::Jellyfish,
        Rung::HiddenQuad,
        Rung::Chains,
        Rung::Nishio,
        Rung::Als,
        Rung::Dynamic,
        Rung::Trial,
    ];
}

// `Rung::NOT_UNIQUE` is `Rung::ALL` without the uniqueness rungs, in the same order: the ladder
// of a puzzle that is not unique runs `Rung::ALL`, passing over them once they have found
// something and the count has shown it (what they found is dropped).
const _: () = {
    let (all, not_unique) = (Rung::ALL, Rung::NOT_UNIQUE);
    let (mut i, mut j) = (0, 0);
    while i < all.len() {
        if !matches!(all[i], Rung::UniqueRectangle | Rung::Bug) {
            assert!(j < not_unique.len() && all[i] as u8 == not_unique[j] as u8);
            j += 1;
        }
        i += 1;
    }
    assert!(j == not_unique.len());
};

/// Runs the rungs of `ladder` in order until one finds something (its steps are in `out`).
/// Returns whether any did.
pub(crate) fn run_rungs(state: &State, ladder: &[Rung], out: &mut Steps) -> bool {
    for &rung in ladder {
        run_rung(state, rung, out);
        if !out.is_empty() {
            return true;
        }
    }
    false
}

/// Runs one rung over the whole board, assuming any candidate: its steps join those already in
/// `out`.
pub(crate) fn run_rung(state: &State, rung: Rung, out: &mut Steps) {
    run_rung_in(state, rung, &Scope::ALL, &[0; 9], out);
}

/// Runs one rung where `scope` says it has still to look (see [`Todo`]), passing over the
/// candidates of `known` (a solution, by digit) where it assumes candidates; its steps join
/// those already in `out`.
fn run_rung_in(state: &State, rung: Rung, scope: &Scope, known: &[u128; 9], out: &mut Steps) {
    let Scope {
        cells,
        units,
        digits,
        ref removed,
    } = *scope;
    match rung {
        Rung::FullHouse => basic::full_house(state, out),
        Rung::HiddenSingleBox => basic::hidden_singles(state, true, out),
        Rung::HiddenSingle => basic::hidden_singles(state, false, out),
        Rung::DirectLocking => basic::direct_locking(state, out),
        Rung::DirectHiddenPair => basic::hidden_sets(state, 2, true, units, out),
        Rung::NakedSingle => basic::naked_singles(state, out),
        Rung::DirectHiddenTriple => basic::hidden_sets(state, 3, true, units, out),
        Rung::Locking => basic::locking_in(state, removed, out),
        Rung::NakedPair => basic::naked_sets(state, 2, units, out),
        Rung::XWing => basic::fish(state, 2, digits, out),
        Rung::HiddenPair => basic::hidden_sets(state, 2, false, units, out),
        Rung::NakedTriple => basic::naked_sets(state, 3, units, out),
        Rung::Swordfish => basic::fish(state, 3, digits, out),
        Rung::HiddenTriple => basic::hidden_sets(state, 3, false, units, out),
        Rung::XyWing => wings::xy_wing(state, cells, out),
        Rung::XyzWing => wings::xyz_wing(state, cells, out),
        Rung::UniqueRectangle => wings::unique_rectangles(state, out),
        Rung::NakedQuad => basic::naked_sets(state, 4, units, out),
        Rung::Jellyfish => basic::fish(state, 4, digits, out),
        Rung::HiddenQuad => basic::hidden_sets(state, 4, false, units, out),
        Rung::Bug => wings::bug_plus_one(state, out),
        Rung::Chains => chains::chains(state, removed, out),
        Rung::Nishio => chains::nishio(state, known, digits, out),
        Rung::Als => patterns::als(state, cells, out),
        Rung::Dynamic => chains::dynamic_once(state, known, out),
        Rung::Trial => chains::trial(state, known, out),
        Rung::NakedSets => basic::naked_sets_sized(state, 2, 4, units, out),
        Rung::HiddenSets => basic::hidden_sets_sized(state, 2, 4, false, units, out),
        Rung::Fish => basic::fish_sized(state, 2, 4, digits, out),
    }
}

/// The singles rungs, which trial's assumptions find all at once (`basic::all_singles`).
#[cfg(test)]
pub(crate) const SINGLE_RUNGS: [Rung; 4] = [
    Rung::FullHouse,
    Rung::HiddenSingleBox,
    Rung::HiddenSingle,
    Rung::NakedSingle,
];

/// The number of rungs.
const RUNGS: usize = Rung::Fish as usize + 1;

/// Every rung by its number: the ladder, then trial's own.
const KINDS: [Rung; RUNGS] = {
    let mut kinds = [Rung::NakedSets; RUNGS];
    let mut r = 0;
    while r < Rung::ALL.len() {
        kinds[r] = Rung::ALL[r];
        r += 1;
    }
    kinds[Rung::NakedSets as usize] = Rung::NakedSets;
    kinds[Rung::HiddenSets as usize] = Rung::HiddenSets;
    kinds[Rung::Fish as usize] = Rung::Fish;
    kinds
};
// `Todo::searched` reads a rung's kind from `KINDS` by its number.
const _: () = {
    assert!(Rung::ALL.len() == Rung::Trial as usize + 1);
    let mut r = 0;
    while r < RUNGS {
        assert!(KINDS[r] as usize == r);
        r += 1;
    }
};

/// Where the rungs have still to look for something new, as the board changes.
///
/// - A subset, basic fish, locked candidates or XY/XYZ-Wing rung that has searched a board (and
///   recorded all it found, which was applied) finds nothing new until the board changes where
///   it looks: a subset lies in one unit and removes only from it, a fish is of one digit, a
///   locked candidate of a digit in a box or line, a wing of its three cells
///   ([`Memory::Searched`]). Locked candidates look for claiming only where pointing found
///   nothing: after pointing finds something, they have not searched the board.
/// - A chain, Nishio or almost locked set rung that has found nothing on a board finds nothing
///   on a later board (a board with fewer candidates) from a pattern whose candidates have not
///   changed: the pattern, and every removal it proves, was there before. So it looks only at
///   patterns that touch a change: chains through a strong link that is new (a cell or a
///   unit that lost candidates down to two), Nishio of the digits that changed, pairs and wings
///   of almost locked sets with a cell that changed ([`Memory::Failed`]). Not after it
///   found something: it applies only the lowest-scoring of what it finds, and the rest is
///   still there to find.
///
/// Each rung keeps the board it last looked at that way (not updated at every round: most
/// rounds place singles, and those rungs run in few of them). Every other rung runs over the
/// whole board whenever it is reached. The boards are kept once each, however many rungs saw
/// them (a round's rungs all see the same one), and so is the scope last worked out: the rungs
/// of a round mostly ask for the same.
pub(crate) struct Todo {
    /// The boards some rung has seen (candidates by digit), each once.
    boards: Stack<[u128; 9], BOARDS>,
    /// Per rung: the board in `boards` it can skip the unchanged part of, or [`UNSEEN`].
    seen: [u8; RUNGS],
    /// The scope last worked out, and between which boards (in `boards`).
    scope: Scope,
    scope_of: (u8, u8),
}

/// A rung that has seen no board it can use (see [`Todo`]).
const UNSEEN: u8 = u8::MAX;
/// The most boards a [`Todo`] keeps before it drops those no rung refers to any more: more than
/// the rungs with memory, so that the board of the round always finds room.
const BOARDS: usize = 24;
const _: () = {
    let (mut r, mut remembering) = (0, 0);
    while r < RUNGS {
        remembering += !matches!(KINDS[r].memory(), Memory::None) as usize;
        r += 1;
    }
    assert!(remembering < BOARDS);
};

/// What a rung can skip on a board it has seen: see [`Todo`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Memory {
    /// Whatever it last found (it applies all of it): the unchanged units, digits or cells.
    Searched,
    /// When it last found nothing: the patterns whose candidates have not changed.
    Failed,
    /// Nothing.
    None,
}

/// Where a rung looks: the cells, units (bit `u` for unit `u`) and digits (bit `d` for digit
/// `d + 1`) whose candidates changed since a board it has seen.
#[derive(Clone, Copy)]
pub(crate) struct Scope {
    cells: u128,
    units: u32,
    digits: u16,
    /// The candidates removed, by digit (bit `c` of `removed[d]`: digit `d + 1` left cell `c`).
    removed: [u128; 9],
}

impl Scope {
    /// The whole board.
    const ALL: Scope = Scope {
        cells: ALL_CELLS,
        units: (1 << 27) - 1,
        digits: 0x1ff,
        removed: [ALL_CELLS; 9],
    };
}

impl Todo {
    /// No rung has searched anything yet. (Not a constant: a constant is copied whole, with
    /// `boards`' unwritten bytes.)
    #[inline(always)]
    pub(crate) fn everywhere() -> Todo {
        Todo {
            boards: Stack::new(),
            seen: [UNSEEN; RUNGS],
            scope: Scope::ALL,
            scope_of: (UNSEEN, UNSEEN),
        }
    }

    /// Every rung that remembers what it searched (subsets, fish, locked candidates, wings) has
    /// searched `state` and found nothing: the board of a trial, which runs only where every
    /// lower rung has failed.
    #[inline(always)]
    pub(crate) fn searched(state: &State) -> Todo {
        let mut todo = Todo::everywhere();
        todo.boards.push(state.digits);
        todo.seen = std::array::from_fn(|r| match KINDS[r].memory() {
            Memory::Searched => 0,
            _ => UNSEEN,
        });
        todo
    }

    /// Runs `rung` where it has still to look, passing over the candidates of `known` where it
    /// assumes candidates; its steps join those in `out`.
    pub(crate) fn run(&mut self, state: &State, rung: Rung, known: &[u128; 9], out: &mut Steps) {
        let memory = rung.memory();
        if memory == Memory::None {
            return run_rung_in(state, rung, &Scope::ALL, known, out);
        }
        let now = self.board(state);
        let seen = self.seen[rung as usize];
        let before = out.len();
        if seen == UNSEEN {
            run_rung_in(state, rung, &Scope::ALL, known, out);
        } else {
            if self.scope_of != (seen, now) {
                self.scope = changes(&self.boards.as_slice()[usize::from(seen)], &state.digits);
                self.scope_of = (seen, now);
            }
            run_rung_in(state, rung, &self.scope, known, out);
        }
        // What it saw is done with: all of it was recorded (unless `out` filled up, when some
        // went unrecorded), or nothing was found in it. Locking seeks claiming only where it
        // found no pointing: after finding pointing, it has not searched the board.
        let searched = || {
            out.len() < STEPS
                && (rung != Rung::Locking
                    || !out.steps()[before..]
                        .iter()
                        .any(|s| s.technique == Technique::Pointing))
        };
        let done = match memory {
            Memory::Searched => searched(),
            _ => out.len() == before,
        };
        self.seen[rung as usize] = if done { now } else { UNSEEN };
    }

    /// `state`'s board in `boards`, added if it is new (a board is only ever followed by boards
    /// with fewer candidates, so a new one differs from the last).
    fn board(&mut self, state: &State) -> u8 {
        let boards = self.boards.as_slice();
        if let Some(last) = boards.last() {
            // Not `==`, which calls `memcmp`.
            if last.iter().zip(&state.digits).all(|(a, b)| a == b) {
                return (boards.len() - 1) as u8;
            }
        }
        if self.boards.len() == BOARDS {
            self.keep_seen();
        }
        self.boards.push(state.digits);
        (self.boards.len() - 1) as u8
    }

    /// Drops the boards no rung refers to.
    fn keep_seen(&mut self) {
        let mut kept = Stack::new();
        let mut to = [UNSEEN; BOARDS];
        for seen in self.seen.iter_mut().filter(|s| **s != UNSEEN) {
            let from = usize::from(*seen);
            if to[from] == UNSEEN {
                to[from] = kept.len() as u8;
                kept.push(self.boards.as_slice()[from]);
            }
            *seen = to[from];
        }
        self.boards = kept;
        self.scope_of = (UNSEEN, UNSEEN);
    }
}

/// The cells with at least one, two, three, four and five candidates, from the candidates by
/// digit: bit-sliced counts, every cell at once (inlined, so a count no caller reads is not
/// computed).
#[inline(always)]
pub(crate) fn candidate_counts(digits: &[u128; 9]) -> [u128; 5] {
    let (mut one, mut two, mut three, mut four, mut five) = (0u128, 0u128, 0u128, 0u128, 0u128);
    for &m in digits {
        five |= four & m;
        four |= three & m;
        three |= two & m;
        two |= one & m;
        one |= m;
    }
    [one, two, three, four, five]
}

/// The units holding a cell of `cells` (bit `u` for unit `u`): rows from the cells' nine-bit
/// rows, columns from their union, boxes from each band's.
#[inline(always)]
pub(crate) fn units_of(cells: u128) -> u32 {
    let (mut rows, mut columns, mut boxes) = (0u32, 0u32, 0u32);
    for b in 0..3 {
        let mut band = 0u32;
        for r in 3 * b..3 * b + 3 {
            let row = (cells >> (9 * r)) as u32 & 0x1ff;
            rows |= u32::from(row != 0) << r;
            band |= row;
        }
        columns |= band;
        for k in 0..3 {
            boxes |= u32::from(band >> (3 * k) & 7 != 0) << (3 * b + k);
        }
    }
    rows | columns << 9 | boxes << 18
}

/// Where two boards of one puzzle, given by digit, differ. A value placed takes its cell's
/// candidates, so it changes the cell's units too.
fn changes(before: &[u128; 9], after: &[u128; 9]) -> Scope {
    let (mut cells, mut digits) = (0u128, 0u16);
    let removed: [u128; 9] = std::array::from_fn(|d| before[d] ^ after[d]);
    for (d, &moved) in removed.iter().enumerate() {
        cells |= moved;
        digits |= u16::from(moved != 0) << d;
    }
    if cells == 0 {
        return Scope {
            cells,
            units: 0,
            digits,
            removed,
        };
    }
    Scope {
        cells,
        units: units_of(cells),
        digits,
        removed,
    }
}

/// A list of at most `N` values on the stack that only grows (or is emptied): unlike an
/// array, making one writes nothing, so a large one costs nothing until it is filled. The
/// searches keep their sets, queues and steps in these.
pub(crate) struct Stack<T: Copy, const N: usize> {
    buf: [MaybeUninit<T>; N],
    /// Written only by `push`, `push_copies` and `clear`: the unsafe reads below rely on it
    /// counting written
    /// entries only (the grading modules can see it, and none touches it).
    len: usize,
}

impl<T: Copy, const N: usize> Stack<T, N> {
    pub(crate) const fn new() -> Self {
        Stack {
            buf: [const { MaybeUninit::uninit() }; N],
            len: 0,
        }
    }
    /// Appends `value`; panics when full (callers size `N` for the most a board can need).
    pub(crate) fn push(&mut self, value: T) {
        self.buf[self.len].write(value);
        self.len += 1;
    }
    /// Appends `n` copies of `value` in one fill (a `memset` for zeros); panics past `N`.
    pub(crate) fn push_copies(&mut self, value: T, n: usize) {
        self.buf[self.len..self.len + n].fill(MaybeUninit::new(value));
        self.len += n;
    }
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: the first `len` entries are written (`push` and `push_copies` write entries
        // before counting them), and `MaybeUninit<T>` has `T`'s layout.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr().cast::<T>(), self.len) }
    }
    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast::<T>(), self.len) }
    }
}

/// The steps one rung found, on the stack (a buffer is made for every puzzle and every trial).
pub(crate) struct Steps(Stack<Step, STEPS>);

/// The most steps one rung records in one round (more are found in the next round).
const STEPS: usize = 96;

impl Steps {
    pub(crate) const fn new() -> Steps {
        Steps(Stack::new())
    }
    /// Records a step if no step recorded has a lower score, dropping those with a higher one:
    /// the buffer keeps the lowest-scoring steps only (what a rung that competes on score
    /// applies), however many steps of higher scores are found first.
    pub(crate) fn keep_lowest(&mut self, step: Step) {
        if let Some(first) = self.steps().first() {
            if step.tenths > first.tenths {
                return;
            }
            if step.tenths < first.tenths {
                self.clear();
            }
        }
        self.push(step);
    }
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub(crate) fn steps(&self) -> &[Step] {
        self.0.as_slice()
    }
    /// Records a step. When the buffer is full, a step's removals join the last step's (so
    /// what a round removes never depends on the order its steps were found in) and a step
    /// that places is left for the next round.
    pub(crate) fn push(&mut self, step: Step) {
        if self.len() < STEPS {
            return self.0.push(step);
        }
        if step.place.is_none() {
            let last = &mut self.0.as_mut_slice()[STEPS - 1];
            for (e, m) in last.eliminations.iter_mut().zip(step.eliminations) {
                *e |= m;
            }
            last.tenths = last.tenths.max(step.tenths);
            last.technique = last.technique.max(step.technique);
        }
    }
}

/// A board of the logical solver: the values placed and the candidates of the empty cells.
#[derive(Clone, Copy)]
pub(crate) struct State {
    /// Candidates of each cell (bit `d` for digit `d + 1`); 0 for a filled cell.
    pub(crate) cand: [u16; CELLS],
    /// Values, 0 for empty.
    pub(crate) value: [u8; CELLS],
    /// The digits placed in each unit (bit `d` for digit `d + 1`).
    pub(crate) units: [u16; 27],
    /// The candidate cells of each digit: `cand` by digit, kept in step with it, since every
    /// rung reads the board this way.
    pub(crate) digits: [u128; 9],
    /// The number of empty cells.
    open: u8,
}

/// A contradiction: a cell with no candidate, a digit with no place in a unit, or a digit twice
/// in a unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Contradiction;

/// The cells of each unit as a bitset.
pub(crate) const UNIT_MASK: [u128; 27] = {
    let mut m = [0u128; 27];
    let mut u = 0;
    while u < 27 {
        let mut i = 0;
        while i < 9 {
            m[u] |= 1u128 << UNITS[u][i];
            i += 1;
        }
        u += 1;
    }
    m
};

/// Every cell of the grid.
const ALL_CELLS: u128 = (1 << CELLS) - 1;

/// Whether a set has exactly one member. Cheaper than `count_ones() == 1` on the baseline
/// x86-64 target, which has no `popcnt` instruction.
pub(crate) fn is_single(m: u128) -> bool {
    m != 0 && m & (m - 1) == 0
}

/// The number of digits in a candidate mask (nine bits), by the solver's table: see
/// [`is_single`].
pub(crate) fn digit_count(m: u16) -> u32 {
    u32::from(solver::ROW_COUNT[usize::from(m & 0x1ff)])
}

pub(crate) use crate::grid::CELL_UNITS;

/// The 20 peers of each cell as a bitset.
pub(crate) const PEERS: [u128; CELLS] = {
    let mut p = [0u128; CELLS];
    let mut c = 0;
    while c < CELLS {
        let u = CELL_UNITS[c];
        p[c] = (UNIT_MASK[u[0] as usize] | UNIT_MASK[u[1] as usize] | UNIT_MASK[u[2] as usize])
            & !(1u128 << c);
        c += 1;
    }
    p
};

/// The 20 peers of each cell, as cell numbers.
const PEER_CELLS: [[u8; 20]; CELLS] = {
    let mut p = [[0u8; 20]; CELLS];
    let mut c = 0;
    while c < CELLS {
        let (mut e, mut k) = (0, 0);
        while e < CELLS {
            if PEERS[c] >> e & 1 == 1 {
                p[c][k] = e as u8;
                k += 1;
            }
            e += 1;
        }
        assert!(k == 20);
        c += 1;
    }
    p
};

/// The cells of a bitset, lowest first.
pub(crate) fn cells_of(mut m: u128) -> impl Iterator<Item = usize> {
    // 128-bit steps: more instructions than a word at a time, but no branch from the low word
    // to the high one, which most walks mispredicted.
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            c
        })
    })
}

/// The bits of a set of units (bit `u` for unit `u`), in increasing order.
pub(crate) fn bits_of(mut m: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (m != 0).then(|| {
            let u = m.trailing_zeros() as usize;
            m &= m - 1;
            u
        })
    })
}

/// The digits (0-8) of a candidate mask, lowest first.
pub(crate) fn digits_of(mut m: u16) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if m == 0 {
            None
        } else {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            Some(d)
        }
    })
}

impl State {
    /// The board of a puzzle's givens with every candidate they allow; `None` if two givens
    /// clash.
    pub(crate) fn new(puzzle: &Grid) -> Option<State> {
        // Built in one pass over the givens, not by placing them one by one: every grade
        // starts here, and on easy puzzles the givens are about half the placements.
        let value = *puzzle.cells();
        let filled = givens_mask(&value);
        let mut units = [0u16; 27];
        let mut digits = [ALL_CELLS; 9];
        let mut open = CELLS as u8;
        for c in cells_of(filled) {
            let v = value[c];
            let bit = 1u16 << (v - 1);
            let [a, b, x] = CELL_UNITS[c].map(usize::from);
            if (units[a] | units[b] | units[x]) & bit != 0 {
                return None; // a peer holds it already
            }
            units[a] |= bit;
            units[b] |= bit;
            units[x] |= bit;
            digits[usize::from(v - 1)] &= !PEERS[c];
            open -= 1;
        }
        for m in &mut digits {
            *m &= !filled;
        }
        // Row by row, each cell's row, column and box from the loop's indices: the compiler
        // then computes many cells at once, where a table lookup of each cell's units did not.
        let mut cand = [0u16; CELLS];
        for r in 0..9 {
            for k in 0..9 {
                let c = 9 * r + k;
                let free = 0x1ff & !(units[r] | units[9 + k] | units[18 + r / 3 * 3 + k / 3]);
                cand[c] = if value[c] == 0 { free } else { 0 };
            }
        }
        Some(State {
            cand,
            value,
            units,
            digits,
            open,
        })
    }

    /// Places digit `d` (0-8) in cell `c`, removing it from the peers.
    pub(crate) fn place(&mut self, c: usize, d: usize) -> Result<(), Contradiction> {
        if self.value[c] != 0 {
            return if usize::from(self.value[c]) == d + 1 {
                Ok(())
            } else {
                Err(Contradiction)
            };
        }
        // A peer holding `d` would have removed it from this cell; the units say so directly.
        let placed_in_units = CELL_UNITS[c]
            .iter()
            .fold(0, |a, &u| a | self.units[usize::from(u)]);
        if (self.cand[c] & !placed_in_units) >> d & 1 == 0 {
            return Err(Contradiction);
        }
        self.place_in_empty(c, d)
    }

    /// Places digit `d` (0-8) in cell `c`, which is empty: `Err` where `d` is not a candidate
    /// there. The singles' way: [`State::place`] without its checks of the cell and its units,
    /// which a placement in an empty cell does not need (a peer holding `d` took it from the
    /// cell's candidates).
    #[inline(always)]
    pub(crate) fn place_in_empty(&mut self, c: usize, d: usize) -> Result<(), Contradiction> {
        debug_assert_eq!(self.value[c], 0);
        if self.cand[c] >> d & 1 == 0 {
            return Err(Contradiction);
        }
        self.value[c] = d as u8 + 1;
        self.open -= 1;
        // Every digit at once: cheaper than a loop over the cell's candidates.
        let bit = !(1u128 << c);
        for m in &mut self.digits {
            *m &= bit;
        }
        self.cand[c] = 0;
        for &u in &CELL_UNITS[c] {
            self.units[usize::from(u)] |= 1 << d;
        }
        // From all 20 peers, whether they hold `d` or not: a loop of fixed length, where one
        // over the peers that hold it ended on a mispredicted branch.
        let bit = !(1u16 << d);
        for &p in &PEER_CELLS[c] {
            self.cand[usize::from(p)] &= bit;
        }
        self.digits[d] &= !PEERS[c];
        Ok(())
    }

    /// Removes digit `d` (0-8) from the candidates of the cells of `cells`.
    pub(crate) fn remove(&mut self, d: usize, cells: u128) {
        let bit = !(1u16 << d);
        for c in cells_of(cells & self.digits[d]) {
            self.cand[c] &= bit;
        }
        self.digits[d] &= !cells;
    }

    /// The cells already holding digit `d` (0-8).
    pub(crate) fn placed_mask(&self, d: usize) -> u128 {
        let mut m = 0u128;
        for c in 0..CELLS {
            m |= u128::from(self.value[c] == d as u8 + 1) << c;
        }
        m
    }

    pub(crate) fn solved(&self) -> bool {
        self.open == 0
    }

    /// Applies steps found on this same board: removals first, then placements; then checks
    /// the board (see [`State::check`]).
    pub(crate) fn apply(&mut self, steps: &[Step]) -> Result<(), Contradiction> {
        self.apply_unchecked(steps)?;
        self.check()
    }

    /// Applies steps found on this same board, checking only the placements: for the graded
    /// puzzle itself, whose steps are sound (the tests check every one against the solution).
    #[inline(always)] // the ladder applies every round's steps: a call there costs ~0.5%
    pub(crate) fn apply_unchecked(&mut self, steps: &[Step]) -> Result<(), Contradiction> {
        for s in steps {
            // Most steps are singles, which remove nothing: their technique says so without
            // reading the nine removal masks (a single is built without removals, and one
            // per cell never fills the buffer, whose last slot alone merges steps).
            if s.technique.places_only() {
                debug_assert_eq!(s.eliminations, [0; 9], "{s:?}");
                continue;
            }
            for (d, &m) in s.eliminations.iter().enumerate() {
                if m != 0 {
                    self.remove(d, m);
                }
            }
        }
        for s in steps {
            if let Some((c, d)) = s.place {
                self.place(usize::from(c), usize::from(d - 1))?;
            }
        }
        Ok(())
    }

    /// Whether the board is still consistent: every empty cell has a candidate, every digit a
    /// place or a value in every unit.
    #[inline(never)] // keeps the unit sums inlined where the singles rungs use them
    pub(crate) fn check(&self) -> Result<(), Contradiction> {
        // Candidates are of empty cells only: every one has some exactly when they cover
        // `open` cells.
        let covered = self.digits.iter().fold(0u128, |a, &m| a | m);
        if covered.count_ones() != u32::from(self.open) {
            return Err(Contradiction);
        }
        match basic::unit_digits(&self.cand, basic::Units::All).dead(&self.units) {
            true => Err(Contradiction),
            false => Ok(()),
        }
    }

    /// The grid of the values placed.
    pub(crate) fn grid(&self) -> Grid {
        Grid::from_cells(self.value).expect("values are 0-9")
    }
}

/// The values the logical solver reaches on `puzzle` without trial (for tests): the grid after
/// the ladder, stopped where it would need trial.
pub fn logical_fill(puzzle: &Grid) -> Option<Grid> {
    let mut state = State::new(puzzle)?;
    let unique = solver::count(puzzle, 2).solutions == 1;
    let top = if unique { Rung::ALL } else { Rung::NOT_UNIQUE };
    let mut buf = Steps::new();
    while !state.solved() {
        buf.clear();
        run_rungs(&state, top, &mut buf);
        if buf.is_empty() || state.apply(buf.steps()).is_err() {
            break;
        }
    }
    Some(state.grid())
}

/// The first `n` puzzles of public set `file`, from `SUDOKU_DATA_DIR` (for the tests that need
/// the public sets).
#[cfg(test)]
pub(crate) fn public_puzzles(file: &str, n: usize) -> Vec<Grid> {
    let dir = std::env::var("SUDOKU_DATA_DIR").expect("SUDOKU_DATA_DIR names the public sets");
    let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("a public set");
    text.lines()
        .filter(|l| !l.starts_with('#') && l.len() >= 81)
        .take(n)
        .map(|l| l[..81].parse().expect("a puzzle"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path as the ladder walks it with every rung searching the whole board every round
    /// (no [`Todo`]): what `grade_with` must reproduce step for step.
    fn unscoped_path(puzzle: &Grid) -> Vec<Step> {
        let unique = solver::count(puzzle, 2).solutions == 1;
        let top = if unique { Rung::ALL } else { Rung::NOT_UNIQUE };
        let mut state = State::new(puzzle).expect("no clash");
        let (mut buf, mut path) = (Steps::new(), Vec::new());
        while !state.solved() {
            buf.clear();
            if !run_rungs(&state, top, &mut buf) {
                path.push(Step::new(Technique::Trial)); // depth 2 or more: compared by kind
                break;
            }
            // Each step once in a round, as the ladder hands them over.
            let round = path.len();
            for s in buf.steps() {
                if !path[round..].contains(s) {
                    path.push(*s);
                }
            }
            state.apply_unchecked(buf.steps()).expect("sound steps");
        }
        path
    }

    fn same_paths(puzzles: impl Iterator<Item = Grid>) -> usize {
        let mut steps = 0;
        for p in puzzles {
            let (_, path) = explain(&p).expect("a solution");
            let reference = unscoped_path(&p);
            assert_eq!(path.len(), reference.len(), "{p}");
            for (i, (a, b)) in path.iter().zip(&reference).enumerate() {
                let last_trial = i + 1 == path.len() && b.technique == Technique::Trial;
                if last_trial && b.eliminations == [0; 9] {
                    assert_eq!((a.technique, a.length), (Technique::Trial, 2), "{p}");
                } else {
                    assert_eq!(a, b, "{p}: step {}", i + 1);
                }
            }
            steps += path.len();
        }
        steps
    }

    /// `State::new` builds the board from the givens at once; placing them one by one on the
    /// empty board must give the same board, and a clash must refuse the grid both ways.
    #[test]
    fn a_new_board_is_the_empty_board_with_the_givens_placed() {
        let compare = |grid: &Grid| -> bool {
            let mut placed = State::new(&Grid::EMPTY).expect("no givens");
            let by_placing = grid
                .cells()
                .iter()
                .enumerate()
                .filter(|&(_, &v)| v != 0)
                .try_for_each(|(c, &v)| placed.place(c, usize::from(v - 1)))
                .map(|()| placed);
            match (State::new(grid), by_placing) {
                (None, Err(_)) => false,
                (Some(a), Ok(b)) => {
                    assert_eq!(
                        (a.cand, a.value, a.units, a.digits, a.open),
                        (b.cand, b.value, b.units, b.digits, b.open),
                        "{grid}"
                    );
                    true
                }
                (a, b) => panic!("{grid}: new {} placing {}", a.is_some(), b.is_ok()),
            }
        };
        // The empty board itself, spelled out.
        let empty = State::new(&Grid::EMPTY).expect("no givens");
        assert_eq!((empty.open, empty.digits), (81, [ALL_CELLS; 9]));
        assert!(empty.cand.iter().all(|&m| m == 0x1ff) && empty.units == [0; 27]);

        let mut rng = crate::rng::SplitMix64(25);
        let (mut clashing, mut kept) = (0, 0);
        for _ in 0..20_000 {
            // 0 to about 40 givens at random: many grids clash, some do not.
            let dense = rng.next_u64() % 6;
            let cells = std::array::from_fn(|_| match rng.next_u64() % 12 {
                x if x <= dense => (rng.next_u64() % 9 + 1) as u8,
                _ => 0,
            });
            match compare(&Grid::from_cells(cells).expect("digits")) {
                true => kept += 1,
                false => clashing += 1,
            }
        }
        assert!(
            clashing > 1000 && kept > 1000,
            "{clashing} clashing, {kept} kept"
        );
        // Solution grids, and puzzles of about 36 givens from them (the common easy puzzle).
        for seed in 0..200 {
            let solution = crate::generate::random_solution_from(seed);
            assert!(compare(&Grid::from_cells(solution).expect("digits")));
            let puzzle = solution.map(|v| if rng.next_u64() % 9 < 4 { v } else { 0 });
            assert!(compare(&Grid::from_cells(puzzle).expect("digits")));
        }
    }

    #[test]
    fn rungs_that_look_only_where_the_board_changed_take_the_same_path() {
        // Every shipped minimal puzzle: the harder among them reach the chains, Nishio and the
        // almost locked sets again after they found nothing.
        let text = include_str!("../../data/generated_minimal_2000.txt");
        let puzzles = text.lines().map(|l| l.parse().expect("a puzzle"));
        assert!(same_paths(puzzles) > 60_000);
    }

    #[test]
    #[ignore = "needs SUDOKU_DATA_DIR"]
    fn rungs_that_look_only_where_the_board_changed_take_the_same_path_on_public_puzzles() {
        for (file, n) in [
            ("puzzles2_17_clue", 300),
            ("puzzles3_magictour_top1465", 300),
            ("puzzles6_forum_hardest_1106", 40),
            ("puzzles7_serg_benchmark", 40),
        ] {
            let steps = same_paths(public_puzzles(file, n).into_iter());
            assert!(steps > n, "{file}: {steps} steps");
        }
    }

    #[test]
    #[ignore = "needs SUDOKU_DATA_DIR"]
    fn singles_placed_at_once_grade_as_rounds_of_singles_on_public_puzzles() {
        // `grade` places the singles at once once the grade holds a hidden single's score;
        // `grade_with`, which hands the steps on, keeps to the rounds: the same grade and count
        // of steps, on every set (17-clue puzzles need hidden singles in rows and columns early,
        // and reach the rungs above the singles a few times each).
        let (mut at_once, mut closures) = (0, 0);
        for (file, n) in [
            ("puzzles2_17_clue", 3000),
            ("puzzles3_magictour_top1465", 300),
            ("puzzles5_forum_hardest_1905_11+", 40),
            ("puzzles6_forum_hardest_1106", 40),
            ("puzzles7_serg_benchmark", 300),
        ] {
            for p in public_puzzles(file, n) {
                let before = CLOSURES.with(|n| n.get());
                let rounds = grade_with(&p, &mut |_| {});
                let between = CLOSURES.with(|n| n.get());
                let g = grade(&p);
                assert_eq!(g, rounds, "{file}: {p}");
                assert_eq!(
                    between, before,
                    "{file}: {p}: grade_with placed singles at once"
                );
                let ran = CLOSURES.with(|n| n.get()) - between;
                // The round that first takes the grade to 1.5 or more leaves cells to fill on
                // every puzzle here (one that filled the grid would need every empty cell to be
                // a hidden single in a row or column at once, and none in a box or a unit's
                // last cell).
                let at_15 =
                    g.is_some_and(|g| g.tenths >= 15 && g.hardest != Some(Technique::Trial));
                assert!(!at_15 || ran > 0, "{file}: {p}: no pass of singles at once");
                at_once += usize::from(at_15);
                closures += ran;
            }
        }
        assert!(at_once > 3000 && closures > at_once, "{at_once} {closures}");
    }

    #[test]
    fn solving_when_needed_grades_as_solving_first() {
        // Each shipped minimal puzzle as it is (unique), with a given dropped (several solutions:
        // the puzzle is minimal), and with a wrong given added that clashes with none (no solution: the
        // solution is unique and has another digit there). The ladder that asks the solver
        // only when a rung needs it must give the same grade, the same path and `None` alike;
        // `grade`, which hands no step on, places the singles at once where it can (see
        // `basic::singles_closure`), and must give the same grade as the ladder that keeps to
        // rounds of singles, which `grade_with` does.
        let text = include_str!("../../data/generated_minimal_2000.txt");
        let (mut none, mut several, mut past_singles, mut at_once) = (0, 0, 0, 0);
        for (i, line) in text.lines().take(600).enumerate() {
            let p: Grid = line.parse().expect("a puzzle");
            let mut solution = Grid::EMPTY;
            assert_eq!(solver::count_into(&p, 2, &mut solution), 1, "{p}");
            let cells = p.cells();
            let givens: Vec<usize> = (0..CELLS).filter(|&c| cells[c] != 0).collect();
            let mut dropped = *cells;
            dropped[givens[i % givens.len()]] = 0;
            let mut wrong = *cells;
            'add: for k in 0..CELLS {
                let c = (i * 7 + k * 13) % CELLS;
                if wrong[c] != 0 {
                    continue;
                }
                for d in 1..=9u8 {
                    let clash = (0..CELLS).any(|e| PEERS[c] >> e & 1 == 1 && cells[e] == d);
                    if d != solution.cells()[c] && !clash {
                        wrong[c] = d;
                        break 'add;
                    }
                }
            }
            for cells in [*cells, dropped, wrong] {
                let q = Grid::from_cells(cells).expect("digits");
                let mut first = Vec::new();
                let before = CLOSURES.with(|n| n.get());
                let eager = grade_with(&q, &mut |s| first.push(*s));
                let lazy = explain(&q);
                assert_eq!(CLOSURES.with(|n| n.get()), before, "{q}: placed at once");
                assert_eq!(grade(&q), eager, "{q}");
                at_once += CLOSURES.with(|n| n.get()) - before;
                match (eager, lazy) {
                    (None, None) => {
                        none += 1;
                        assert!(first.is_empty(), "{q}");
                        // How far the ladder gets before it learns there is no solution.
                        let mut state = State::new(&q).expect("no clash");
                        let mut buf = Steps::new();
                        let singles = [
                            Rung::FullHouse,
                            Rung::HiddenSingleBox,
                            Rung::HiddenSingle,
                            Rung::NakedSingle,
                        ];
                        while !state.solved() && state.check().is_ok() {
                            buf.clear();
                            if !run_rungs(&state, &singles, &mut buf)
                                || state.apply_unchecked(buf.steps()).is_err()
                            {
                                break;
                            }
                        }
                        past_singles += usize::from(state.check().is_ok() && !state.solved());
                    }
                    (Some(g), Some((h, path))) => {
                        assert_eq!((g, &first), (h, &path), "{q}");
                        assert_eq!(g.unique, solver::count(&q, 2).solutions == 1, "{q}");
                        // A puzzle with several solutions gets no uniqueness step.
                        let uniqueness = |s: &Step| {
                            matches!(
                                s.technique,
                                Technique::UniqueRectangle | Technique::BugPlusOne
                            )
                        };
                        assert!(g.unique || !path.iter().any(uniqueness), "{q}");
                        several += usize::from(!g.unique);
                    }
                    (eager, lazy) => panic!("{q}: {eager:?} but {:?}", lazy.map(|l| l.0)),
                }
            }
        }
        // Both kinds of puzzle the solver settles late are there in numbers.
        assert!(none == 600 && several == 600, "{none} {several}");
        // Some puzzles without a solution stay alive past the singles.
        assert!(past_singles > 20, "{past_singles}");
        // `grade` placed singles at once where it could.
        assert!(at_once > 600, "{at_once}");
    }

    #[test]
    fn a_todo_keeps_the_board_each_rung_saw_when_it_drops_the_others() {
        // A board losing one candidate a round, over more rounds than a `Todo` keeps boards;
        // rungs see them at different rounds, some never again.
        let puzzle: Grid =
            "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
                .parse()
                .expect("a puzzle");
        let mut state = State::new(&puzzle).expect("no clash");
        let mut todo = Todo::everywhere();
        let mut saw: [Option<[u128; 9]>; RUNGS] = [None; RUNGS];
        let candidates: Vec<(usize, usize)> = (0..CELLS)
            .flat_map(|c| digits_of(state.cand[c]).map(move |d| (c, d)))
            .collect();
        for (round, &(c, d)) in candidates.iter().take(6 * BOARDS).enumerate() {
            state.remove(d, 1u128 << c);
            let now = todo.board(&state);
            assert_eq!(todo.board(&state), now, "the same board is kept once");
            let remembering = |&r: &usize| KINDS[r].memory() != Memory::None;
            for r in (0..RUNGS)
                .filter(remembering)
                .filter(|r| round % (r + 2) == 0)
            {
                todo.seen[r] = now;
                saw[r] = Some(state.digits);
            }
            for r in 0..RUNGS {
                let kept = (todo.seen[r] != UNSEEN)
                    .then(|| todo.boards.as_slice()[usize::from(todo.seen[r])]);
                assert_eq!(kept, saw[r], "rung {r} at round {round}");
            }
        }
    }

    #[test]
    fn length_adds_follow_se_thresholds() {
        let adds: Vec<u8> = [4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 25]
            .map(length_tenths)
            .into();
        assert_eq!(adds, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]);
    }

    #[test]
    fn tables() {
        assert_eq!(PEERS[0].count_ones(), 20);
        assert_eq!(PEERS[40].count_ones(), 20);
        assert_eq!(CELL_UNITS[80], [8, 17, 26]);
        let mut sorted = Technique::ALL;
        sorted.sort();
        assert_eq!(sorted, Technique::ALL);
        // Trial's base is depth 1's; its deeper levels score above the nested ones.
        let (last, rest) = Technique::ALL.split_last().unwrap();
        assert_eq!(*last, Technique::Trial);
        for w in rest.windows(2) {
            assert!(w[0].se() <= w[1].se(), "{:?} {:?}", w[0], w[1]);
        }
    }
}
