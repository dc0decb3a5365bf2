//! Counts of outcomes over a run.

use super::Outcome;

/// Counts of outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
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
    /// `solve` filling a table's solution column in place: values it held that an answer
    /// replaced (empty values, and values equal to the answer, are not counted).
    #[serde(skip_serializing_if = "is_zero")]
    pub replaced: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
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
            | Outcome::Graded(_)
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

    /// Adds another tally's counts.
    pub fn add(&mut self, other: &Tally) {
        self.records += other.records;
        self.solved += other.solved;
        self.unsolvable += other.unsolvable;
        self.invalid += other.invalid;
        self.wrong += other.wrong;
        self.unique += other.unique;
        self.multiple += other.multiple;
        self.duplicates += other.duplicates;
        self.replaced += other.replaced;
    }

    /// Records that make the exit status 1.
    pub fn failed(&self) -> u64 {
        self.unsolvable + self.invalid + self.wrong
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Invalid;

    #[test]
    fn tally_counts_each_kind() {
        let mut t = Tally::default();
        for (found, at_limit) in [(1, false), (2, true), (0, false)] {
            t.count(&Outcome::Counted { found, at_limit });
        }
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
