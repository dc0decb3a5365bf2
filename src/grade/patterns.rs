//! Named patterns Sudoku Explainer has no rule for: finned and sashimi fish, simple coloring,
//! W-Wing, and ALS-XZ and ALS-XY-Wing (almost locked sets).
//!
//! SE proves each of their removals another way, and the grade keeps SE's score for it: the
//! patterns name what the ladder's chains prove. A coloring trap is an X-chain of conjugate pairs
//! and a W-Wing an alternating chain of six candidates, so the chain rung names its removals so
//! where the pattern makes them; a finned fish or a coloring wrap is, for SE, a one-digit
//! contradiction (Nishio), so the Nishio rung names them. The ALS rules have rungs of their own: SE
//! proves them with cell or region forcing chains (8.0 and up), which the ladder has no other rung
//! for.

use super::basic::{cells_at, combos_within, line_positions, positions, subsets_joining};
use super::{
    cells_of, digit_count, digits_of, length_tenths, Stack, State, Step, Steps, Technique, PEERS,
    UNIT_MASK,
};
use crate::grid::{CELLS, UNITS};

/// Finned and sashimi fish of sizes 2 to 4: `n` base lines whose candidates for a digit lie in
/// `n` cover lines but for some fins, all in one box. Either a fin is true, or the base lines
/// form a basic fish; so what is in a cover line, outside the base lines, and in the fins' box
/// (seeing every fin) goes. Sashimi fish are the case where a base line's cover cells are gone.
/// Returns the removals, by the size of the smallest fish making each (`[n - 2][digit]`).
pub(super) fn finned_fish(masks: &[u128; 9]) -> [[u128; 9]; 3] {
    let mut found = [[0u128; 9]; 3];
    for n in 2..=4usize {
        for (d, &m) in masks.iter().enumerate() {
            for rows in [true, false] {
                let (base, cover) = if rows { (0, 9) } else { (9, 0) };
                let lines = line_positions(m, base);
                let live = (0..9).fold(0u16, |a, i| a | u16::from(lines[i] != 0) << i);
                for set in combos_within(live, n) {
                    let all = digits_of(set).fold(0u16, |a, i| a | lines[i]);
                    let base_cells = digits_of(set).fold(0u128, |a, i| a | UNIT_MASK[base + i]);
                    // The fins lie in one group of three positions (a stack for row bases, a
                    // band for column bases); every position outside it is a cover.
                    for g in 0..3 {
                        let group = 0b111u16 << (3 * g);
                        let outside = all & !group;
                        let inside = all & group;
                        let k = outside.count_ones() as usize;
                        if k > n || inside == 0 {
                            continue;
                        }
                        // Covers taken inside the group: every subset of `inside` of the size
                        // left, but all of it (no fin: a basic fish).
                        let mut sub = inside;
                        loop {
                            sub = sub.wrapping_sub(1) & inside;
                            if sub.count_ones() as usize == n - k {
                                found[n - 2][d] |= fish_with_fins(
                                    (base, cover, rows),
                                    m,
                                    (set, &lines, base_cells),
                                    (outside | sub, group & !sub, g),
                                );
                            }
                            if sub == 0 {
                                break;
                            }
                        }
                    }
                }
            }
        }
        for d in 0..9 {
            let smaller = (0..n - 2).fold(0u128, |a, k| a | found[k][d]);
            found[n - 2][d] &= !smaller;
        }
    }
    found
}

/// The removals of one finned fish: base lines `set`, covers `covers`, fins at `fin_pos`
/// positions of group `g`.
fn fish_with_fins(
    (base, cover, rows): (usize, usize, bool),
    m: u128,
    (set, lines, base_cells): (u16, &[u16; 9], u128),
    (covers, fin_pos, g): (u16, u16, usize),
) -> u128 {
    let mut fins = 0u128;
    let mut fin_lines = 0u16;
    for i in digits_of(set) {
        let f = lines[i] & fin_pos;
        if f != 0 {
            fins |= cells_at(base + i, f);
            fin_lines |= 1 << i;
        }
    }
    if fins == 0 {
        return 0;
    }
    // All fins in one box: their base lines lie in one band (rows) or stack (columns).
    let first = fin_lines.trailing_zeros() as usize / 3;
    if fin_lines & !(0b111 << (3 * first)) != 0 {
        return 0;
    }
    let bx = if rows { first * 3 + g } else { g * 3 + first };
    let cover_cells = digits_of(covers).fold(0u128, |a, j| a | UNIT_MASK[cover + j]);
    m & cover_cells & !base_cells & UNIT_MASK[18 + bx]
}

