//! Singles, locked candidates, naked and hidden subsets, basic fish.

use super::{cells_of, digits_of, State, Step, Steps, Technique, CELL_UNITS, UNIT_MASK};
use crate::grid::UNITS;

/// The masks of nine bits with `n` set, for `n` in 0..=9, in increasing order.
const fn combos<const K: usize>(n: u32) -> [u16; K] {
    let mut out = [0u16; K];
    let (mut m, mut k) = (0u16, 0);
    while m < 512 {
        if m.count_ones() == n {
            out[k] = m;
            k += 1;
        }
        m += 1;
    }
    out
}
const C2: [u16; 36] = combos::<36>(2);
const C3: [u16; 84] = combos::<84>(3);
const C4: [u16; 126] = combos::<126>(4);

pub(super) fn combos_of(n: usize) -> &'static [u16] {
    match n {
        2 => &C2,
        3 => &C3,
        _ => &C4,
    }
}

/// The cells of unit `u` as a bitset over its nine positions, mapped from a cell bitset.
pub(super) fn positions(unit: usize, cells: u128) -> u16 {
    debug_assert!(unit < 27);
    match unit {
        0..=8 => (cells >> (9 * unit)) as u16 & 0x1ff,
        9..=17 => {
            let x = cells >> (unit - 9);
            (0..9).fold(0u16, |p, i| p | ((x >> (9 * i)) as u16 & 1) << i)
        }
        _ => {
            let b = unit - 18;
            let x = cells >> (b / 3 * 27 + b % 3 * 3);
            (x as u16 & 7) | ((x >> 9) as u16 & 7) << 3 | ((x >> 18) as u16 & 7) << 6
        }
    }
}

/// The positions of `cells` in each of the nine lines from unit `base` (0: rows, 9: columns).
pub(super) fn line_positions(cells: u128, base: usize) -> [u16; 9] {
    std::array::from_fn(|i| positions(base + i, cells))
}

/// The cells of unit `u` at the positions of `pos`.
pub(super) fn cells_at(unit: usize, pos: u16) -> u128 {
    debug_assert!(unit < 27);
    let pos = u128::from(pos & 0x1ff);
    match unit {
        0..=8 => pos << (9 * unit),
        9..=17 => (0..9).fold(0u128, |m, i| m | (pos >> i & 1) << (9 * i + unit - 9)),
        _ => {
            let b = unit - 18;
            ((pos & 7) | (pos >> 3 & 7) << 9 | (pos >> 6 & 7) << 18) << (b / 3 * 27 + b % 3 * 3)
        }
    }
}

/// The digits placed in each unit.
fn placed_in_units(s: &State) -> [u16; 27] {
    s.units
}

fn single(technique: Technique, cell: usize, d: usize) -> Step {
    let mut s = Step::new(technique);
    s.place = Some((cell as u8, d as u8 + 1));
    s
}

/// Full house: the last empty cell of a unit.
pub(super) fn full_house(s: &State, out: &mut Steps) {
    let mut done = 0u128;
    let placed = placed_in_units(s);
    for (u, unit) in UNITS.iter().enumerate() {
        let mut empty = unit
            .iter()
            .map(|&c| usize::from(c))
            .filter(|&c| s.value[c] == 0);
        if let (Some(c), None) = (empty.next(), empty.next()) {
            let missing = !placed[u] & 0x1ff;
            if done >> c & 1 == 0 && missing.count_ones() == 1 {
                done |= 1 << c;
                let mut step = single(Technique::FullHouse, c, missing.trailing_zeros() as usize);
                step.unit = Some(u as u8);
                out.push(step);
            }
        }
    }
}

/// Hidden singles: in boxes only (`boxes`), or in rows and columns.
pub(super) fn hidden_singles(s: &State, boxes: bool, out: &mut Steps) {
    let masks = s.digit_masks();
    let placed = placed_in_units(s);
    let units = if boxes { 18..27 } else { 0..18 };
    let technique = if boxes {
        Technique::HiddenSingleBox
    } else {
        Technique::HiddenSingle
    };
    let mut done = 0u128;
    for u in units {
        for (d, &m) in masks.iter().enumerate() {
            let places = m & UNIT_MASK[u];
            if placed[u] >> d & 1 == 0 && places.count_ones() == 1 {
                let c = places.trailing_zeros() as usize;
                if done >> c & 1 == 0 {
                    done |= 1 << c;
                    let mut step = single(technique, c, d);
                    step.unit = Some(u as u8);
                    out.push(step);
                }
            }
        }
    }
}

