//! Singles, locked candidates, naked and hidden subsets, basic fish.

use super::{
    bits_of, candidate_counts, cells_of, digit_count, digits_of, is_single, units_of,
    Contradiction, Stack, State, Step, Steps, Technique, ALL_CELLS, UNIT_MASK,
};
use crate::grid::{CELLS, UNITS};

/// The subsets of `n` members (`n` >= 1) of a nine-bit `mask`, in increasing order: the
/// combinations a subset or fish rung tries.
pub(super) fn combos_within(mask: u16, n: usize) -> impl Iterator<Item = u16> {
    let mut members = [0u16; 9];
    let mut k = 0;
    for d in digits_of(mask) {
        members[k] = 1 << d;
        k += 1;
    }
    // Gosper's hack over indices into `members`: index masks come in increasing order, and
    // mapping them to members keeps that order.
    let end = 1u32 << k;
    let mut x: u32 = if (1..=k).contains(&n) {
        (1 << n) - 1
    } else {
        end
    };
    std::iter::from_fn(move || {
        if x >= end {
            return None;
        }
        let set = digits_of(x as u16).fold(0u16, |a, i| a | members[i]);
        let low = x & x.wrapping_neg();
        let ripple = x + low;
        x = ripple | (((x ^ ripple) >> 2) / low);
        Some(set)
    })
}

/// Calls `found(set, union)` for each subset `set` of `n` members of `eligible` (`n` >= 1) whose
/// `members` (nine-bit masks) join into a `union` of exactly `n` bits: the locked sets of the
/// subset and fish rungs. Sets come in increasing order, as from [`combos_within`], but a
/// branch is cut as soon as its members' union exceeds `n` bits, so most combinations are never
/// formed.
pub(super) fn locked_subsets(
    members: &[u16; 9],
    eligible: u16,
    n: usize,
    found: &mut impl FnMut(u16, u16),
) {
    subsets_joining(members, eligible, n, n, found);
}

/// Calls `found(set, union)` for each subset `set` of `min..=n` members of `eligible` (`min` >= 1)
/// whose members join into a `union` of as many bits as the set has members: the locked sets of
/// every size at once, in one walk (a set's smaller subsets are walked once, not once per size).
/// The order is not [`locked_subsets`]'s: a rung that needs that order searches one size.
pub(super) fn locked_subsets_upto(
    members: &[u16; 9],
    eligible: u16,
    min: usize,
    n: usize,
    found: &mut impl FnMut(u16, u16),
) {
    fn below<F: FnMut(u16, u16)>(
        members: &[u16; 9],
        allowed: u16,
        (set, size, union): (u16, usize, u16),
        (min, n): (usize, usize),
        found: &mut F,
    ) {
        for top in digits_of(allowed) {
            let union = union | members[top];
            let bits = digit_count(union) as usize;
            let (set, size) = (set | 1 << top, size + 1);
            let rest = allowed & ((1 << top) - 1);
            // A locked set from here has as many members as bits, at least `bits` and at most
            // `n`, the members still to add coming from `rest`.
            if bits > n || bits > size + digit_count(rest) as usize {
                continue;
            }
            if bits == size && size >= min {
                found(set, union);
            }
            if size < n {
                below(members, rest, (set, size, union), (min, n), found);
            }
        }
    }
    below(members, eligible & 0x1ff, (0, 0, 0), (min, n), found);
}

/// Calls `found(set, union)` for each subset `set` of `n` members of `eligible` (`n` >= 1) whose
/// members join into a `union` of exactly `bits` bits (`bits` >= `n`), in increasing order, as
/// [`locked_subsets`] (`bits` = `n`) does; with `bits` = `n + 1`, the almost locked sets.
pub(super) fn subsets_joining(
    members: &[u16; 9],
    eligible: u16,
    n: usize,
    bits: usize,
    found: &mut impl FnMut(u16, u16),
) {
    // The highest member is chosen first, in increasing order, then the next below it, and so
    // on: that walks the sets in increasing numeric order.
    fn below<F: FnMut(u16, u16)>(
        members: &[u16; 9],
        allowed: u16,
        left: usize,
        set: u16,
        union: u16,
        bits: usize,
        found: &mut F,
    ) {
        for top in digits_of(allowed) {
            let rest = allowed & ((1 << top) - 1);
            if (digit_count(rest) as usize) + 1 < left {
                continue;
            }
            let union = union | members[top];
            let size = digit_count(union) as usize;
            if size > bits {
                continue;
            }
            if left == 1 {
                if size == bits {
                    found(set | 1 << top, union);
                }
            } else {
                below(members, rest, left - 1, set | 1 << top, union, bits, found);
            }
        }
    }
    if n == 2 {
        // Pairs, the commonest search, without the recursion: by the higher member, then the
        // lower, the same order.
        let eligible = eligible & 0x1ff;
        for b in digits_of(eligible) {
            let high = members[b];
            if digit_count(high) as usize > bits {
                continue;
            }
            for a in digits_of(eligible & ((1 << b) - 1)) {
                let union = high | members[a];
                if digit_count(union) as usize == bits {
                    found(1 << a | 1 << b, union);
                }
            }
        }
    } else if n >= 1 {
        below(members, eligible & 0x1ff, n, 0, 0, bits, found);
    }
}

/// Calls `found(size, set, union)` for each subset `set` of `1..=n` members of `eligible` whose
/// members join into a `union` of `size + 1` bits: the almost locked sets of every size at once,
/// in one walk (a set's smaller subsets are walked once, not once per size). The sets of each
/// size `k` come in increasing order, as from [`subsets_joining`] with `n = k` and `bits = k + 1`;
/// the sizes interleave.
pub(super) fn almost_locked_subsets_upto(
    members: &[u16; 9],
    eligible: u16,
    n: usize,
    found: &mut impl FnMut(usize, u16, u16),
) {
    fn below<F: FnMut(usize, u16, u16)>(
        members: &[u16; 9],
        allowed: u16,
        (set, size, union): (u16, usize, u16),
        n: usize,
        found: &mut F,
    ) {
        for top in digits_of(allowed) {
            let union = union | members[top];
            let bits = digit_count(union) as usize;
            let (set, size) = (set | 1 << top, size + 1);
            let rest = allowed & ((1 << top) - 1);
            // A set from here has one bit more than members, at least `bits` and at most
            // `n + 1`, the members still to add coming from `rest`.
            if bits > n + 1 || bits > size + 1 + digit_count(rest) as usize {
                continue;
            }
            if bits == size + 1 {
                found(size, set, union);
            }
            if size < n {
                below(members, rest, (set, size, union), n, found);
            }
        }
    }
    below(members, eligible & 0x1ff, (0, 0, 0), n, found);
}

