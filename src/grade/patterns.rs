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

use super::basic::{
    almost_locked_subsets_upto, cells_at, combos_within, line_positions, positions,
};
use super::chains::UNITS_OF_CELL;
use super::{
    bits_of, cells_of, digit_count, digits_of, length_tenths, Stack, State, Step, Steps, Technique,
    PEERS, UNIT_MASK,
};
use crate::grid::{CELLS, UNITS};

/// Finned and sashimi fish of sizes 2 to 4: `n` base lines whose candidates for a digit lie in
/// `n` cover lines but for some fins, all in one box. Either a fin is true, or the base lines
/// form a basic fish; so what is in a cover line, outside the base lines, and in the fins' box
/// (seeing every fin) goes. Sashimi fish are the case where a base line's cover cells are gone.
/// Returns the removals of the digits of `digits`, by the size of the smallest fish making each
/// (`[n - 2][digit]`).
pub(super) fn finned_fish(masks: &[u128; 9], digits: u16) -> [[u128; 9]; 3] {
    let mut found = [[0u128; 9]; 3];
    for n in 2..=4usize {
        for d in digits_of(digits) {
            let m = masks[d];
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

/// The units that hold every place of some digit of a set (bit `u` for unit `u`). Every place
/// of a restricted common digit of two sets sees every other (within a set they share its
/// unit), and cells that all see each other lie in one unit: so two sets whose reaches are
/// disjoint have no restricted common digit, which one test of two words tells.
fn reach(cells: u128, cand: u16, masks: &[u128; 9]) -> u32 {
    digits_of(cand).fold(0u32, |r, x| r | units_holding(cells & masks[x]))
}

/// The units that hold every cell of `cells` (bit `u` for unit `u`).
fn units_holding(cells: u128) -> u32 {
    cells_of(cells).fold(Key::UNITS, |u, c| u & UNITS_OF_CELL[c])
}

/// The most sets for which the ALS rung keeps a [`WingMatrix`] (the boards the public sets'
/// grading reaches it on hold at most 275); beyond, ALS-XY-Wing walks every set for every pivot.
const WING_MATRIX_SETS: usize = 512;

/// Which pairs of sets have a restricted common digit: bit `j` of row `i` (and `i` of `j`).
/// Only the rows of the sets found are written (zeroed), not the whole 32 KiB.
struct WingMatrix {
    rows: Stack<[u64; WING_MATRIX_SETS / 64], WING_MATRIX_SETS>,
}

impl WingMatrix {
    /// Makes the first `sets` rows, empty.
    fn zero(&mut self, sets: usize) {
        for _ in 0..sets {
            self.rows.push([0; WING_MATRIX_SETS / 64]);
        }
    }

    fn join(&mut self, i: usize, j: usize) {
        let rows = self.rows.as_mut_slice();
        rows[i][j / 64] |= 1 << (j % 64);
        rows[j][i / 64] |= 1 << (i % 64);
    }
}

/// Indices of sets, in increasing order: the bits of a row of words (from word `.1` on), or a
/// range.
enum SetIndices {
    Row([u64; WING_MATRIX_SETS / 64], usize),
    All(std::ops::Range<usize>),
}

impl Iterator for SetIndices {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        match self {
            SetIndices::Row(words, w) => {
                while *w < words.len() {
                    let bits = &mut words[*w];
                    if *bits != 0 {
                        let j = *w * 64 + bits.trailing_zeros() as usize;
                        *bits &= *bits - 1;
                        return Some(j);
                    }
                    *w += 1;
                }
                None
            }
            SetIndices::All(range) => range.next(),
        }
    }
}

/// What the pair loops test first, one word per set: its candidates (bits 0-8) and its
/// [`reach`] (bits 9-35), and whether a cell of it changed (bit 36). One load per set, and one
/// branch per pair (most pairs fail the test, unpredictably: a branch per condition mispredicted
/// more than the conditions cost).
#[derive(Clone, Copy)]
struct Key(u64);

impl Key {
    const CHANGED: u64 = 1 << 36;

    const UNITS: u32 = (1 << 27) - 1;

    fn of(set: Als, reach: u32) -> Key {
        let reach = u64::from(reach & Key::UNITS);
        Key(u64::from(set.cand) | reach << 9 | u64::from(set.changed) << 36)
    }

    fn changed(self) -> bool {
        self.0 & Key::CHANGED != 0
    }

    /// Whether two sets may make an ALS-XZ to look at: two common digits or more, a cell of
    /// either changed, reaches that meet.
    fn may_pair(self, other: Key) -> bool {
        let both = self.0 & other.0;
        let common = both as u16 & 0x1ff;
        (common & common.wrapping_sub(1) != 0)
            & ((self.0 | other.0) & Key::CHANGED != 0)
            & (both >> 9 & u64::from(Key::UNITS) != 0)
    }

    /// Whether a set may be a wing of a pivot: a common digit, reaches that meet.
    fn may_wing(self, other: Key) -> bool {
        let both = self.0 & other.0;
        (both & 0x1ff != 0) & (both >> 9 & u64::from(Key::UNITS) != 0)
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
    als_with(s, changed, out, WING_MATRIX_SETS, true);
}

/// [`als`], keeping a [`WingMatrix`] for at most `matrix_sets` sets, and with `by_reach` pairing
/// sets by their reach (else every set reaches every unit). The tests compare the ways on the
/// same boards.
#[inline(always)]
fn als_with(s: &State, changed: u128, out: &mut Steps, matrix_sets: usize, by_reach: bool) {
    let masks = &s.digits;
    let mut sets: Stack<Als, ALS_MAX> = Stack::new();
    // Each set's `Key`, alongside (kept out of `Als`, which stays six bytes).
    let mut keys: Stack<Key, ALS_MAX> = Stack::new();
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
        // One walk finds every size; the sets are kept by size, in the order a walk per size
        // finds them, so that the pairs below are met in the same order.
        let mut by_size: [Stack<(u16, u16), 126>; ALS_CELLS as usize] =
            std::array::from_fn(|_| Stack::new());
        almost_locked_subsets_upto(&cand, open, ALS_CELLS as usize, &mut |size, pos, union| {
            by_size[size - 1].push((pos, union))
        });
        for (i, found) in by_size.iter().enumerate() {
            let size = i + 1;
            if size == 1 && u >= 9 {
                continue; // a single cell is in every unit: counted once, in its row
            }
            for &(pos, union) in found.as_slice() {
                let cells = cells_at(u, pos);
                if u >= 18 && size >= 2 {
                    // A box's cells in one row or column were found in that line.
                    let r = cells.trailing_zeros() as usize / 9;
                    let c = cells.trailing_zeros() as usize % 9;
                    if cells & !UNIT_MASK[r] == 0 || cells & !UNIT_MASK[9 + c] == 0 {
                        continue;
                    }
                }
                let set = Als {
                    unit: u as u8,
                    changed: cells & changed != 0,
                    pos,
                    cand: union,
                };
                sets.push(set);
                let reach = match by_reach {
                    true => reach(cells, union, masks),
                    false => Key::UNITS,
                };
                keys.push(Key::of(set, reach));
            }
        }
    }
    let (sets, keys) = (sets.as_slice(), keys.as_slice());
    // Up to `WING_MATRIX_SETS` sets, ALS-XZ's walk over the pairs also notes which sets are
    // wings of which, and ALS-XY-Wing reads its wings from that instead of walking every pair
    // again for every pivot.
    let mut storage = WingMatrix { rows: Stack::new() };
    let mut matrix = if sets.len() <= matrix_sets.min(WING_MATRIX_SETS) {
        storage.zero(sets.len());
        Some(&mut storage)
    } else {
        None
    };
    als_xz(sets, keys, masks, out, matrix.as_deref_mut());
    if out.is_empty() {
        als_xy_wing(sets, keys, masks, out, matrix.as_deref());
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
///
/// With `wings`, every pair of sets with a restricted common digit is noted there, whether or
/// not it makes an ALS-XZ to look at.
fn als_xz(
    sets: &[Als],
    keys: &[Key],
    masks: &[u128; 9],
    out: &mut Steps,
    mut wings: Option<&mut WingMatrix>,
) {
    let noting = wings.is_some();
    // With the matrix, the sets whose places of each digit lie in each unit (bit `k` of
    // `by_place[u][x]` for set `k`). Two sets have `x` as a restricted common digit exactly
    // when all their places of `x` lie in one unit (see [`reach`]): so a set is paired only
    // with the later sets that share a unit with it that way for one of its digits, which
    // are the pairs with a restricted common digit, less those that overlap (from the sets of
    // each cell, `by_cell`).
    // Rows of `words` 64-bit words (one bit per set), zeroed only that far: the sets are
    // usually far fewer than there is room for (zeroing all 20 KiB was 6% of the rung).
    let words = sets.len().div_ceil(64);
    let mut place_rows: Stack<u64, { 27 * 9 * WING_MATRIX_SETS / 64 }> = Stack::new();
    let mut cell_rows: Stack<u64, { CELLS * WING_MATRIX_SETS / 64 }> = Stack::new();
    if noting {
        place_rows.push_copies(0, 27 * 9 * words);
        cell_rows.push_copies(0, CELLS * words);
    }
    // `by_place[(u * 9 + x) * words..][..words]` for unit `u` and digit `x`; `by_cell[c *
    // words..][..words]` for cell `c`.
    let (by_place, by_cell) = (place_rows.as_mut_slice(), cell_rows.as_mut_slice());
    if noting {
        for (k, set) in sets.iter().enumerate() {
            let cells = set.cells();
            let bit = 1 << (k % 64);
            for c in cells_of(cells) {
                by_cell[c * words + k / 64] |= bit;
            }
            for x in digits_of(set.cand) {
                for u in bits_of(units_holding(cells & masks[x])) {
                    by_place[(u * 9 + x) * words + k / 64] |= bit;
                }
            }
        }
    }
    for (i, (a, &a_key)) in sets.iter().zip(keys).enumerate() {
        let a_cells = a.cells();
        let a_seen = seen_by_each(a_cells, a.cand, masks);
        let later = if noting {
            // Only the words of the later sets.
            let span = (i + 1) / 64..words;
            let mut row = [0u64; WING_MATRIX_SETS / 64];
            for x in digits_of(a.cand) {
                for u in bits_of(units_holding(a_cells & masks[x])) {
                    let place = &by_place[(u * 9 + x) * words..][..words];
                    for w in span.clone() {
                        row[w] |= place[w];
                    }
                }
            }
            for c in cells_of(a_cells) {
                let cell = &by_cell[c * words..][..words];
                for w in span.clone() {
                    row[w] &= !cell[w];
                }
            }
            if let Some(r) = row.get_mut((i + 1) / 64) {
                *r &= !0u64 << ((i + 1) % 64);
            }
            SetIndices::Row(row, span.start)
        } else {
            SetIndices::All(i + 1..sets.len())
        };
        for j in later {
            let b_key = keys[j];
            let pair = a_key.may_pair(b_key);
            if !(pair || noting && a_key.may_wing(b_key)) {
                continue;
            }
            let b = &sets[j];
            let common = a.cand & b.cand;
            let b_cells = b.cells();
            if a_cells & b_cells != 0 {
                continue;
            }
            let restricted = restricted(&a_seen, b_cells, common, masks);
            if restricted == 0 {
                continue;
            }
            if let Some(wings) = wings.as_deref_mut() {
                wings.join(i, j);
            }
            if !pair {
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
///
/// `matrix`, when given, holds every pair of sets with a restricted common digit (from
/// [`als_xz`]): a pivot's wings are then read from its row.
fn als_xy_wing(
    sets: &[Als],
    keys: &[Key],
    masks: &[u128; 9],
    out: &mut Steps,
    matrix: Option<&WingMatrix>,
) {
    // The sets joined to the pivot, with their restricted commons.
    let mut wings: Stack<(u16, u16), ALS_MAX> = Stack::new();
    for (ci, (c, &c_key)) in sets.iter().zip(keys).enumerate() {
        // The sets that may be wings of this pivot, in order: its row of the matrix, or all.
        let maybe = || match matrix {
            Some(m) => SetIndices::Row(m.rows.as_slice()[ci], 0),
            None => SetIndices::All(0..sets.len()),
        };
        let c_cells = c.cells();
        let c_seen = seen_by_each(c_cells, c.cand, masks);
        // The restricted commons of set `j` with the pivot; 0 when it is no wing of it.
        let joins = |j: usize| {
            if !c_key.may_wing(keys[j]) {
                return 0;
            }
            let w = &sets[j];
            let common = c.cand & w.cand;
            let w_cells = w.cells();
            if w_cells & c_cells != 0 {
                return 0;
            }
            restricted(&c_seen, w_cells, common, masks)
        };
        if !c.changed && !maybe().any(|j| keys[j].changed() && joins(j) != 0) {
            continue; // every wing of this pivot is of unchanged sets
        }
        wings.clear();
        for j in maybe() {
            let r = joins(j);
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
                // The digits `z` of some choice of `x` and `y`; what a `z` removes does not
                // depend on the choice.
                let mut zs = 0u16;
                for x in digits_of(ar) {
                    for y in digits_of(br & !(1 << x)) {
                        zs |= shared & !(1 << x | 1 << y);
                    }
                }
                for z in digits_of(zs) {
                    let elim = masks[z] & seen_by_all(inside & masks[z]) & !inside;
                    step.eliminations[z] |= elim;
                    any |= elim != 0;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `reach` never hides a restricted common digit: whenever every place of a digit in one set
    /// sees every place in a disjoint set, the two reaches share a unit.
    #[test]
    fn sets_with_a_restricted_common_digit_share_a_unit_of_their_reaches() {
        let mut rng = crate::rng::SplitMix64(25);
        let random_set = |rng: &mut crate::rng::SplitMix64| {
            let unit = (rng.next_u64() % 27) as usize;
            let mut pos = 0u16;
            for _ in 0..1 + rng.next_u64() % ALS_CELLS as u64 {
                pos |= 1 << (rng.next_u64() % 9);
            }
            cells_at(unit, pos)
        };
        let (mut restricted_pairs, mut pairs) = (0, 0);
        for _ in 0..200_000 {
            // Each digit in a quarter of cells 0-63 and half of the others, so sets share digits
            // often.
            let masks: [u128; 9] = std::array::from_fn(|_| {
                (rng.next_u64() as u128 & rng.next_u64() as u128 | (rng.next_u64() as u128) << 64)
                    & super::super::ALL_CELLS
            });
            let (a, b) = (random_set(&mut rng), random_set(&mut rng));
            if a & b != 0 {
                continue;
            }
            let digits =
                |cells: u128| (0..9).fold(0u16, |d, x| d | u16::from(cells & masks[x] != 0) << x);
            let (a_cand, b_cand) = (digits(a), digits(b));
            let r = restricted(&seen_by_each(a, a_cand, &masks), b, a_cand & b_cand, &masks);
            pairs += 1;
            if r != 0 {
                restricted_pairs += 1;
                assert_ne!(
                    reach(a, a_cand, &masks) & reach(b, b_cand, &masks),
                    0,
                    "{a:x} {b:x}"
                );
            }
        }
        // Both kinds are common enough for the test to mean something.
        assert!(
            restricted_pairs > 10_000 && pairs - restricted_pairs > 10_000,
            "{restricted_pairs} of {pairs}"
        );
    }

    /// The rung finds the same steps, in the same order, with the wing matrix, without it (the
    /// way boards with more than `WING_MATRIX_SETS` sets take) and without pairing by reach (every
    /// pair of sets tested), on every board of the ladder's path through shipped minimal puzzles.
    #[test]
    fn the_als_rung_finds_the_same_with_and_without_the_wing_matrix() {
        use super::super::{run_rungs, Rung};
        let text = include_str!("../../data/generated_minimal_2000.txt");
        let (mut boards, mut found) = (0, 0);
        let mut rng = crate::rng::SplitMix64(7);
        for line in text.lines().take(400) {
            let puzzle: crate::grid::Grid = line.parse().expect("a puzzle");
            let mut state = State::new(&puzzle).expect("no clash");
            let mut round = Steps::new();
            while !state.solved() {
                // Every cell changed, and a random part of them (as when the rung found nothing
                // before: pairs and pivots of unchanged sets are passed over).
                for changed in [super::super::ALL_CELLS, u128::from(rng.next_u64()) << 17] {
                    let mut ways = [(); 3].map(|()| Steps::new());
                    als_with(&state, changed, &mut ways[0], WING_MATRIX_SETS, true);
                    als_with(&state, changed, &mut ways[1], 0, true);
                    als_with(&state, changed, &mut ways[2], 0, false);
                    assert_eq!(ways[0].steps(), ways[1].steps(), "{line}");
                    assert_eq!(ways[0].steps(), ways[2].steps(), "{line}");
                    found += usize::from(!ways[0].is_empty());
                }
                boards += 1;
                round.clear();
                if !run_rungs(&state, Rung::NOT_UNIQUE, &mut round)
                    || state.apply(round.steps()).is_err()
                {
                    break;
                }
            }
        }
        assert!(
            boards > 5_000 && found > 100,
            "{boards} boards, {found} with steps"
        );
    }
}