/// Naked singles: a cell with one candidate.
pub(super) fn naked_singles(s: &State, out: &mut Steps) {
    for c in 0..81 {
        if s.value[c] == 0 && s.cand[c].count_ones() == 1 {
            out.push(single(
                Technique::NakedSingle,
                c,
                s.cand[c].trailing_zeros() as usize,
            ));
        }
    }
}

/// The hidden singles of digit `d` in the units of the cells of `touched`, given the digit's
/// candidates `m` after a removal.
fn new_hidden_singles(placed: &[u16; 27], d: usize, m: u128, touched: u128) -> u128 {
    let mut units = 0u32;
    for c in cells_of(touched) {
        for &u in &CELL_UNITS[c] {
            units |= 1 << u;
        }
    }
    (0..27)
        .filter(|&u| units >> u & 1 == 1 && placed[u] >> d & 1 == 0)
        .map(|u| m & UNIT_MASK[u])
        .filter(|p| p.count_ones() == 1)
        .fold(0, |a, p| a | p)
}

/// Locked candidates: pointing (a box's candidates of a digit on one line) and claiming (a
/// line's candidates in one box). With `direct`, only those whose removals leave a hidden single,
/// which the step places.
pub(super) fn locking(s: &State, direct: bool, out: &mut Steps) {
    let masks = s.digit_masks();
    let placed = placed_in_units(s);
    // Pointing first (it scores lower), then claiming.
    for pointing in [true, false] {
        for (d, &m) in masks.iter().enumerate() {
            for b in 18..27 {
                // The box's three rows, then its three columns.
                let (band, stack) = ((b - 18) / 3 * 3, 9 + (b - 18) % 3 * 3);
                for line in [band, band + 1, band + 2, stack, stack + 1, stack + 2] {
                    let (from, to) = if pointing { (b, line) } else { (line, b) };
                    let inter = UNIT_MASK[from] & UNIT_MASK[to];
                    let places = m & UNIT_MASK[from];
                    if places == 0 || places & !inter != 0 || placed[from] >> d & 1 == 1 {
                        continue;
                    }
                    let elim = m & UNIT_MASK[to] & !inter;
                    if elim == 0 {
                        continue;
                    }
                    let technique = match (pointing, direct) {
                        (true, true) => Technique::DirectPointing,
                        (false, true) => Technique::DirectClaiming,
                        (true, false) => Technique::Pointing,
                        (false, false) => Technique::Claiming,
                    };
                    let mut step = Step::new(technique);
                    step.eliminations[d] = elim;
                    step.cells = places;
                    step.digits = 1 << d;
                    if direct {
                        // One step per hidden single the removals leave.
                        for c in cells_of(new_hidden_singles(&placed, d, m & !elim, elim)) {
                            step.place = Some((c as u8, d as u8 + 1));
                            out.push(step);
                        }
                        continue;
                    }
                    out.push(step);
                }
            }
        }
        if out.len > 0 {
            // Pointing scores below claiming: claiming only when no pointing.
            return;
        }
    }
}

/// Hidden subsets of `n` digits: `n` digits whose places in a unit are the same `n` cells; the
/// cells' other candidates go. With `direct`, only those whose removals leave another digit of
/// the unit a single place, which the step places.
pub(super) fn hidden_sets(s: &State, n: usize, direct: bool, out: &mut Steps) {
    let masks = s.digit_masks();
    let placed = placed_in_units(s);
    for u in 0..27 {
        // Digits with 2..=n places in the unit.
        let mut pos = [0u16; 9];
        let mut eligible = 0u16;
        let mut free = 0usize;
        for d in 0..9 {
            if placed[u] >> d & 1 == 1 {
                continue;
            }
            free += 1;
            pos[d] = positions(u, masks[d]);
            let k = pos[d].count_ones() as usize;
            if (2..=n).contains(&k) {
                eligible |= 1 << d;
            }
        }
        if free <= n {
            continue;
        }
        for &set in combos_of(n) {
            if set & !eligible != 0 {
                continue;
            }
            let cells_pos = digits_of(set).fold(0u16, |a, d| a | pos[d]);
            if cells_pos.count_ones() as usize != n {
                continue;
            }
            let cells = cells_at(u, cells_pos);
            let mut step = Step::new(match (n, direct) {
                (2, true) => Technique::DirectHiddenPair,
                (3, true) => Technique::DirectHiddenTriple,
                (2, false) => Technique::HiddenPair,
                (3, false) => Technique::HiddenTriple,
                _ => Technique::HiddenQuad,
            });
            let mut any = false;
            for d in 0..9 {
                if set >> d & 1 == 0 {
                    step.eliminations[d] = masks[d] & cells;
                    any |= step.eliminations[d] != 0;
                }
            }
            if !any {
                continue;
            }
            step.cells = cells;
            step.digits = set;
            if direct {
                // One step per digit of the unit left a single place.
                for d in 0..9 {
                    let left = masks[d] & !cells & UNIT_MASK[u];
                    if set >> d & 1 == 0 && placed[u] >> d & 1 == 0 && left.count_ones() == 1 {
                        step.place = Some((left.trailing_zeros() as u8, d as u8 + 1));
                        out.push(step);
                    }
                }
                continue;
            }
            out.push(step);
        }
    }
}