/// Column 0's cells at each set of positions (bit `i`: row `i`), for [`cells_at`].
const COLUMN_CELLS: [u128; 512] = {
    let mut t = [0u128; 512];
    let mut pos = 0;
    while pos < 512 {
        let mut i = 0;
        while i < 9 {
            t[pos] |= ((pos as u128) >> i & 1) << (9 * i);
            i += 1;
        }
        pos += 1;
    }
    t
};

/// The bits 0, 9, ..., 72 of `x` (a column's cells, shifted to column 0) as nine positions:
/// one multiply gathers the eight in the low word (they are nine bits apart, so the shifted
/// copies never collide) into its top byte.
fn column_positions(x: u128) -> u16 {
    const DIAGONAL: u64 = 0x8040_2010_0804_0201;
    let low = ((x as u64 & DIAGONAL).wrapping_mul(0x0101_0101_0101_0101) >> 56) as u16;
    low | ((x >> 72) as u16 & 1) << 8
}

/// The cells of unit `u` as a bitset over its nine positions, mapped from a cell bitset.
pub(super) fn positions(unit: usize, cells: u128) -> u16 {
    debug_assert!(unit < 27);
    match unit {
        0..=8 => (cells >> (9 * unit)) as u16 & 0x1ff,
        9..=17 => column_positions(cells >> (unit - 9)),
        _ => {
            let b = unit - 18;
            let x = cells >> (b / 3 * 27 + b % 3 * 3);
            (x as u16 & 7) | ((x >> 9) as u16 & 7) << 3 | ((x >> 18) as u16 & 7) << 6
        }
    }
}

/// The positions of `cells` in each of the nine lines from unit `base` (0: rows, 9: columns).
// Inlined: with `base` known, each line's positions are a shift (rows) or a multiply (columns).
#[inline(always)]
pub(super) fn line_positions(cells: u128, base: usize) -> [u16; 9] {
    let mut lines = [0u16; 9];
    for (i, line) in lines.iter_mut().enumerate() {
        *line = positions(base + i, cells);
    }
    lines
}

