//! XY-Wing, XYZ-Wing, and the uniqueness techniques (unique rectangles, BUG+1).

use super::{
    candidate_counts, cells_of, digit_count, digits_of, State, Step, Steps, Technique, CELL_UNITS,
    PEERS, UNIT_MASK,
};
use crate::grid::CELLS;

/// XY-Wing: a pivot `xy` seeing pincers `xz` and `yz`; `z` goes from the cells seeing both
/// pincers. Only wings with a cell of `changed` are sought (see [`wing`]).
pub(super) fn xy_wing(s: &State, changed: u128, out: &mut Steps) {
    wing(s, false, changed, out)
}

/// XYZ-Wing: a pivot `xyz` seeing pincers `xz` and `yz`; `z` goes from the cells seeing all
/// three. Only wings with a cell of `changed` are sought (see [`wing`]).
pub(super) fn xyz_wing(s: &State, changed: u128, out: &mut Steps) {
    wing(s, true, changed, out)
}

/// The wings with at least one of their three cells in `changed`: one whose cells hold the same
/// candidates as on a board searched before was found there, with every removal it makes (see
/// [`super::Todo`]).
fn wing(s: &State, xyz: bool, changed: u128, out: &mut Steps) {
    let masks = &s.digits;
    let [_, two, three, four, _] = candidate_counts(masks);
    let bivalue = two & !three;
    let pivots = if xyz { three & !four } else { bivalue };
    for p in cells_of(pivots) {
        let pc = s.cand[p];
        let wings = bivalue & PEERS[p];
        let fresh = |cell: usize, cells: u128| match changed >> cell & 1 {
            1 => cells,
            _ => cells & changed,
        };
        if fresh(p, wings) == 0 {
            continue;
        }
        for a in cells_of(wings) {
            let ac = s.cand[a];
            // The first pincer shares exactly one digit with the pivot (XY) or is inside it (XYZ).
            let shared = ac & pc;
            if (xyz && shared != ac) || (!xyz && digit_count(shared) != 1) {
                continue;
            }
            let later = wings & !((2u128 << a) - 1);
            let later = match changed >> p & 1 {
                1 => later,
                _ => fresh(a, later),
            };
            for b in cells_of(later) {
                let bc = s.cand[b];
                let (z, ok) = if xyz {
                    let z = ac & bc;
                    (
                        z,
                        bc & pc == bc && ac != bc && digit_count(z) == 1 && ac | bc == pc,
                    )
                } else {
                    let z = ac & bc;
                    let ok = digit_count(z) == 1
                        && z & pc == 0
                        && (ac | bc) & pc == pc
                        && (ac ^ bc) == pc;
                    (z, ok)
                };
                if !ok {
                    continue;
                }
                let d = z.trailing_zeros() as usize;
                let mut seen = PEERS[a] & PEERS[b];
                if xyz {
                    seen &= PEERS[p];
                }
                let elim = masks[d] & seen & !(1u128 << p);
                if elim == 0 {
                    continue;
                }
                let mut step = Step::new(if xyz {
                    Technique::XyzWing
                } else {
                    Technique::XyWing
                });
                step.eliminations[d] = elim;
                step.cells = 1u128 << p | 1u128 << a | 1u128 << b;
                step.digits = pc | ac | bc;
                out.push(step);
            }
        }
    }
}

/// Unique rectangles of types 1, 2 and 4 (the puzzle has one solution): four cells in two rows,
/// two columns and two boxes that would otherwise be left with the same two candidates, which
/// would allow two solutions.
pub(super) fn unique_rectangles(s: &State, out: &mut Steps) {
    let masks = &s.digits;
    // Every rectangle that makes a step has two cells or more left with just its two digits:
    // only the rectangles through two cells with the same two candidates are looked at, in
    // table order.
    let [_, two, three, ..] = candidate_counts(masks);
    let bivalue = two & !three;
    let mut todo = [0u64; RECTANGLE_COUNT.div_ceil(64)];
    for x in cells_of(bivalue) {
        for y in cells_of(bivalue & !((2u128 << x) - 1)) {
            if s.cand[x] == s.cand[y] {
                mark_rectangles(x, y, &mut todo);
            }
        }
    }
    for (w, &word) in todo.iter().enumerate() {
        let mut word = word;
        while word != 0 {
            let n = w * 64 + word.trailing_zeros() as usize;
            word &= word - 1;
            unique_rectangle(s, masks, n, out);
        }
    }
}

/// Marks in `todo` the rectangles (by their index in [`RECTANGLES`]) with corners `x` and `y`.
fn mark_rectangles(x: usize, y: usize, todo: &mut [u64]) {
    let (rx, cx, ry, cy) = (x / 9, x % 9, y / 9, y % 9);
    let mut mark = |r1: usize, r2: usize, c1: usize, c2: usize| {
        let n = RECTANGLE_AT[LINE_PAIR[r1.min(r2) * 9 + r1.max(r2)] as usize]
            [LINE_PAIR[c1.min(c2) * 9 + c1.max(c2)] as usize];
        if n != NO_RECTANGLE {
            todo[usize::from(n) / 64] |= 1 << (n % 64);
        }
    };
    if rx == ry {
        (0..9)
            .filter(|&r| r != rx)
            .for_each(|r| mark(rx, r, cx, cy));
    } else if cx == cy {
        (0..9)
            .filter(|&c| c != cx)
            .for_each(|c| mark(rx, ry, cx, c));
    } else {
        mark(rx, ry, cx, cy);
    }
}