/// The conjugate pairs of one digit: for each cell, the cells it shares a unit with as the
/// digit's only two places.
fn conjugates(m: u128) -> [u128; CELLS] {
    let mut link = [0u128; CELLS];
    for u in &UNIT_MASK {
        let p = m & u;
        if p.count_ones() == 2 {
            let a = p.trailing_zeros() as usize;
            let b = 127 - p.leading_zeros() as usize;
            link[a] |= 1u128 << b;
            link[b] |= 1u128 << a;
        }
    }
    link
}

/// Simple coloring: each cluster of a digit's conjugate pairs is coloured in two colours, one of
/// which is all true. Two cells of one colour in a unit (a wrap) make that colour false; a cell
/// seeing both colours (a trap) goes. Returns the removals of traps and of wraps.
pub(super) fn coloring(masks: &[u128; 9]) -> ([u128; 9], [u128; 9]) {
    let (mut traps, mut wraps) = ([0u128; 9], [0u128; 9]);
    for (d, &m) in masks.iter().enumerate() {
        let link = conjugates(m);
        let mut left = link
            .iter()
            .enumerate()
            .fold(0u128, |a, (c, &l)| a | u128::from(l != 0) << c);
        while left != 0 {
            let start = 1u128 << left.trailing_zeros();
            let (mut color, mut frontier, mut seen, mut parity) = ([0u128; 2], start, start, 0);
            while frontier != 0 {
                color[parity] |= frontier;
                let mut next = 0u128;
                for c in cells_of(frontier) {
                    next |= link[c];
                }
                frontier = next & !seen;
                seen |= next;
                parity ^= 1;
            }
            left &= !seen;
            if seen.count_ones() < 3 {
                continue; // a single pair: locked candidates at most
            }
            let mut wrapped = false;
            for &col in &color {
                if UNIT_MASK.iter().any(|u| (col & u).count_ones() >= 2) {
                    wraps[d] |= col;
                    wrapped = true;
                }
            }
            if !wrapped {
                for e in cells_of(m & !seen) {
                    if color[0] & PEERS[e] != 0 && color[1] & PEERS[e] != 0 {
                        traps[d] |= 1u128 << e;
                    }
                }
            }
        }
    }
    (traps, wraps)
}

/// W-Wing: two cells with the same two candidates `x` and `y`, not in one unit, joined by a
/// unit where `y` has two places, one seeing each cell. One of the cells is `x`, so `x` goes
/// from the cells seeing both. An alternating chain of six candidates. Returns the removals.
pub(super) fn w_wing(s: &State, masks: &[u128; 9]) -> [u128; 9] {
    let mut found = [0u128; 9];
    for a in 0..CELLS {
        let pair = s.cand[a];
        if pair.count_ones() != 2 {
            continue;
        }
        for b in a + 1..CELLS {
            if s.cand[b] != pair || PEERS[a] >> b & 1 == 1 {
                continue;
            }
            let (lo, hi) = (
                pair.trailing_zeros() as usize,
                15 - pair.leading_zeros() as usize,
            );
            for (xd, yd) in [(lo, hi), (hi, lo)] {
                let elim = masks[xd] & PEERS[a] & PEERS[b];
                if elim & !found[xd] == 0 {
                    continue;
                }
                let both = 1u128 << a | 1u128 << b;
                let joined = UNIT_MASK.iter().any(|u| {
                    let p = masks[yd] & u;
                    if p.count_ones() != 2 || p & both != 0 {
                        return false;
                    }
                    let (p, q) = (
                        p.trailing_zeros() as usize,
                        127 - p.leading_zeros() as usize,
                    );
                    let sees = |c: usize, z: usize| PEERS[c] >> z & 1 == 1;
                    (sees(p, a) && sees(q, b)) || (sees(p, b) && sees(q, a))
                });
                if joined {
                    found[xd] |= elim;
                }
            }
        }
    }
    found
}

/// The most cells of an almost locked set the grader looks for.
const ALS_CELLS: u32 = 4;

/// The most almost locked sets of up to [`ALS_CELLS`] cells a board can hold: every subset of up
/// to four of a unit's nine cells, in every unit.
const ALS_MAX: usize = 27 * (9 + 36 + 84 + 126);