/// The cells of unit `u` at the positions of `pos`.
pub(super) fn cells_at(unit: usize, pos: u16) -> u128 {
    debug_assert!(unit < 27);
    let pos = u128::from(pos & 0x1ff);
    match unit {
        0..=8 => pos << (9 * unit),
        9..=17 => COLUMN_CELLS[pos as usize] << (unit - 9),
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

/// The cells the singles (the rungs, and trial's pass over each assumption) have placed this
/// round, as two words: testing a bit of a `u128` at a variable position takes several
/// instructions, of a `u64` one.
#[derive(Default)]
struct Placed([u64; 2]);

impl Placed {
    /// Adds cell `c`; false if it was there already.
    #[inline(always)]
    fn insert(&mut self, c: usize) -> bool {
        let (word, bit) = (c / 64, 1u64 << (c % 64));
        let new = self.0[word] & bit == 0;
        self.0[word] |= bit;
        new
    }

    fn cells(&self) -> u128 {
        u128::from(self.0[0]) | u128::from(self.0[1]) << 64
    }
}

fn single(technique: Technique, cell: usize, d: usize) -> Step {
    let mut s = Step::new(technique);
    s.place = Some((cell as u8, d as u8 + 1));
    s
}

/// Full house: the last empty cell of a unit.
pub(super) fn full_house(s: &State, out: &mut Steps) {
    full_houses(s, |c, d, u| {
        out.push(single_in(Technique::FullHouse, c, d, u))
    });
}

/// A single's step: its technique, what it places and the unit it was found in.
pub(super) fn single_in(technique: Technique, cell: usize, d: usize, unit: usize) -> Step {
    let mut step = single(technique, cell, d);
    step.unit = Some(unit as u8);
    step
}

/// The full houses, each handed to `found` as (cell, digit, unit), one per cell.
#[inline(always)]
fn full_houses(s: &State, mut found: impl FnMut(usize, usize, usize)) {
    let mut done = Placed::default();
    let placed = placed_in_units(s);
    // A unit's values are distinct (`State::new` and `State::place` refuse a digit its units
    // hold), so one empty cell is eight digits placed, one digit missing: only such a unit
    // needs its cells read. Found for all units first, without a branch each.
    let mut houses = 0u32;
    for (u, &p) in placed.iter().enumerate() {
        houses |= u32::from((!p & 0x1ff).is_power_of_two()) << u;
    }
    while houses != 0 {
        let u = houses.trailing_zeros() as usize;
        houses &= houses - 1;
        // The unit's empty cell, read from all nine without a branch each (a search that
        // stops at it mispredicts where it stops).
        let mut c = CELLS;
        for &e in &UNITS[u] {
            let e = usize::from(e);
            c = if s.value[e] == 0 { e } else { c };
        }
        if c == CELLS {
            continue;
        }
        if done.insert(c) {
            let missing = !placed[u] & 0x1ff;
            found(c, missing.trailing_zeros() as usize, u);
        }
    }
}

/// Per unit (rows 0-8, columns 9-17, boxes 18-26): the digits with a candidate in it (`any`)
/// and those with two or more (`twice`), from each cell's candidates.
pub(super) struct UnitDigits {
    pub(super) any: [u16; 27],
    pub(super) twice: [u16; 27],
}

impl UnitDigits {
    /// The digits with exactly one place in unit `u`.
    #[inline(always)]
    pub(super) fn single(&self, u: usize) -> u16 {
        self.any[u] & !self.twice[u]
    }

    /// The units (bit `u`) with a digit that has exactly one place: found without a branch per
    /// unit, so that a walk over the singles visits those units only (one branch per unit, most
    /// of them empty, was a fifth of the mispredicted branches of grading 17-clue puzzles).
    #[inline(always)]
    pub(super) fn units_with_singles(&self) -> u32 {
        let mut units = 0u32;
        for u in 0..27 {
            units |= u32::from(self.single(u) != 0) << u;
        }
        units
    }

    /// Whether some unit has a digit with neither a place nor a value (`placed`, per unit), as
    /// the board's check counts a dead board.
    #[inline(always)]
    pub(super) fn dead(&self, placed: &[u16; 27]) -> bool {
        let mut dead = false;
        for (&any, &placed) in self.any.iter().zip(placed) {
            dead |= any | placed != 0x1ff;
        }
        dead
    }
}

/// Which units [`unit_digits`] sums.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Units {
    Boxes,
    /// Rows and columns.
    Lines,
    All,
}

/// Sums each unit's candidates ([`UnitDigits`]) for the units `which` (the others stay 0).
///
/// On x86-64 eight cells at a time with SSE2 (part of the baseline): a column is a lane summed
/// over the rows, a row a lane after transposing the first eight rows and columns, a box three
/// lanes of its band's sum; the ninth column and row are added a cell at a time. Other targets
/// add up the 243 (unit, cell) pairs one by one (measured on x86-64: the vector sums took the
/// whole grade of 17-clue puzzles, where hidden singles run in nearly every round, to 14% fewer
/// instructions).
#[inline]
pub(super) fn unit_digits(cand: &[u16; CELLS], which: Units) -> UnitDigits {
    #[cfg(target_arch = "x86_64")]
    {
        unit_digits_sse2(cand, which)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        unit_digits_by_cell(cand, which)
    }
}

/// [`unit_digits`] one (unit, cell) pair at a time: the version for targets other than x86-64,
/// and the reference the vector version is tested against.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
fn unit_digits_by_cell(cand: &[u16; CELLS], which: Units) -> UnitDigits {
    let units = match which {
        Units::Boxes => 18..27,
        Units::Lines => 0..18,
        Units::All => 0..27,
    };
    let mut sums = UnitDigits {
        any: [0; 27],
        twice: [0; 27],
    };
    for u in units {
        for &c in &UNITS[u] {
            let k = cand[usize::from(c)];
            sums.twice[u] |= sums.any[u] & k;
            sums.any[u] |= k;
        }
    }
    sums
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn unit_digits_sse2(cand: &[u16; CELLS], which: Units) -> UnitDigits {
    use std::arch::x86_64::*;
    let mut sums = UnitDigits {
        any: [0; 27],
        twice: [0; 27],
    };
    let lines = which != Units::Boxes;
    let boxes = which != Units::Lines;
    // SAFETY: SSE2 is part of the x86-64 baseline, so every intrinsic below is available. Each
    // load reads the eight cells `9 * r..9 * r + 8` (r <= 8: at most cell 79 of the 81), and
    // each store writes eight `u16` from index 0 or 9 of a 27-entry array (at most index 16).
    unsafe {
        // Lane j of `rows[r]`: the candidates of cell (r, j), j < 8.
        let rows: [__m128i; 9] =
            std::array::from_fn(|r| _mm_loadu_si128(cand.as_ptr().add(9 * r).cast()));
        // Sums of vectors, lane by lane.
        let sum = |vs: &[__m128i]| {
            let (mut any, mut twice) = (_mm_setzero_si128(), _mm_setzero_si128());
            for &v in vs {
                twice = _mm_or_si128(twice, _mm_and_si128(any, v));
                any = _mm_or_si128(any, v);
            }
            (any, twice)
        };
        let store = |to: &mut [u16; 27], at: usize, v: __m128i| {
            _mm_storeu_si128(to.as_mut_ptr().add(at).cast(), v);
        };
        if lines {
            // Columns 0-7: lane j summed over the nine rows.
            let (any, twice) = sum(&rows);
            store(&mut sums.any, 9, any);
            store(&mut sums.twice, 9, twice);
            // Rows 0-7: transposed, lane r of `cols[j]` is cell (r, j) (the sums need only each
            // row in its own lane, not the columns in order).
            let [r0, r1, r2, r3, r4, r5, r6, r7, _] = rows;
            let a = [
                _mm_unpacklo_epi16(r0, r1),
                _mm_unpackhi_epi16(r0, r1),
                _mm_unpacklo_epi16(r2, r3),
                _mm_unpackhi_epi16(r2, r3),
                _mm_unpacklo_epi16(r4, r5),
                _mm_unpackhi_epi16(r4, r5),
                _mm_unpacklo_epi16(r6, r7),
                _mm_unpackhi_epi16(r6, r7),
            ];
            let b = [
                _mm_unpacklo_epi32(a[0], a[2]),
                _mm_unpackhi_epi32(a[0], a[2]),
                _mm_unpacklo_epi32(a[1], a[3]),
                _mm_unpackhi_epi32(a[1], a[3]),
                _mm_unpacklo_epi32(a[4], a[6]),
                _mm_unpackhi_epi32(a[4], a[6]),
                _mm_unpacklo_epi32(a[5], a[7]),
                _mm_unpackhi_epi32(a[5], a[7]),
            ];
            let cols = [
                _mm_unpacklo_epi64(b[0], b[4]),
                _mm_unpackhi_epi64(b[0], b[4]),
                _mm_unpacklo_epi64(b[1], b[5]),
                _mm_unpackhi_epi64(b[1], b[5]),
                _mm_unpacklo_epi64(b[2], b[6]),
                _mm_unpackhi_epi64(b[2], b[6]),
                _mm_unpacklo_epi64(b[3], b[7]),
                _mm_unpackhi_epi64(b[3], b[7]),
            ];
            let (any, twice) = sum(&cols);
            store(&mut sums.any, 0, any);
            store(&mut sums.twice, 0, twice);
        }
        if boxes {
            for band in 0..3 {
                // Lane j: column j over the band's three rows; then lane 3k over lanes 3k..3k+3.
                let (any, twice) = sum(&rows[3 * band..3 * band + 3]);
                let (any1, twice1) = (_mm_srli_si128::<2>(any), _mm_srli_si128::<2>(twice));
                let (any2, twice2) = (_mm_srli_si128::<4>(any), _mm_srli_si128::<4>(twice));
                let twice = _mm_or_si128(_mm_or_si128(twice, twice1), twice2);
                let twice = _mm_or_si128(twice, _mm_and_si128(any, any1));
                let any = _mm_or_si128(any, any1);
                let twice = _mm_or_si128(twice, _mm_and_si128(any, any2));
                let any = _mm_or_si128(any, any2);
                let u = 18 + 3 * band;
                sums.any[u] = _mm_extract_epi16::<0>(any) as u16;
                sums.twice[u] = _mm_extract_epi16::<0>(twice) as u16;
                sums.any[u + 1] = _mm_extract_epi16::<3>(any) as u16;
                sums.twice[u + 1] = _mm_extract_epi16::<3>(twice) as u16;
                // Columns 6 and 7 (the shifts bring in zeros past lane 7): column 8 is added
                // below.
                sums.any[u + 2] = _mm_extract_epi16::<6>(any) as u16;
                sums.twice[u + 2] = _mm_extract_epi16::<6>(twice) as u16;
            }
        }
    }
    let add = |sums: &mut UnitDigits, u: usize, k: u16| {
        sums.twice[u] |= sums.any[u] & k;
        sums.any[u] |= k;
    };
    // The ninth column: to itself, to each row and to the third box of each band.
    for r in 0..9 {
        let k = cand[9 * r + 8];
        if lines {
            add(&mut sums, 17, k);
            add(&mut sums, r, k);
        }
        if boxes {
            add(&mut sums, 20 + r / 3 * 3, k);
        }
    }
    // The ninth row's other cells (sums do not depend on the order of the cells).
    if lines {
        for &k in &cand[72..80] {
            add(&mut sums, 8, k);
        }
    }
    sums
}

/// Hidden singles: in boxes only (`boxes`), or in rows and columns.
pub(super) fn hidden_singles(s: &State, boxes: bool, out: &mut Steps) {
    let technique = if boxes {
        Technique::HiddenSingleBox
    } else {
        Technique::HiddenSingle
    };
    hidden_singles_found(s, boxes, |c, d, u| out.push(single_in(technique, c, d, u)));
}

/// The hidden singles in boxes only (`boxes`), or in rows and columns, each handed to `found`
/// as (cell, digit, unit), one per cell.
#[inline(always)]
fn hidden_singles_found(s: &State, boxes: bool, mut found: impl FnMut(usize, usize, usize)) {
    let masks = &s.digits;
    let (units, which) = if boxes {
        (0x1ff << 18, Units::Boxes)
    } else {
        ((1 << 18) - 1, Units::Lines)
    };
    let mut done = Placed::default();
    // The digits with exactly one place in each unit: seen once, never twice (a placed digit
    // has no candidate left in its units).
    let sums = unit_digits(&s.cand, which);
    for u in bits_of(sums.units_with_singles() & units) {
        for d in digits_of(sums.single(u)) {
            let c = (masks[d] & UNIT_MASK[u]).trailing_zeros() as usize;
            if done.insert(c) {
                found(c, d, u);
            }
        }
    }
}

/// A single a singles rung found: its cell, digit (0-8) and unit.
#[derive(Clone, Copy)]
pub(super) struct Single {
    pub(super) cell: u8,
    pub(super) digit: u8,
    pub(super) unit: u8,
}

/// The first of the singles rungs (full house, hidden single in a box, in a row or column)
/// that finds something on `s`: its technique, and what it finds in `out`, in the rung's
/// order. What the ladder's rounds of singles need, without a step built for each.
pub(super) fn first_singles(s: &State, out: &mut Stack<Single, CELLS>) -> Option<Technique> {
    let push = |out: &mut Stack<Single, CELLS>, c: usize, d: usize, u: usize| {
        out.push(Single {
            cell: c as u8,
            digit: d as u8,
            unit: u as u8,
        })
    };
    full_houses(s, |c, d, u| push(out, c, d, u));
    if !out.is_empty() {
        return Some(Technique::FullHouse);
    }
    hidden_singles_found(s, true, |c, d, u| push(out, c, d, u));
    if !out.is_empty() {
        return Some(Technique::HiddenSingleBox);
    }
    hidden_singles_found(s, false, |c, d, u| push(out, c, d, u));
    (!out.is_empty()).then_some(Technique::HiddenSingle)
}

/// Places full houses and hidden singles until none is left: the number of cells placed. The
/// board it ends on is the one the ladder's rounds of singles end on, in fewer passes, for when
/// neither the rounds' order nor their names matter (see `Ladder::rounds`): on a board with a
/// solution each single holds in every solution, so it stays a single until it is placed,
/// whatever is placed first. Each pass sums the units once and places what it finds as it goes,
/// each single read from the board as it is then: one whose digit was placed in its unit since
/// is skipped. Each single is read from its digit's candidates, so its placement never clashes
/// (the `Err` is `place_in_empty`'s); on a board without a solution, a unit left with a digit
/// that has no place is left for the ladder's check of the board.
pub(super) fn singles_closure(s: &mut State) -> Result<u32, Contradiction> {
    let mut placed = 0;
    loop {
        let sums = unit_digits(&s.cand, Units::All);
        let before = placed;
        for u in bits_of(sums.units_with_singles()) {
            for d in digits_of(sums.single(u)) {
                let m = s.digits[d] & UNIT_MASK[u];
                if is_single(m) {
                    s.place_in_empty(m.trailing_zeros() as usize, d)?;
                    placed += 1;
                }
            }
        }
        if placed == before {
            return Ok(placed);
        }
    }
}

/// Every single of a board at once, for trial's closures, which apply them together: the hidden
/// singles of every unit (a full house is one too) and the naked singles, one step per cell
/// (the steps' names do not matter there, nor which of two clashing digits a cell gets: the
/// other is then a dead unit of the next round). `Err` if the board is dead: an empty cell
/// without a candidate, or a unit where a digit has neither a value nor a place. So the board
/// of each round is checked by the same pass over the units that finds its singles.
pub(super) fn all_singles(s: &State, out: &mut Steps) -> Result<(), Contradiction> {
    let [once, twice, ..] = candidate_counts(&s.digits);
    // Candidates are of empty cells only: every one has some exactly when they cover `open`.
    if once.count_ones() != u32::from(s.open) {
        return Err(Contradiction);
    }
    let sums = unit_digits(&s.cand, Units::All);
    if sums.dead(&s.units) {
        return Err(Contradiction);
    }
    let mut done = Placed::default();
    for u in bits_of(sums.units_with_singles()) {
        for d in digits_of(sums.single(u)) {
            let c = (s.digits[d] & UNIT_MASK[u]).trailing_zeros() as usize;
            if done.insert(c) {
                out.push(single(Technique::HiddenSingle, c, d));
            }
        }
    }
    for c in cells_of(once & !twice & !done.cells()) {
        let d = s.cand[c].trailing_zeros() as usize;
        out.push(single(Technique::NakedSingle, c, d));
    }
    Ok(())
}

/// Naked singles: a cell with one candidate.
pub(super) fn naked_singles(s: &State, out: &mut Steps) {
    // Placed cells are no digit's candidate.
    let [once, twice, ..] = candidate_counts(&s.digits);
    for c in cells_of(once & !twice) {
        out.push(single(
            Technique::NakedSingle,
            c,
            s.cand[c].trailing_zeros() as usize,
        ));
    }
}

/// The hidden singles of digit `d` in the units of the cells of `touched`, given the digit's
/// candidates `m` after a removal.
fn new_hidden_singles(placed: &[u16; 27], d: usize, m: u128, touched: u128) -> u128 {
    let units = units_of(touched);
    // The units without `d` placed, and the singles among them, found without a test on each
    // unit's contents: filters here mispredicted most of their tests.
    let mut open = 0u32;
    for (u, &p) in placed.iter().enumerate() {
        open |= u32::from(p >> d & 1 == 0) << u;
    }
    let mut singles = 0;
    for u in bits_of(units & open) {
        let p = m & UNIT_MASK[u];
        singles |= p & 0u128.wrapping_sub(u128::from(is_single(p)));
    }
    singles
}

/// Where locked candidates can remove something, as digit masks: for each box, and each of its
/// three rows then three columns (the order `locking` walks them), the digits that point from
/// the box along the line, and those that the line claims for the box. A digit qualifies when
/// its places in the `from` unit all lie in the intersection and it still has a place in the
/// rest of the `to` unit: a cheap sieve over the three-cell segments, so the exact test in
/// `locking` runs only where it finds something.
struct Locked {
    pointing: [[u16; 6]; 9],
    claiming: [[u16; 6]; 9],
}

fn locked_digits(s: &State) -> Locked {
    // Candidates of each segment: `rows[r][k]` the cells of row r in stack k, `cols[c][k]` the
    // cells of column c in band k.
    let mut rows = [[0u16; 3]; 9];
    let mut cols = [[0u16; 3]; 9];
    for r in 0..9 {
        let line = &s.cand[9 * r..9 * r + 9];
        for (col, &k) in line.iter().enumerate() {
            rows[r][col / 3] |= k;
            cols[col][r / 3] |= k;
        }
    }
    // For a line's three segments, `at` the one in the box: (confined to it, present elsewhere).
    let split = |seg: &[u16; 3], at: usize| {
        let others = seg[(at + 1) % 3] | seg[(at + 2) % 3];
        (seg[at] & !others, others)
    };
    let mut found = Locked {
        pointing: [[0; 6]; 9],
        claiming: [[0; 6]; 9],
    };
    for b in 0..9 {
        let (band, stack) = (b / 3, b % 3);
        for i in 0..3 {
            let (j, k) = ((i + 1) % 3, (i + 2) % 3);
            // The box's row `i`: segment rows[3 band + i][stack].
            let row = &rows[3 * band + i];
            let rest_of_box = rows[3 * band + j][stack] | rows[3 * band + k][stack];
            let (confined, elsewhere) = split(row, stack);
            found.pointing[b][i] = row[stack] & !rest_of_box & elsewhere;
            found.claiming[b][i] = confined & rest_of_box;
            // The box's column `i`: segment cols[3 stack + i][band].
            let col = &cols[3 * stack + i];
            let rest_of_box = cols[3 * stack + j][band] | cols[3 * stack + k][band];
            let (confined, elsewhere) = split(col, band);
            found.pointing[b][3 + i] = col[band] & !rest_of_box & elsewhere;
            found.claiming[b][3 + i] = confined & rest_of_box;
        }
    }
    found
}

/// Locked candidates: pointing (a box's candidates of a digit on one line) and claiming (a
/// line's candidates in one box). Direct: only those whose removals leave a hidden single,
/// which the step places.
pub(super) fn direct_locking(s: &State, out: &mut Steps) {
    locking_of(s, true, &[0x1ff; 27], out);
}

/// Locked candidates (not direct) of the digits whose candidates changed in the unit they lock
/// from (`removed`, by digit, see [`super::Todo`]): an instance whose box (pointing) or line
/// (claiming) holds the same candidates of its digit as on a board searched before was found
/// there, with every removal it makes.
pub(super) fn locking_in(s: &State, removed: &[u128; 9], out: &mut Steps) {
    if removed.iter().all(|&m| m == ALL_CELLS) {
        return locking_of(s, false, &[0x1ff; 27], out);
    }
    // Bit `d` of `changed[u]`: digit `d + 1` lost a candidate in unit `u`. Written into the
    // units' words directly: going through `units_of` and its bits cost 2% more instructions
    // on the hard sets.
    let mut changed = [0u16; 27];
    for (d, &m) in removed.iter().enumerate() {
        if m == 0 {
            continue;
        }
        let mut columns = 0u32;
        for b in 0..3 {
            let mut band = 0u32;
            for r in 3 * b..3 * b + 3 {
                let row = (m >> (9 * r)) as u32 & 0x1ff;
                changed[r] |= u16::from(row != 0) << d;
                band |= row;
            }
            columns |= band;
            for k in 0..3 {
                changed[18 + 3 * b + k] |= u16::from(band >> (3 * k) & 7 != 0) << d;
            }
        }
        for c in 0..9 {
            changed[9 + c] |= ((columns >> c & 1) as u16) << d;
        }
    }
    locking_of(s, false, &changed, out);
}

/// Locked candidates (with `direct`, those that leave a hidden single, placed by the step) of
/// the digits `changed` names for the unit each instance locks from.
fn locking_of(s: &State, direct: bool, changed: &[u16; 27], out: &mut Steps) {
    let masks = &s.digits;
    let placed = placed_in_units(s);
    let mut found = locked_digits(s);
    for b in 0..9 {
        let (band, stack) = (b / 3, b % 3);
        for i in 0..3 {
            found.pointing[b][i] &= changed[18 + b];
            found.pointing[b][3 + i] &= changed[18 + b];
            found.claiming[b][i] &= changed[3 * band + i];
            found.claiming[b][3 + i] &= changed[9 + 3 * stack + i];
        }
    }
    // Pointing first (it scores lower), then claiming.
    for (pointing, found) in [(true, found.pointing), (false, found.claiming)] {
        let any = found.iter().flatten().fold(0, |a, &k| a | k);
        // The (box, line) places the sieve kept, in the order they are walked for each digit.
        let mut kept: Stack<(u8, u8, u16), 54> = Stack::new();
        for (b, lines) in found.iter().enumerate() {
            for (i, &digits) in lines.iter().enumerate() {
                if digits != 0 {
                    kept.push((b as u8, i as u8, digits));
                }
            }
        }
        for (d, &m) in masks.iter().enumerate() {
            if any >> d & 1 == 0 {
                continue;
            }
            for &(b, i, digits) in kept.as_slice() {
                if digits >> d & 1 == 0 {
                    continue;
                }
                let (b, i) = (18 + usize::from(b), usize::from(i));
                // The box's three rows, then its three columns.
                let line = match i {
                    0..=2 => (b - 18) / 3 * 3 + i,
                    _ => 9 + (b - 18) % 3 * 3 + i - 3,
                };
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
        if !out.is_empty() {
            // Pointing scores below claiming: claiming only when no pointing.
            return;
        }
    }
}

/// Hidden subsets of `n` digits: `n` digits whose places in a unit are the same `n` cells; the
/// cells' other candidates go. With `direct`, only those whose removals leave another digit of
/// the unit a single place, which the step places. Only the units of `units` are searched.
pub(super) fn hidden_sets(s: &State, n: usize, direct: bool, units: u32, out: &mut Steps) {
    hidden_sets_sized(s, n, n, direct, units, out);
}

/// The largest set the searches of `min..=n` members at once (trial's, which needs only what
/// they remove, not which finds it) look for among `open` cells (lines): `n`, or half of
/// `open` when that is less. A naked set of `s` of a unit's `open` empty cells leaves the
/// unit's other digits a hidden set of the other `open - s` cells, and both remove the same
/// candidates (the set's digits from the other cells); so on a board that still has a
/// solution, every locked set of a unit is found by one of the two searches at half the size or
/// less. On one that has none, a complement may break Hall's condition, but then it holds a
/// smaller locked set: the capped searches find nothing only where the uncapped ones find
/// nothing, so a closure ends on the same board. Fish likewise, rows against columns. One size
/// only (`min == n`, the ladder's own rungs) is searched as asked.
fn at_most(min: usize, n: usize, open: usize) -> usize {
    match min == n {
        true => n,
        false => n.min(open / 2),
    }
}

/// Hidden subsets of `min..=n` digits at once, in no set order, sizes capped as [`at_most`]
/// says: see [`hidden_sets`].
pub(super) fn hidden_sets_sized(
    s: &State,
    min: usize,
    n: usize,
    direct: bool,
    units: u32,
    out: &mut Steps,
) {
    let masks = &s.digits;
    let placed = placed_in_units(s);
    for u in (0..27).filter(|&u| units >> u & 1 == 1) {
        let free = 9 - digit_count(placed[u]) as usize;
        if free <= min {
            continue;
        }
        let n = at_most(min, n, free);
        // The places of each digit in the unit, and the digits with 2..=n of them.
        let pos: [u16; 9] = std::array::from_fn(|d| positions(u, masks[d]));
        let mut eligible = 0u16;
        for d in 0..9 {
            if (2..=n).contains(&(digit_count(pos[d]) as usize)) {
                eligible |= 1 << d;
            }
        }
        let mut found = |set: u16, cells_pos: u16| {
            let cells = cells_at(u, cells_pos);
            let mut step = Step::new(match (digit_count(set), direct) {
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
                return;
            }
            step.cells = cells;
            step.digits = set;
            if direct {
                // One step per digit of the unit left a single place.
                for d in 0..9 {
                    let left = masks[d] & !cells & UNIT_MASK[u];
                    if set >> d & 1 == 0 && placed[u] >> d & 1 == 0 && is_single(left) {
                        step.place = Some((left.trailing_zeros() as u8, d as u8 + 1));
                        out.push(step);
                    }
                }
                return;
            }
            out.push(step);
        };
        if min == n {
            locked_subsets(&pos, eligible, n, &mut found);
        } else {
            locked_subsets_upto(&pos, eligible, min, n, &mut found);
        }
    }
}

/// Naked subsets of `n` cells: `n` cells of a unit whose candidates are `n` digits; the digits go
/// from the unit's other cells. Only the units of `units` are searched.
pub(super) fn naked_sets(s: &State, n: usize, units: u32, out: &mut Steps) {
    naked_sets_sized(s, n, n, units, out);
}

/// Naked subsets of `min..=n` cells at once, in no set order, sizes capped as [`at_most`] says:
/// see [`naked_sets`].
pub(super) fn naked_sets_sized(s: &State, min: usize, n: usize, units: u32, out: &mut Steps) {
    let masks = &s.digits;
    let placed = placed_in_units(s);
    // The cells that can be members of a set of at most `k` cells (quads at most): those with
    // 2..=k candidates.
    let [_, two, three, four, five] = candidate_counts(masks);
    let members_upto = [0, 0, two & !three, two & !four, two & !five];
    debug_assert!(n < members_upto.len());
    for (u, unit) in UNITS.iter().enumerate() {
        if units >> u & 1 == 0 {
            continue;
        }
        // A unit's values are distinct, so it has as many empty cells as digits not placed.
        let empty = 9 - digit_count(placed[u]) as usize;
        if empty <= min {
            continue;
        }
        let n = at_most(min, n, empty);
        let cands: [u16; 9] = std::array::from_fn(|i| s.cand[usize::from(unit[i])]);
        let eligible = positions(u, members_upto[n]);
        let mut found = |set: u16, digits: u16| {
            let cells = cells_at(u, set);
            let mut step = Step::new(match digit_count(set) {
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
                return;
            }
            step.cells = cells;
            step.digits = digits;
            out.push(step);
        };
        if min == n {
            locked_subsets(&cands, eligible, n, &mut found);
        } else {
            locked_subsets_upto(&cands, eligible, min, n, &mut found);
        }
    }
}

/// Basic fish of size `n` (X-Wing, Swordfish, Jellyfish): `n` rows (columns) whose candidates of a
/// digit lie in `n` columns (rows); the digit goes from the rest of those columns (rows). Only
/// the digits of `digits` (bit `d` for digit `d + 1`) are searched.
pub(super) fn fish(s: &State, n: usize, digits: u16, out: &mut Steps) {
    fish_sized(s, n, n, digits, out);
}

/// Basic fish of `min..=n` lines at once, in no set order, sizes capped as [`at_most`] says:
/// see [`fish`]. A fish of `s` rows among the `k` rows where the digit is not placed is a fish
/// of the other `k - s` columns, with the same removals (the rows' places lie in the `s`
/// columns, so the other columns' places lie in the other rows).
pub(super) fn fish_sized(s: &State, min: usize, n: usize, digits: u16, out: &mut Steps) {
    let masks = &s.digits;
    for (d, &m) in masks.iter().enumerate() {
        if digits >> d & 1 == 0 {
            continue;
        }
        let open_rows = line_positions(m, 0).iter().filter(|&&p| p != 0).count();
        let n = at_most(min, n, open_rows);
        for rows in [true, false] {
            let (base, cover) = if rows { (0, 9) } else { (9, 0) };
            let lines = line_positions(m, base);
            let eligible = (0..9).fold(0u16, |a, i| {
                a | u16::from((2..=n).contains(&(digit_count(lines[i]) as usize))) << i
            });
            let mut found = |set: u16, covers: u16| {
                let base_cells = digits_of(set).fold(0u128, |a, i| a | UNIT_MASK[base + i]);
                let cover_cells = digits_of(covers).fold(0u128, |a, i| a | UNIT_MASK[cover + i]);
                let elim = m & cover_cells & !base_cells;
                if elim == 0 {
                    return;
                }
                let mut step = Step::new(match digit_count(set) {
                    2 => Technique::XWing,
                    3 => Technique::Swordfish,
                    _ => Technique::Jellyfish,
                });
                step.eliminations[d] = elim;
                step.cells = m & base_cells;
                step.digits = 1 << d;
                out.push(step);
            };
            if min == n {
                locked_subsets(&lines, eligible, n, &mut found);
            } else {
                locked_subsets_upto(&lines, eligible, min, n, &mut found);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combos_within_are_the_subsets_in_order() {
        for mask in 0..512u16 {
            for n in 1..=4 {
                let filtered: Vec<u16> = (0..512u16)
                    .filter(|&set| set.count_ones() as usize == n && set & !mask == 0)
                    .collect();
                let found: Vec<u16> = combos_within(mask, n).collect();
                assert_eq!(found, filtered, "mask {mask:b}, n {n}");
            }
        }
    }

    #[test]
    fn locked_subsets_are_the_closed_combinations_in_order() {
        // Member masks from a fixed generator, dense and sparse (the rungs' members have 2..=n
        // bits, but the enumeration must not depend on that).
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..3000 {
            let members: [u16; 9] = std::array::from_fn(|_| {
                let r = next();
                let m = r as u16 & 0x1ff;
                if round % 2 == 0 {
                    m & (r >> 16) as u16 & (r >> 32) as u16
                } else {
                    m
                }
            });
            let eligible = next() as u16 & 0x1ff;
            for n in 1..=4 {
                let union = |set: u16| digits_of(set).fold(0u16, |a, i| a | members[i]);
                let filtered: Vec<(u16, u16)> = combos_within(eligible, n)
                    .filter(|&set| digit_count(union(set)) as usize == n)
                    .map(|set| (set, union(set)))
                    .collect();
                let mut found = Vec::new();
                locked_subsets(&members, eligible, n, &mut |set, u| found.push((set, u)));
                assert_eq!(
                    found, filtered,
                    "members {members:?}, eligible {eligible:b}, n {n}"
                );
                // Every size up to `n` at once: the same sets, in any order.
                let mut filtered: Vec<(u16, u16)> = (1..=n)
                    .flat_map(|k| combos_within(eligible, k))
                    .filter(|&set| digit_count(union(set)) == set.count_ones())
                    .map(|set| (set, union(set)))
                    .collect();
                let mut found = Vec::new();
                locked_subsets_upto(&members, eligible, 1, n, &mut |set, u| found.push((set, u)));
                filtered.sort_unstable();
                found.sort_unstable();
                assert_eq!(found, filtered, "members {members:?}, up to {n}");
                // One bit more: the almost locked sets.
                let filtered: Vec<(u16, u16)> = combos_within(eligible, n)
                    .filter(|&set| digit_count(union(set)) as usize == n + 1)
                    .map(|set| (set, union(set)))
                    .collect();
                let mut found = Vec::new();
                subsets_joining(&members, eligible, n, n + 1, &mut |set, u| {
                    found.push((set, u))
                });
                assert_eq!(found, filtered, "members {members:?}, n {n}, one bit more");
                // Every size up to `n` in one walk: each size's sets in the same order.
                let mut sized = vec![Vec::new(); n];
                almost_locked_subsets_upto(&members, eligible, n, &mut |size, set, u| {
                    sized[size - 1].push((set, u))
                });
                for (k, found) in sized.iter().enumerate() {
                    let filtered: Vec<(u16, u16)> = combos_within(eligible, k + 1)
                        .filter(|&set| digit_count(union(set)) as usize == k + 2)
                        .map(|set| (set, union(set)))
                        .collect();
                    assert_eq!(
                        found,
                        &filtered,
                        "members {members:?}, size {} of {n}",
                        k + 1
                    );
                }
            }
        }
    }

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

    /// The vector sums of the units equal the cell-by-cell sums, for each choice of units: on
    /// random candidates (every mix of none, one, two and more candidates per cell), with every
    /// cell of one unit emptied, and with one cell's candidates alone.
    #[test]
    fn unit_digits_sums_every_unit_as_cell_by_cell() {
        use crate::rng::SplitMix64;
        let mut rng = SplitMix64(27);
        let mut boards: Vec<[u16; CELLS]> = Vec::new();
        for density in [0u64, 1, 2, 4, 8, 16] {
            for _ in 0..200 {
                boards.push(std::array::from_fn(|_| {
                    let r = rng.next_u64();
                    // Else one candidate or none (a filled cell), so that units with one
                    // place for a digit (any but not twice) occur.
                    if r % 17 < density {
                        (r >> 8) as u16 & 0x1ff
                    } else if r >> 20 & 1 == 0 {
                        1 << ((r >> 8) % 9)
                    } else {
                        0
                    }
                }));
            }
        }
        for u in 0..27 {
            let mut b = boards[u];
            for &c in &UNITS[u] {
                b[usize::from(c)] = 0;
            }
            boards.push(b);
        }
        for c in 0..CELLS {
            let mut b = [0u16; CELLS];
            b[c] = 0x1ff;
            boards.push(b);
        }
        let mut singles = 0;
        for b in &boards {
            for which in [Units::Boxes, Units::Lines, Units::All] {
                let (fast, slow) = (unit_digits(b, which), unit_digits_by_cell(b, which));
                assert_eq!(fast.any, slow.any, "{b:?}");
                assert_eq!(fast.twice, slow.twice, "{b:?}");
                singles += (0..27).filter(|&u| slow.single(u) != 0).count();
            }
        }
        assert!(singles > 1000, "{singles} units with a single");
    }

    /// `all_singles` places what the four singles rungs place (one digit a cell) and reports a
    /// dead board exactly where `State::check` does, on the boards of a path by singles and on
    /// those boards less a few candidates taken at random.
    #[test]
    fn all_singles_finds_what_the_singles_rungs_find_and_checks_the_board() {
        use crate::generate::{puzzle, Mode};
        use crate::grade::run_rung;
        use crate::grade::SINGLE_RUNGS as singles;
        use crate::rng::SplitMix64;
        let placements = |steps: &Steps| {
            let mut by_cell = [0u16; 81];
            for (c, v) in steps.steps().iter().filter_map(|s| s.place) {
                by_cell[usize::from(c)] |= 1 << (v - 1);
            }
            by_cell
        };
        let mut rng = SplitMix64(25);
        let (mut boards, mut dead, mut with_singles) = (0, 0, 0);
        for i in 0..600 {
            let p = puzzle(11, i, Mode::Minimal, None);
            let mut s = State::new(&p).expect("no clash");
            let mut rungs = Steps::new();
            let mut ours = Steps::new();
            // The boards of a path by singles, each also with a few candidates taken at random
            // (dead boards among them).
            loop {
                let mut board = s;
                for k in 0..4 {
                    boards += 1;
                    rungs.clear();
                    ours.clear();
                    for &rung in &singles {
                        run_rung(&board, rung, &mut rungs);
                    }
                    let found = all_singles(&board, &mut ours);
                    assert_eq!(found.is_err(), board.check().is_err(), "{p} ({k})");
                    if found.is_err() {
                        dead += 1;
                    } else {
                        let (theirs, ours) = (placements(&rungs), placements(&ours));
                        with_singles += usize::from(ours != [0; 81]);
                        for c in 0..81 {
                            // One step a cell: one of the digits the rungs place there.
                            assert_eq!(ours[c].count_ones(), u32::from(theirs[c] != 0), "{p}");
                            assert_eq!(ours[c] & !theirs[c], 0, "{p}");
                        }
                    }
                    let open: Vec<usize> = (0..81).filter(|&c| board.cand[c] != 0).collect();
                    if open.is_empty() {
                        break;
                    }
                    let c = open[(rng.next_u64() % open.len() as u64) as usize];
                    let d = board.cand[c].trailing_zeros() as usize;
                    board.remove(d, 1u128 << c);
                }
                rungs.clear();
                for &rung in &singles {
                    run_rung(&s, rung, &mut rungs);
                }
                if rungs.is_empty() || s.apply(rungs.steps()).is_err() {
                    break;
                }
            }
        }
        assert!(
            boards > 15_000 && dead > 2_000 && with_singles > 10_000,
            "{boards} {dead} {with_singles}"
        );
    }

    /// What the searches of every size at once remove (trial's, sizes capped at half the open
    /// cells or lines) is what the searches of one size remove (2, 3 and 4, uncapped), on
    /// boards without singles that still hold the puzzle's solution: the capped sizes lose
    /// nothing. (On boards without a solution the removals may differ; trial's own tests
    /// compare whole closures.)
    #[test]
    fn capped_searches_of_every_size_remove_what_each_size_removes() {
        use crate::generate::{puzzle, Mode};
        use crate::grade::{run_rung, SINGLE_RUNGS as singles};
        let removed = |steps: &Steps| {
            steps.steps().iter().fold([0u128; 9], |mut a, step| {
                for (a, m) in a.iter_mut().zip(step.eliminations) {
                    *a |= m;
                }
                a
            })
        };
        let (mut boards, mut removing) = (0, 0);
        for i in 0..300 {
            let p = puzzle(11, i, Mode::Minimal, None);
            let mut s = State::new(&p).expect("no clash");
            let mut buf = Steps::new();
            // The board after every single, then after each round of the combined searches.
            loop {
                buf.clear();
                for &rung in &singles {
                    run_rung(&s, rung, &mut buf);
                }
                if !buf.is_empty() {
                    if s.apply(buf.steps()).is_err() {
                        break;
                    }
                    continue;
                }
                if s.solved() {
                    break;
                }
                let (mut each, mut upto) = (Steps::new(), Steps::new());
                for n in 2..=4 {
                    naked_sets(&s, n, ALL_UNITS, &mut each);
                    hidden_sets(&s, n, false, ALL_UNITS, &mut each);
                    fish(&s, n, 0x1ff, &mut each);
                }
                naked_sets_sized(&s, 2, 4, ALL_UNITS, &mut upto);
                hidden_sets_sized(&s, 2, 4, false, ALL_UNITS, &mut upto);
                fish_sized(&s, 2, 4, 0x1ff, &mut upto);
                assert!(
                    each.len() < 96 && upto.len() < 96,
                    "{p}: too many to compare"
                );
                assert_eq!(removed(&upto), removed(&each), "{p}");
                boards += 1;
                if upto.is_empty() {
                    break;
                }
                removing += 1;
                if s.apply(upto.steps()).is_err() {
                    break;
                }
            }
        }
        eprintln!("{boards} boards, {removing} removing");
        assert!(
            boards > 300 && removing > 100,
            "{boards} boards, {removing} removing"
        );
    }

    const ALL_UNITS: u32 = (1 << 27) - 1;
}