/// Rectangle `n` of [`RECTANGLES`], for every pair of digits its cells share.
fn unique_rectangle(s: &State, masks: &[u128; 9], n: usize, out: &mut Steps) {
    let cells = RECTANGLES[n].map(usize::from);
    if cells.iter().any(|&c| s.value[c] != 0) {
        return;
    }
    let common = cells.iter().fold(0x1ff, |a, &c| a & s.cand[c]);
    for a in digits_of(common) {
        for b in digits_of(common & !((2u16 << a) - 1)) {
            let pair = 1u16 << a | 1 << b;
            rectangle(s, masks, cells, pair, out);
        }
    }
}

/// The number of rectangles that span exactly two boxes: two rows of a band and two columns
/// of different stacks, or two columns of a stack and two rows of different bands.
const RECTANGLE_COUNT: usize = 2 * 9 * 27;

/// Which of [`RECTANGLES`] has lines `i < j` (as `LINE_PAIR[i * 9 + j]`) for its rows and
/// another pair for its columns, or [`NO_RECTANGLE`].
const RECTANGLE_AT: [[u16; 36]; 36] = {
    let mut t = [[NO_RECTANGLE; 36]; 36];
    let mut n = 0;
    while n < RECTANGLE_COUNT {
        let [a, b, c, _] = RECTANGLES[n];
        let (r1, r2, c1, c2) = (
            a as usize / 9,
            c as usize / 9,
            a as usize % 9,
            b as usize % 9,
        );
        t[LINE_PAIR[r1 * 9 + r2] as usize][LINE_PAIR[c1 * 9 + c2] as usize] = n as u16;
        n += 1;
    }
    t
};

/// Two rows or two columns that make no rectangle of [`RECTANGLES`] (it would span one box or
/// four).
const NO_RECTANGLE: u16 = u16::MAX;

/// A number for each pair of lines `i < j` of the same kind, at `i * 9 + j`: 0 to 35.
const LINE_PAIR: [u8; 81] = {
    let mut t = [u8::MAX; 81];
    let (mut n, mut i) = (0, 0);
    while i < 9 {
        let mut j = i + 1;
        while j < 9 {
            t[i * 9 + j] = n;
            n += 1;
            j += 1;
        }
        i += 1;
    }
    t
};

/// The four cells of every rectangle spanning two boxes, in the order rows, then columns, are
/// chosen (`r1 < r2`, `c1 < c2`): corners `r1c1`, `r1c2`, `r2c1`, `r2c2`.
const RECTANGLES: [[u8; 4]; RECTANGLE_COUNT] = {
    let mut t = [[0u8; 4]; RECTANGLE_COUNT];
    let mut n = 0;
    let mut r1 = 0;
    while r1 < 9 {
        let mut r2 = r1 + 1;
        while r2 < 9 {
            let mut c1 = 0;
            while c1 < 9 {
                let mut c2 = c1 + 1;
                while c2 < 9 {
                    if (r1 / 3 == r2 / 3) != (c1 / 3 == c2 / 3) {
                        t[n] = [r1 * 9 + c1, r1 * 9 + c2, r2 * 9 + c1, r2 * 9 + c2];
                        n += 1;
                    }
                    c2 += 1;
                }
                c1 += 1;
            }
            r2 += 1;
        }
        r1 += 1;
    }
    assert!(n == RECTANGLE_COUNT);
    t
};

fn rectangle(s: &State, masks: &[u128; 9], cells: [usize; 4], pair: u16, out: &mut Steps) {
    let exact: Vec4 = Vec4::of(cells, |c| s.cand[c] == pair);
    let all = cells.iter().fold(0u128, |a, &c| a | 1u128 << c);
    let mut step = Step::new(Technique::UniqueRectangle);
    step.cells = all;
    step.digits = pair;
    match exact.count {
        3 => {
            // Type 1: the fourth cell cannot be either digit.
            let c = exact.others[0];
            for d in digits_of(pair) {
                step.eliminations[d] |= 1u128 << c;
            }
        }
        2 => {
            let (r1, r2) = (exact.others[0], exact.others[1]);
            let (e1, e2) = (s.cand[r1] & !pair, s.cand[r2] & !pair);
            if e1 == e2 && digit_count(e1) == 1 {
                // Type 2: one of the two roof cells holds the extra digit.
                let d = e1.trailing_zeros() as usize;
                step.eliminations[d] = masks[d] & PEERS[r1] & PEERS[r2];
            }
            // Type 4: a digit of the pair confined to the roof cells in a unit they share: the
            // other digit goes from both.
            let roof = 1u128 << r1 | 1u128 << r2;
            for &u in &CELL_UNITS[r1] {
                if UNIT_MASK[usize::from(u)] & roof != roof {
                    continue;
                }
                for d in digits_of(pair) {
                    if masks[d] & UNIT_MASK[usize::from(u)] == roof {
                        let other = (pair & !(1 << d)).trailing_zeros() as usize;
                        step.eliminations[other] |= roof;
                    }
                }
            }
        }
        _ => return,
    }
    if step.removed() > 0 {
        out.push(step);
    }
}