/// An almost locked set: `n` cells of one unit holding `n + 1` candidates between them. Six
/// bytes (the unit and the positions in it), so that every set a board can hold fits in a
/// small stack frame.
#[derive(Clone, Copy)]
struct Als {
    unit: u8,
    /// Whether a cell of the set changed since the rung last found nothing (see [`als`]).
    changed: bool,
    pos: u16,
    cand: u16,
}

impl Als {
    fn cells(self) -> u128 {
        cells_at(usize::from(self.unit), self.pos)
    }
}

/// The cells every cell of `cells` sees.
fn seen_by_all(cells: u128) -> u128 {
    cells_of(cells).fold(!0u128, |a, c| a & PEERS[c])
}

/// The almost locked sets rung: finds every set of up to [`ALS_CELLS`] cells, then ALS-XZ over
/// them, and ALS-XY-Wing where ALS-XZ finds nothing. Only pairs and wings with a set that has a
/// cell of `changed` are looked at: the rung found nothing on a board where the other cells
/// were the same (see [`Todo`]).
#[inline(never)] // a large frame: kept out of `run_rungs`, which every round enters
pub(super) fn als(s: &State, changed: u128, out: &mut Steps) {
    let masks = &s.digits;
    let mut sets: Stack<Als, ALS_MAX> = Stack::new();
    // A cell of a set of at most four cells has at most five candidates: only those are looked at.
    let open_cells = (0..CELLS).fold(0u128, |a, c| {
        let k = digit_count(s.cand[c]);
        a | u128::from(k != 0 && k <= ALS_CELLS + 1) << c
    });
    for u in 0..27 {
        let open = positions(u, open_cells);
        if open == 0 {
            continue;
        }
        let unit = &UNITS[u];
        let cand: [u16; 9] = std::array::from_fn(|i| s.cand[usize::from(unit[i])]);
        for size in 1..=ALS_CELLS as usize {
            if size == 1 && u >= 9 {
                continue; // a single cell is in every unit: counted once, in its row
            }
            subsets_joining(&cand, open, size, size + 1, &mut |pos, union| {
                let cells = cells_at(u, pos);
                if u >= 18 && size >= 2 {
                    // A box's cells in one row or column were found in that line.
                    let r = cells.trailing_zeros() as usize / 9;
                    let c = cells.trailing_zeros() as usize % 9;
                    if cells & !UNIT_MASK[r] == 0 || cells & !UNIT_MASK[9 + c] == 0 {
                        return;
                    }
                }
                sets.push(Als {
                    unit: u as u8,
                    changed: cells & changed != 0,
                    pos,
                    cand: union,
                });
            });
        }
    }
    let sets = sets.as_slice();
    als_xz(sets, masks, out);
    if out.is_empty() {
        als_xy_wing(sets, masks, out);
    }
}

/// For each digit of a set, the cells seeing every place of the digit in the set.
fn seen_by_each(cells: u128, cand: u16, masks: &[u128; 9]) -> [u128; 9] {
    let mut seen = [0u128; 9];
    for x in digits_of(cand) {
        seen[x] = seen_by_all(cells & masks[x]);
    }
    seen
}

/// The restricted common digits among `common` of a set (`a_seen`, from [`seen_by_each`]) and
/// a set disjoint from it (`b_cells`): every place of the digit in one sees every place in the
/// other.
fn restricted(a_seen: &[u128; 9], b_cells: u128, common: u16, masks: &[u128; 9]) -> u16 {
    digits_of(common).fold(0u16, |r, x| {
        r | u16::from(b_cells & masks[x] & !a_seen[x] == 0) << x
    })
}