/// Naked subsets of `n` cells: `n` cells of a unit whose candidates are `n` digits; the digits go
/// from the unit's other cells.
pub(super) fn naked_sets(s: &State, n: usize, out: &mut Steps) {
    let masks = s.digit_masks();
    for (u, unit) in UNITS.iter().enumerate() {
        let mut eligible = 0u16;
        let mut empty = 0usize;
        for (i, &c) in unit.iter().enumerate() {
            let k = s.cand[usize::from(c)].count_ones() as usize;
            empty += usize::from(s.value[usize::from(c)] == 0);
            if (2..=n).contains(&k) {
                eligible |= 1 << i;
            }
        }
        if empty <= n {
            continue;
        }
        for &set in combos_of(n) {
            if set & !eligible != 0 {
                continue;
            }
            let digits = digits_of(set).fold(0u16, |a, i| a | s.cand[usize::from(unit[i])]);
            if digits.count_ones() as usize != n {
                continue;
            }
            let cells = cells_at(u, set);
            let mut step = Step::new(match n {
                2 => Technique::NakedPair,
                3 => Technique::NakedTriple,
                _ => Technique::NakedQuad,
            });
            let mut any = false;
            for d in digits_of(digits) {
                step.eliminations[d] = masks[d] & UNIT_MASK[u] & !cells;
                any |= step.eliminations[d] != 0;
            }
            if !any {
                continue;
            }
            step.cells = cells;
            step.digits = digits;
            out.push(step);
        }
    }
}

/// Basic fish of size `n` (X-Wing, Swordfish, Jellyfish): `n` rows (columns) whose candidates of a
/// digit lie in `n` columns (rows); the digit goes from the rest of those columns (rows).
pub(super) fn fish(s: &State, n: usize, out: &mut Steps) {
    let masks = s.digit_masks();
    let technique = match n {
        2 => Technique::XWing,
        3 => Technique::Swordfish,
        _ => Technique::Jellyfish,
    };
    for (d, &m) in masks.iter().enumerate() {
        for rows in [true, false] {
            let (base, cover) = if rows { (0, 9) } else { (9, 0) };
            let lines = line_positions(m, base);
            let eligible = (0..9).fold(0u16, |a, i| {
                a | u16::from((2..=n).contains(&(lines[i].count_ones() as usize))) << i
            });
            for &set in combos_of(n) {
                if set & !eligible != 0 {
                    continue;
                }
                let covers = digits_of(set).fold(0u16, |a, i| a | lines[i]);
                if covers.count_ones() as usize != n {
                    continue;
                }
                let base_cells = digits_of(set).fold(0u128, |a, i| a | UNIT_MASK[base + i]);
                let cover_cells = digits_of(covers).fold(0u128, |a, i| a | UNIT_MASK[cover + i]);
                let elim = m & cover_cells & !base_cells;
                if elim == 0 {
                    continue;
                }
                let mut step = Step::new(technique);
                step.eliminations[d] = elim;
                step.cells = m & base_cells;
                step.digits = 1 << d;
                out.push(step);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_and_cells_at_follow_the_unit_order() {
        for (u, unit) in UNITS.iter().enumerate() {
            for pos in [0u16, 1, 0x1ff, 0b101_001_101, 0b011_100_000] {
                let by_table = digits_of(pos).fold(0u128, |m, i| m | 1u128 << unit[i]);
                assert_eq!(cells_at(u, pos), by_table, "unit {u} pos {pos:b}");
                assert_eq!(positions(u, by_table | 1u128 << 127), pos, "unit {u}");
                // Cells outside the unit are not positions.
                assert_eq!(positions(u, !by_table & !UNIT_MASK[u]), 0, "unit {u}");
            }
        }
    }
}