/// Which of four cells pass a test, and the others.
struct Vec4 {
    count: usize,
    others: [usize; 4],
}

impl Vec4 {
    fn of(cells: [usize; 4], test: impl Fn(usize) -> bool) -> Vec4 {
        let mut v = Vec4 {
            count: 0,
            others: [0; 4],
        };
        let mut k = 0;
        for c in cells {
            if test(c) {
                v.count += 1;
            } else {
                v.others[k] = c;
                k += 1;
            }
        }
        v
    }
}

/// BUG+1 (the puzzle has one solution): every empty cell has two candidates but one, which has
/// three; the digit that would otherwise appear three times in its units goes there.
pub(super) fn bug_plus_one(s: &State, out: &mut Steps) {
    let mut triple = None;
    for c in 0..CELLS {
        match digit_count(s.cand[c]) {
            0 | 2 => {}
            3 if triple.is_none() => triple = Some(c),
            _ => return,
        }
    }
    let Some(c) = triple else { return };
    let masks = &s.digits;
    for d in digits_of(s.cand[c]) {
        let three = CELL_UNITS[c]
            .iter()
            .all(|&u| (masks[d] & UNIT_MASK[usize::from(u)]).count_ones() == 3);
        if three {
            let mut step = Step::new(Technique::BugPlusOne);
            step.place = Some((c as u8, d as u8 + 1));
            step.cells = 1u128 << c;
            out.push(step);
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::grid::Grid;

    /// [`unique_rectangles`] as it was first written: every rectangle, every pair of digits its
    /// cells share.
    fn every_rectangle(s: &State, out: &mut Steps) {
        for r in &RECTANGLES {
            let cells = r.map(usize::from);
            if cells.iter().any(|&c| s.value[c] != 0) {
                continue;
            }
            let common = cells.iter().fold(0x1ff, |a, &c| a & s.cand[c]);
            for a in digits_of(common) {
                for b in digits_of(common & !((2u16 << a) - 1)) {
                    rectangle(s, &s.digits, cells, 1 << a | 1 << b, out);
                }
            }
        }
    }

    /// `mark_rectangles` marks exactly the rectangles with both cells as corners: same row,
    /// same column and diagonal, for every pair of cells.
    #[test]
    fn the_rectangles_marked_for_two_cells_are_those_through_both() {
        for x in 0..CELLS {
            for y in x + 1..CELLS {
                let mut marked = [0u64; RECTANGLE_COUNT.div_ceil(64)];
                mark_rectangles(x, y, &mut marked);
                for (n, r) in RECTANGLES.iter().enumerate() {
                    let through = r.contains(&(x as u8)) && r.contains(&(y as u8));
                    assert_eq!(marked[n / 64] >> (n % 64) & 1 == 1, through, "{x} {y} {n}");
                }
            }
        }
    }

    /// Looking only at the rectangles through two cells with the same two candidates finds the
    /// same steps, in the same order, as looking at every rectangle: on boards of the shipped
    /// puzzles thinned at random (wrong candidates removed, up to three at a time).
    #[test]
    fn unique_rectangles_through_twin_cells_are_all_there_are() {
        let text = include_str!("../../data/generated_minimal_2000.txt");
        let mut rng = crate::rng::SplitMix64(7);
        let (mut boards, mut found) = (0, 0);
        for line in text.lines().take(300) {
            let p: Grid = line.parse().expect("a puzzle");
            let mut solution = Grid::EMPTY;
            assert_eq!(crate::solver::count_into(&p, 2, &mut solution), 1, "{p}");
            let mut s = State::new(&p).expect("no clash");
            for _ in 0..40 {
                for _ in 0..3 {
                    let c = (rng.next_u64() % CELLS as u64) as usize;
                    let wrong = s.cand[c] & !(1 << (solution.cells()[c] - 1));
                    if wrong != 0 {
                        s.remove(wrong.trailing_zeros() as usize, 1u128 << c);
                    }
                }
                let (mut fast, mut slow) = (Steps::new(), Steps::new());
                unique_rectangles(&s, &mut fast);
                every_rectangle(&s, &mut slow);
                assert_eq!(fast.steps(), slow.steps(), "{p}");
                boards += 1;
                found += fast.steps().len();
            }
        }
        assert!(
            boards == 12_000 && found > 300,
            "{boards} boards, {found} steps"
        );
    }
}