/// ALS-XZ: two almost locked sets that share a restricted common digit `x` (every `x` of one sees
/// every `x` of the other, so at most one holds `x`) and another digit `z`: one of them is then
/// locked and holds `z`, so `z` goes from the cells seeing every `z` of both. With two
/// restricted commons, both sets are locked: each of their digits goes from the cells seeing
/// all its places in the set. SE proves these removals with cell or region forcing chains: the
/// score is theirs (8.0), with the length add of a chain through both sets' candidates.
fn als_xz(sets: &[Als], masks: &[u128; 9], out: &mut Steps) {
    for (i, a) in sets.iter().enumerate() {
        let a_cells = a.cells();
        let a_seen = seen_by_each(a_cells, a.cand, masks);
        for b in &sets[i + 1..] {
            let common = a.cand & b.cand;
            if digit_count(common) < 2 || !(a.changed || b.changed) {
                continue;
            }
            let b_cells = b.cells();
            if a_cells & b_cells != 0 {
                continue;
            }
            let restricted = restricted(&a_seen, b_cells, common, masks);
            if restricted == 0 {
                continue;
            }
            let inside = a_cells | b_cells;
            let mut step = Step::new(Technique::AlsXz);
            step.tenths =
                Technique::AlsXz.se() + length_tenths(digit_count(a.cand) + digit_count(b.cand));
            step.cells = inside;
            step.digits = common;
            let mut any = false;
            if digit_count(restricted) == 1 {
                for z in digits_of(common & !restricted) {
                    let zs = inside & masks[z];
                    let elim = masks[z] & seen_by_all(zs) & !inside;
                    step.eliminations[z] |= elim;
                    any |= elim != 0;
                }
            } else {
                for z in digits_of(a.cand | b.cand) {
                    let mut elim = 0u128;
                    if restricted >> z & 1 == 1 {
                        elim |= seen_by_all(inside & masks[z]);
                    } else {
                        for (cand, cells) in [(a.cand, a_cells), (b.cand, b_cells)] {
                            if cand >> z & 1 == 1 {
                                elim |= seen_by_all(cells & masks[z]);
                            }
                        }
                    }
                    let elim = masks[z] & elim & !inside;
                    step.eliminations[z] |= elim;
                    any |= elim != 0;
                }
            }
            if any {
                out.keep_lowest(step);
            }
        }
    }
}

/// ALS-XY-Wing: a pivot set `C` with a restricted common `x` with a set `A` and another, `y`,
/// with a set `B`. `C` holds `x` or `y`, so `A` is locked without `x` or `B` without `y`: a digit
/// `z` of both `A` and `B` (neither `x` nor `y`) is in one of them, and goes from the cells seeing
/// every `z` of both. Scored as ALS-XZ, through the three sets' candidates.
fn als_xy_wing(sets: &[Als], masks: &[u128; 9], out: &mut Steps) {
    // The sets joined to the pivot, with their restricted commons.
    let mut wings: Stack<(u16, u16), ALS_MAX> = Stack::new();
    for c in sets {
        let c_cells = c.cells();
        let c_seen = seen_by_each(c_cells, c.cand, masks);
        // The restricted commons of a set with the pivot; 0 when it is no wing of it.
        let joins = |w: &Als| {
            let common = c.cand & w.cand;
            if common == 0 {
                return 0;
            }
            let w_cells = w.cells();
            if w_cells & c_cells != 0 {
                return 0;
            }
            restricted(&c_seen, w_cells, common, masks)
        };
        if !c.changed && !sets.iter().any(|w| w.changed && joins(w) != 0) {
            continue; // every wing of this pivot is of unchanged sets
        }
        wings.clear();
        for (j, w) in sets.iter().enumerate() {
            let r = joins(w);
            if r != 0 {
                wings.push((j as u16, r));
            }
        }
        let wings = wings.as_slice();
        for (p, &(ai, ar)) in wings.iter().enumerate() {
            let a = sets[usize::from(ai)];
            for &(bi, br) in &wings[p + 1..] {
                let b = sets[usize::from(bi)];
                let shared = a.cand & b.cand;
                if shared == 0 || !(a.changed || b.changed || c.changed) {
                    continue;
                }
                let (a_cells, b_cells) = (a.cells(), b.cells());
                if a_cells & b_cells != 0 {
                    continue;
                }
                let inside = a_cells | b_cells;
                let mut step = Step::new(Technique::AlsXyWing);
                let mut any = false;
                for x in digits_of(ar) {
                    for y in digits_of(br & !(1 << x)) {
                        for z in digits_of(shared & !(1 << x | 1 << y)) {
                            let elim = masks[z] & seen_by_all(inside & masks[z]) & !inside;
                            step.eliminations[z] |= elim;
                            any |= elim != 0;
                        }
                    }
                }
                if any {
                    step.tenths = Technique::AlsXyWing.se()
                        + length_tenths(
                            digit_count(a.cand) + digit_count(b.cand) + digit_count(c.cand),
                        );
                    step.cells = inside | c_cells;
                    step.digits = shared;
                    out.keep_lowest(step);
                }
            }
        }
    }
}
