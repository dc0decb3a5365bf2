//! Chains (X-chains, with turbot fish as their shortest case; XY-chains; alternating inference
//! chains), forcing chains (Nishio, dynamic contradiction) and trial.
//!
//! A chain is searched breadth first from every candidate assumed false, alternating strong links
//! (one of two candidates must be true: a cell's two candidates, a digit's two places in a unit)
//! and weak links (two candidates that cannot both be true). Every candidate reached "true" ends a
//! chain that proves "the start or the end is true"; what sees both goes. Each elimination is made
//! by its shortest chain, and a round applies the eliminations of the lowest score found.

use super::{
    basic, bits_of, candidate_counts, cells_of, digit_count, digits_of, is_single, length_tenths,
    patterns, units_of, Rung, Stack, State, Step, Steps, Technique, Todo, CELL_UNITS, PEERS,
    UNIT_MASK,
};
use crate::grid::CELLS;

/// Which links a chain may use.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// One digit: strong links between a digit's two places in a unit.
    X,
    /// Strong links inside bivalue cells, weak links between equal digits.
    Xy,
    /// Every link.
    Aic,
}

const NODES: usize = CELLS * 9;

/// The best (shortest) chain found for each candidate's removal.
struct Best {
    nodes: [u8; NODES],
    ends: [(u16, u16); NODES],
    /// Placements proved by a chain from a candidate back to itself.
    place: [u8; NODES],
    /// The fewest candidates of any chain recorded.
    fewest: u8,
}

impl Best {
    /// Nothing found.
    const EMPTY: Best = Best {
        nodes: [u8::MAX; NODES],
        ends: [(0, 0); NODES],
        place: [u8::MAX; NODES],
        fewest: u8::MAX,
    };
}

fn base(kind: Kind) -> u8 {
    match kind {
        Kind::Aic => Technique::Aic.se(),
        _ => Technique::XChain.se(),
    }
}

fn score(kind: Kind, nodes: u8) -> u8 {
    base(kind) + length_tenths(u32::from(nodes))
}

/// The longest chain searched, in candidates.
const LONGEST: u8 = 60;

/// The most candidates a chain of `kind` can have and still score no more than `low`: a round
/// applies only the lowest score, so longer chains need not be searched (this bounds every
/// search by the best score found so far, and changes nothing that is applied).
fn max_nodes(kind: Kind, low: u8) -> u8 {
    let mut n = 0;
    while n < LONGEST && score(kind, n + 1) <= low {
        n += 1;
    }
    n
}

/// The shortest chains of one kind for every removal and placement, into `best` (empty); X-chains
/// of the digits of `digits` only. Returns the score of the shortest, if any.
fn best_of(
    s: &State,
    masks: &[u128; 9],
    kind: Kind,
    digits: u16,
    low: u8,
    best: &mut Best,
) -> Option<u8> {
    let mut limit = max_nodes(kind, low);
    // The limit falls only when a shorter chain is recorded.
    let mut limit_for = u8::MAX;
    let mut queue = Queue::new();
    let links = StrongLinks::of(s, masks, kind, digits);
    'starts: for c0 in 0..CELLS {
        let mut starts = s.cand[c0];
        if kind == Kind::Xy && digit_count(starts) != 2 {
            continue;
        }
        if kind == Kind::X {
            starts &= digits;
        }
        for d0 in digits_of(starts) {
            if best.fewest != limit_for {
                limit_for = best.fewest;
                limit = limit.min(max_nodes(kind, score(kind, best.fewest)));
            }
            if limit == 0 {
                break 'starts;
            }
            // A start without a strong link begins no chain.
            if !links.of_node(c0 * 9 + d0).is_empty() {
                search(s, masks, kind, &links, (c0, d0), limit, &mut queue, best);
            }
        }
    }
    // Every chain recorded counts toward `fewest`, the shortest of them.
    (best.fewest != u8::MAX).then(|| score(kind, best.fewest))
}

/// Chains: X-chains and XY-chains, then (when they score no lower) alternating inference chains
/// of every link; the round applies what the lowest-scoring chains prove.
///
/// `removed` holds the candidates removed since a board where the rung found nothing (every
/// candidate, if none): only chains through a strong link that is new since then are sought.
/// A chain whose links were all there then was a chain there too, with the same ends, and
/// removes no more now than it did then (nothing: see [`Todo`]). A new strong link is a cell
/// that lost candidates down to two, or a unit where a digit lost places down to two; so
/// X-chains are sought for the digits with a new link, XY-chains where a cell has one, and
/// alternating inference chains where any is.
#[inline(never)] // a large frame: kept out of `run_rungs`, which every round enters
pub(super) fn chains(s: &State, removed: &[u128; 9], out: &mut Steps) {
    let masks = &s.digits;
    let (new_bivalue, new_pairs) = new_strong_links(s, removed);
    let (mut x, mut xy, mut aic) = (Best::EMPTY, Best::EMPTY, Best::EMPTY);
    let x_low = match new_pairs {
        0 => None,
        _ => best_of(s, masks, Kind::X, new_pairs, u8::MAX, &mut x),
    };
    let mut low = x_low.unwrap_or(u8::MAX);
    if new_bivalue {
        low = low.min(best_of(s, masks, Kind::Xy, 0x1ff, low, &mut xy).unwrap_or(u8::MAX));
    }
    let mut aic_low = None;
    if low > base(Kind::Aic) && (new_bivalue || new_pairs != 0) {
        aic_low = best_of(s, masks, Kind::Aic, 0x1ff, low, &mut aic);
        low = low.min(aic_low.unwrap_or(u8::MAX));
    }
    if low == u8::MAX {
        return;
    }
    let mut done = [0u128; 9];
    let mut placed = [0u128; 9];
    // The removals named patterns make, which the path shows under the pattern's name: looked
    // for only where a chain they can name is applied (an X-chain longer than a turbot fish, an
    // AIC).
    let names = Names {
        traps: if x_low == Some(low) && low > Technique::TurbotFish.se() {
            patterns::coloring(masks).0
        } else {
            [0; 9]
        },
        w_wings: if aic_low == Some(low) {
            patterns::w_wing(s, masks)
        } else {
            [0; 9]
        },
    };
    for (kind, best) in [(Kind::X, &x), (Kind::Xy, &xy), (Kind::Aic, &aic)] {
        emit(kind, best, low, &names, &mut done, &mut placed, out);
    }
}

/// The new strong links since the candidates of `removed` went: whether a cell that lost some
/// has two left, and the digits (bit `d`) with a unit where they lost places and have two left.
fn new_strong_links(s: &State, removed: &[u128; 9]) -> (bool, u16) {
    let changed = removed.iter().fold(0u128, |a, &m| a | m);
    let [_, two, more, ..] = candidate_counts(&s.digits);
    let new_bivalue = two & !more & changed != 0;
    let mut new_pairs = 0u16;
    for (d, &moved) in removed.iter().enumerate() {
        if moved == 0 {
            continue;
        }
        for unit in &UNIT_MASK {
            let places = s.digits[d] & unit;
            let second = places & places.wrapping_sub(1);
            if moved & unit != 0 && second != 0 && is_single(second) {
                new_pairs |= 1 << d;
                break;
            }
        }
    }
    (new_bivalue, new_pairs)
}

/// The removals of the named patterns a chain rung shows by name.
struct Names {
    traps: [u128; 9],
    w_wings: [u128; 9],
}

fn emit(
    kind: Kind,
    best: &Best,
    low: u8,
    names: &Names,
    done: &mut [u128; 9],
    placed: &mut [u128; 9],
    out: &mut Steps,
) {
    // Nothing of this kind scores `low` (`fewest` is its shortest chain).
    if best.fewest == u8::MAX || score(kind, best.fewest) != low {
        return;
    }
    for node in 0..NODES {
        if best.place[node] == u8::MAX && best.nodes[node] == u8::MAX {
            continue;
        }
        let (c, d) = (node / 9, node % 9);
        for placing in [true, false] {
            let n = if placing {
                best.place[node]
            } else {
                best.nodes[node]
            };
            if n == u8::MAX || score(kind, n) != low {
                continue;
            }
            let seen = if placing { &mut *placed } else { &mut *done };
            if seen[d] >> c & 1 == 1 {
                continue; // proved already by a chain of an earlier kind
            }
            seen[d] |= 1u128 << c;
            let named = |m: &[u128; 9]| !placing && m[d] >> c & 1 == 1;
            let technique = match kind {
                Kind::X if n <= 4 => Technique::TurbotFish,
                Kind::X if named(&names.traps) => Technique::SimpleColoring,
                Kind::X => Technique::XChain,
                Kind::Xy => Technique::XyChain,
                Kind::Aic if named(&names.w_wings) => Technique::WWing,
                Kind::Aic => Technique::Aic,
            };
            let mut step = Step::new(technique);
            step.tenths = low;
            step.length = n;
            if placing {
                step.place = Some((c as u8, d as u8 + 1));
                step.cells = 1u128 << c;
                step.digits = 1 << d;
            } else {
                step.eliminations[d] = 1u128 << c;
                let (a, b) = best.ends[node];
                step.cells = 1u128 << (a / 9) | 1u128 << (b / 9);
                step.digits = 1 << (a % 9) | 1 << (b % 9);
            }
            out.push(step);
        }
    }
}

/// An entry of a chain search's queue: a candidate reached on (true) or off (false), with the
/// chain's candidate count there.
#[derive(Clone, Copy)]
struct Entry {
    cell: u8,
    digit: u8,
    on: bool,
    count: u8,
}

/// The queue of a chain search, reused from one start to the next.
type Queue = Stack<Entry, { 2 * NODES }>;

/// A strong link's other end.
#[derive(Clone, Copy)]
struct Link {
    cell: u8,
    digit: u8,
}

/// The strong links of each candidate a chain of one kind may use, in the order the search
/// follows them: the other candidate of a bivalue cell, then the digit's other place in the
/// cell's row, column and box where it has two. Found once for every search of a round.
struct StrongLinks {
    /// The links of node `n` are `to[first[n]..first[n + 1]]`.
    first: [u16; NODES + 1],
    to: Stack<Link, { 4 * NODES }>,
    /// The candidates with a link, by digit: a chain goes on only from these (bit `c` of
    /// `linked[d]`).
    linked: [u128; 9],
}

impl StrongLinks {
    /// The links of `kind`; for X-chains, of the digits of `digits` only (an X-chain keeps to
    /// its start's digit).
    fn of(s: &State, masks: &[u128; 9], kind: Kind, digits: u16) -> StrongLinks {
        let mut links = StrongLinks {
            first: [0; NODES + 1],
            to: Stack::new(),
            linked: [0; 9],
        };
        let digits = if kind == Kind::X { digits } else { 0x1ff };
        // The units where each digit has exactly two places: a strong link each.
        let mut pairs = [0u32; 9];
        if kind != Kind::Xy {
            for d in digits_of(digits) {
                for (u, unit) in UNIT_MASK.iter().enumerate() {
                    let places = masks[d] & unit;
                    let second = places & places.wrapping_sub(1);
                    pairs[d] |= u32::from(second != 0 && is_single(second)) << u;
                }
            }
        }
        for c in 0..CELLS {
            let linked = s.cand[c] & digits;
            let bivalue = kind != Kind::X && digit_count(s.cand[c]) == 2;
            if linked == 0 || kind == Kind::Xy && !bivalue {
                // No link from this cell's nodes.
                links.first[c * 9..c * 9 + 9].fill(links.to.len() as u16);
                continue;
            }
            for d in 0..9 {
                let node = c * 9 + d;
                links.first[node] = links.to.len() as u16;
                if linked >> d & 1 == 0 {
                    continue;
                }
                if bivalue {
                    let d2 = (s.cand[c] & !(1 << d)).trailing_zeros() as usize;
                    links.to.push(Link {
                        cell: c as u8,
                        digit: d2 as u8,
                    });
                }
                if kind != Kind::Xy {
                    for &u in &CELL_UNITS[c] {
                        if pairs[d] >> u & 1 == 1 {
                            let places = masks[d] & UNIT_MASK[usize::from(u)];
                            let c2 = (places & !(1u128 << c)).trailing_zeros() as usize;
                            links.to.push(Link {
                                cell: c2 as u8,
                                digit: d as u8,
                            });
                        }
                    }
                }
                if links.to.len() > usize::from(links.first[node]) {
                    links.linked[d] |= 1u128 << c;
                }
            }
        }
        links.first[NODES] = links.to.len() as u16;
        links
    }

    fn of_node(&self, node: usize) -> &[Link] {
        &self.to.as_slice()[usize::from(self.first[node])..usize::from(self.first[node + 1])]
    }
}

/// Breadth-first search of the chains from `start` (cell, digit) assumed false.
#[allow(clippy::too_many_arguments)]
fn search(
    s: &State,
    masks: &[u128; 9],
    kind: Kind,
    links: &StrongLinks,
    start: (usize, usize),
    limit: u8,
    queue: &mut Queue,
    best: &mut Best,
) {
    // Visited: bit `c` of `off[d]`; bit `node % 64` of `on[node / 64]` (a node's word is found
    // without dividing by 9).
    let mut on = [0u64; NODES.div_ceil(64)];
    let mut off = [0u128; 9];
    let (c0, d0) = start;
    off[d0] |= 1u128 << c0;
    queue.clear();
    queue.push(Entry {
        cell: c0 as u8,
        digit: d0 as u8,
        on: false,
        count: 1,
    });
    let mut head = 0;
    while head < queue.len() {
        let Entry {
            cell,
            digit,
            on: is_on,
            count,
        } = queue.as_slice()[head];
        head += 1;
        if count >= limit {
            break;
        }
        let (c, d) = (usize::from(cell), usize::from(digit));
        if !is_on {
            // Strong links: node false makes these true.
            for &Link { cell, digit } in links.of_node(c * 9 + d) {
                let (c2, d2) = (usize::from(cell), usize::from(digit));
                let node = c2 * 9 + d2;
                if on[node / 64] >> (node % 64) & 1 == 0 {
                    on[node / 64] |= 1 << (node % 64);
                    queue.push(Entry {
                        cell,
                        digit,
                        on: true,
                        count: count + 1,
                    });
                    record(s, masks, start, (c2, d2), count + 1, best);
                }
            }
        } else {
            // Weak links: node true makes these false. Only those with a strong link go in the
            // queue: the others end there.
            let same_digit = masks[d] & PEERS[c] & !off[d];
            off[d] |= same_digit;
            for c2 in cells_of(same_digit & links.linked[d]) {
                queue.push(Entry {
                    cell: c2 as u8,
                    digit,
                    on: false,
                    count: count + 1,
                });
            }
            if kind == Kind::Aic {
                for d2 in digits_of(s.cand[c] & !(1 << d)) {
                    if off[d2] >> c & 1 == 0 {
                        off[d2] |= 1u128 << c;
                        if links.linked[d2] >> c & 1 == 0 {
                            continue;
                        }
                        queue.push(Entry {
                            cell,
                            digit: d2 as u8,
                            on: false,
                            count: count + 1,
                        });
                    }
                }
            }
        }
    }
}

/// A chain from `start` (false) to `end` (then true) of `nodes` candidates, each a (cell,
/// digit), proves that one of them is true: records what that removes (or, when the chain
/// returns to its start, places).
fn record(
    s: &State,
    masks: &[u128; 9],
    (c0, d0): (usize, usize),
    (c1, d1): (usize, usize),
    nodes: u8,
    best: &mut Best,
) {
    let (start, end) = (c0 * 9 + d0, c1 * 9 + d1);
    let mut note = |target: usize| {
        best.fewest = best.fewest.min(nodes);
        if nodes < best.nodes[target] {
            best.nodes[target] = nodes;
            best.ends[target] = (start as u16, end as u16);
        }
    };
    if start == end {
        best.fewest = best.fewest.min(nodes);
        if nodes < best.place[start] {
            best.place[start] = nodes;
        }
    } else if d0 == d1 {
        for c in cells_of(masks[d0] & PEERS[c0] & PEERS[c1]) {
            note(c * 9 + d0);
        }
    } else if c0 == c1 {
        for d in digits_of(s.cand[c0] & !(1 << d0 | 1 << d1)) {
            note(c0 * 9 + d);
        }
    } else if PEERS[c0] >> c1 & 1 == 1 {
        if s.cand[c0] >> d1 & 1 == 1 {
            note(c0 * 9 + d1);
        }
        if s.cand[c1] >> d0 & 1 == 1 {
            note(c1 * 9 + d0);
        }
    }
}

/// Nishio: a candidate assumed true, followed for its digit alone (the digit leaves the peers, a
/// unit left with one place takes it), leaves a unit no place for the digit: it goes.
///
/// The candidates of `solution` (a solution's cells, by digit) are not assumed: they cannot end
/// in a contradiction; nor are the cells an assumption followed to its end placed without one
/// (see [`dynamic`]). Only the digits of `digits` are followed (a digit is followed alone: see
/// [`Todo`]).
#[inline(never)] // a large frame: kept out of `run_rungs`, which every round enters
pub(super) fn nishio(s: &State, solution: &[u128; 9], digits: u16, out: &mut Steps) {
    let masks = &s.digits;
    // Each candidate is assumed once at most: `NODES` entries hold them all.
    let mut found: Stack<(u8, u8, u8), NODES> = Stack::new();
    let mut low = u8::MAX;
    // A longer chain than this would score above the lowest found: not followed.
    let mut limit = u32::MAX;
    for (d, &m0) in masks.iter().enumerate() {
        if digits >> d & 1 == 0 {
            continue;
        }
        let placed0 = s.placed_mask(d);
        // The units where the digit is not placed, and those of them where it has one place or
        // none (normally none: the singles rungs have found nothing on this board).
        let open0 = !units_of(placed0) & ALL_UNITS;
        let thin0 = bits_of(open0).fold(0u32, |t, u| {
            let p = m0 & UNIT_MASK[u];
            t | u32::from(p & p.wrapping_sub(1) == 0) << u
        });
        // The cells known to end without a contradiction (as in [`trial`]).
        let mut settled = solution[d];
        for c in cells_of(m0 & !solution[d]) {
            if settled >> c & 1 == 1 {
                continue;
            }
            let (mut m, mut placed) = (m0 & !PEERS[c] & !(1u128 << c), placed0 | 1u128 << c);
            let mut open = open0 & !UNITS_OF_CELL[c];
            // The units where a wave can find a single or a dead unit: the thin ones, and those
            // where the digit lost a place since the last wave; every other open unit still
            // holds two places or more.
            let mut stale = thin0 | units_of(m0 & !m);
            let mut count = 1u32;
            // In waves, each from the last wave's board, so the count is the same in any cell
            // order.
            let contradiction = loop {
                let mut wave = 0u128;
                let mut dead = false;
                for u in bits_of(stale & open) {
                    let p = m & UNIT_MASK[u];
                    dead |= p == 0;
                    if is_single(p) {
                        wave |= p;
                    }
                }
                if dead {
                    break true;
                }
                if wave == 0 {
                    // Followed to its end without a contradiction: so is every cell it placed,
                    // whose own chain places a part of this one's.
                    settled |= placed;
                    break false;
                }
                if count > limit {
                    break false;
                }
                let mut clash = false;
                let before = m;
                for c2 in cells_of(wave) {
                    clash |= PEERS[c2] & wave != 0;
                    m &= !PEERS[c2];
                }
                m &= !wave;
                placed |= wave;
                open &= !units_of(wave);
                stale = units_of(before & !m);
                count += wave.count_ones();
                if clash {
                    break true;
                }
            };
            if contradiction {
                let score = Technique::Nishio.se() + length_tenths(count + 1);
                if score < low {
                    low = score;
                    limit = most_placed(Technique::Nishio.se(), low, 1);
                }
                found.push((c as u8, d as u8, score));
            }
        }
    }
    if found.is_empty() {
        return;
    }
    // A finned fish or a coloring wrap is a one-digit contradiction: named so where it is one.
    // Only the digits of the steps shown need their fish.
    let shown = found
        .as_slice()
        .iter()
        .filter(|&&(_, _, score)| score == low)
        .fold(0u16, |a, &(_, d, _)| a | 1 << d);
    let fish = patterns::finned_fish(masks, shown);
    let wraps = patterns::coloring(masks).1;
    for &(c, d, score) in found.as_slice() {
        let (c, d) = (usize::from(c), usize::from(d));
        if score == low {
            let technique = if fish[0][d] >> c & 1 == 1 {
                Technique::FinnedXWing
            } else if fish[1][d] >> c & 1 == 1 {
                Technique::FinnedSwordfish
            } else if fish[2][d] >> c & 1 == 1 {
                Technique::FinnedJellyfish
            } else if wraps[d] >> c & 1 == 1 {
                Technique::SimpleColoring
            } else {
                Technique::Nishio
            };
            let mut step = Step::new(technique);
            step.tenths = score;
            step.eliminations[d] = 1u128 << c;
            step.cells = 1u128 << c;
            step.digits = 1 << d;
            out.push(step);
        }
    }
}

/// The most placements a forcing chain scored `base + length_tenths(per * count + per)` can
/// make and still score no more than `low` (`u32::MAX` while nothing is found).
fn most_placed(base: u8, low: u8, per: u32) -> u32 {
    if low == u8::MAX {
        return u32::MAX;
    }
    let mut count = 0;
    while count < 81 && base + length_tenths(per * (count + 1) + per) <= low {
        count += 1;
    }
    count
}

/// Every unit, as a set of units (bit `u` for unit `u`).
const ALL_UNITS: u32 = (1 << 27) - 1;

/// The units of each cell, as a set of units (bit `u` for unit `u`).
pub(super) const UNITS_OF_CELL: [u32; CELLS] = {
    let mut t = [0u32; CELLS];
    let mut c = 0;
    while c < CELLS {
        let u = CELL_UNITS[c];
        t[c] = 1 << u[0] | 1 << u[1] | 1 << u[2];
        c += 1;
    }
    t
};

/// A board as one bitset of candidate cells per digit, and the cells each digit fills: what
/// the forcing chains follow.
#[derive(Clone, Copy)]
struct Bits {
    cand: [u128; 9],
    /// `cand` by cell (bit `d` of `cell[c]` is bit `c` of `cand[d]`): a placement clears its
    /// cell from the digits it holds, not from all nine.
    cell: [u16; CELLS],
    placed: [u128; 9],
    /// The cells placed, of any digit.
    filled: u128,
    /// The units (bit `u` for unit `u`) where each digit is not placed.
    open: [u32; 9],
}

impl Bits {
    fn of(s: &State) -> Bits {
        let mut placed = [0u128; 9];
        let mut open = [(1u32 << 27) - 1; 9];
        let mut filled = 0u128;
        for c in 0..CELLS {
            if s.value[c] != 0 {
                let d = usize::from(s.value[c] - 1);
                placed[d] |= 1u128 << c;
                open[d] &= !UNITS_OF_CELL[c];
                filled |= 1u128 << c;
            }
        }
        Bits {
            cand: s.digits,
            cell: s.cand,
            placed,
            filled,
            open,
        }
    }

    /// The units (bit `u` for unit `u`) where each digit, not placed there, has at most one
    /// place: where a hidden single or a dead unit is now.
    fn thin_units(&self) -> [u32; 9] {
        let mut thin = [0u32; 9];
        for (d, t) in thin.iter_mut().enumerate() {
            for (u, &unit) in UNIT_MASK.iter().enumerate() {
                let p = self.cand[d] & unit;
                if self.open[d] >> u & 1 == 1 && p & p.wrapping_sub(1) == 0 {
                    *t |= 1 << u;
                }
            }
        }
        thin
    }

    /// Places `d` in `c`, and adds to `stale` the units where that changed some digit's
    /// places; false if a peer already holds `d`.
    fn place_marking(&mut self, c: usize, d: usize, stale: &mut [u32; 9]) -> bool {
        let cell = 1u128 << c;
        for e in digits_of(self.cell[c]) {
            stale[e] |= UNITS_OF_CELL[c];
            self.cand[e] &= !cell;
        }
        self.cell[c] = 0;
        // The units where `d` loses a place: those of the peers that had it.
        for p in cells_of(self.cand[d] & PEERS[c]) {
            stale[d] |= UNITS_OF_CELL[p];
            self.cell[p] &= !(1 << d);
        }
        let ok = self.placed[d] & PEERS[c] == 0;
        self.placed[d] |= cell;
        self.filled |= cell;
        self.open[d] &= !UNITS_OF_CELL[c];
        self.cand[d] &= !PEERS[c];
        ok
    }

    /// Places naked and hidden singles until none is left, in waves (each from the last wave's
    /// board, so the count is the same in any cell order); returns the number placed and
    /// whether they end in a contradiction (a wave that meets one counts whole). Stops, without
    /// a contradiction, once more than `limit` are placed.
    ///
    /// `stale` holds, for each digit, every unit where it may have one place or none (left
    /// unplaced): the hidden singles and dead units are looked for there only. A unit where the
    /// digit has two places or more, or is placed, stays so until a placement touches it.
    #[inline(always)] // two callers, each on its own hot path
    fn singles(&mut self, mut stale: [u32; 9], limit: u32) -> (u32, bool) {
        let mut count = 0;
        loop {
            if count > limit {
                return (count, false); // longer than any chain that can still count
            }
            let [one, two, ..] = candidate_counts(&self.cand);
            let all = (1u128 << CELLS) - 1;
            if all & !self.filled & !one != 0 {
                return (count, true); // an empty cell without a candidate
            }
            let naked = one & !two;
            let mut wave = [0u128; 9];
            // Every cell of a wave, and those two digits' singles meet in (a clash).
            let (mut any, mut twice) = (0u128, 0u128);
            for d in 0..9 {
                let mut w = self.cand[d] & naked;
                let mut units = stale[d] & self.open[d];
                while units != 0 {
                    let u = &UNIT_MASK[units.trailing_zeros() as usize];
                    units &= units - 1;
                    let p = self.cand[d] & u;
                    if p == 0 {
                        return (count, true); // a digit with no place in a unit
                    }
                    if p & (p - 1) == 0 {
                        w |= p;
                    }
                }
                wave[d] = w;
                twice |= any & w;
                any |= w;
            }
            if any == 0 {
                return (count, false);
            }
            let size = any.count_ones();
            let mut clash = twice != 0;
            // Only a unit where a digit lost a candidate or got placed can have a new single
            // or lose its last place; every other unit is as this wave left it (a single found
            // in it is placed now).
            stale = [0; 9];
            for (d, &w) in wave.iter().enumerate() {
                for c in cells_of(w) {
                    clash |= !self.place_marking(c, d, &mut stale);
                }
            }
            count += size;
            if clash {
                return (count, true);
            }
        }
    }
}

/// Dynamic forcing chains (contradiction): a candidate assumed true, followed through naked and
/// hidden singles of every digit, ends in a contradiction: it goes.
///
/// The candidates of `solution` are not assumed (see [`nishio`]), nor one that an assumption
/// followed to its end placed without a contradiction (see [`trial`]): singles placed from a
/// board with fewer candidates are more singles, not fewer.
///
/// `memo` carries the ends of the assumptions from one call to the next (see [`DynamicMemo`]):
/// the ladder reaches this rung round after round on boards that differ by a few candidates.
#[inline(never)] // a large frame: kept out of `run_rungs`, which every round enters
pub(super) fn dynamic(s: &State, solution: &[u128; 9], memo: &mut DynamicMemo, out: &mut Steps) {
    let mut found: Stack<(u8, u8, u8), NODES> = Stack::new();
    let mut low = u8::MAX;
    // A longer chain than this would score above the lowest found: not followed.
    let mut limit = u32::MAX;
    let bits = Bits::of(s);
    // Normally empty: the lower rungs placed every single of this board.
    let thin = bits.thin_units();
    let filled = bits.filled.count_ones();
    // What the last call's board has lost and placed since, if this board came from it (else,
    // another puzzle's, say, nothing is carried over).
    let last = memo.board.filter(|b| {
        (0..9).all(|d| bits.cand[d] & !b.cand[d] == 0 && b.placed[d] & !bits.placed[d] == 0)
    });
    let removed: [u128; 9] = std::array::from_fn(|d| last.map_or(0, |b| b.cand[d] & !bits.cand[d]));
    let placed: [u128; 9] =
        std::array::from_fn(|d| last.map_or(0, |b| bits.placed[d] & !b.placed[d]));
    let [first, second] = &mut memo.ends;
    let (old, new) = match memo.now {
        0 => (&*first, second),
        _ => (&*second, first),
    };
    let old = if last.is_some() { old.as_slice() } else { &[] };
    let mut next_old = 0;
    new.clear();
    // The candidates known to end without a contradiction, by digit (as in [`trial`]).
    let mut settled = *solution;
    for c in 0..CELLS {
        for d in digits_of(s.cand[c]) {
            if settled[d] >> c & 1 == 1 {
                continue;
            }
            let node = (c * 9 + d) as u16;
            // The last call's end of this assumption, if it had one (`old` is in node order).
            while next_old < old.len() && old[next_old].node < node {
                next_old += 1;
            }
            let end = old.get(next_old).filter(|e| e.node == node);
            let mut t = match end {
                Some(end) => end.bits,
                None => bits,
            };
            let moved = end.is_some() && moved_on(&mut t, &removed, &placed);
            #[cfg(test)]
            {
                memo.moved += usize::from(moved);
            }
            let (count, contradiction) = if moved {
                // No contradiction there: none from the start either, with the same cells.
                (t.filled.count_ones() - filled - 1, false)
            } else {
                if end.is_some() {
                    t = bits;
                }
                let mut stale = thin;
                if t.place_marking(c, d, &mut stale) {
                    t.singles(stale, limit)
                } else {
                    (0, true)
                }
            };
            if !contradiction {
                if count <= limit {
                    // Followed to its end: so is every candidate it placed, whose own chain
                    // places a part of this one's.
                    for (settled, placed) in settled.iter_mut().zip(t.placed) {
                        *settled |= placed;
                    }
                }
                // An end (unless followed from the start and stopped past `limit`).
                if (moved || count <= limit) && new.len() < MEMO {
                    new.push(End { node, bits: t });
                }
                continue;
            }
            let score = Technique::DynamicForcingChain.se() + length_tenths(2 * count + 2);
            if score < low {
                low = score;
                limit = most_placed(Technique::DynamicForcingChain.se(), low, 2);
            }
            found.push((c as u8, d as u8, score));
        }
    }
    memo.board = Some(bits);
    memo.now ^= 1;
    for &(c, d, score) in found.as_slice() {
        let (c, d) = (usize::from(c), usize::from(d));
        if score == low {
            let mut step = Step::new(Technique::DynamicForcingChain);
            step.tenths = score;
            step.eliminations[d] = 1u128 << c;
            step.cells = 1u128 << c;
            step.digits = 1 << d;
            out.push(step);
        }
    }
}

/// [`dynamic`] on one board, with nothing carried from another.
#[inline(never)] // the memo's frame stays out of `run_rung_in`, which trial enters often
pub(super) fn dynamic_once(s: &State, solution: &[u128; 9], out: &mut Steps) {
    dynamic(s, solution, &mut DynamicMemo::new(), out);
}

/// The most ends a [`DynamicMemo`] keeps of one board (about a hundred on magictour's boards,
/// at most 160; the rest are followed from the start again).
const MEMO: usize = 160;

/// The most singles an end moves on by (see [`moved_on`]).
const MOVE_BUDGET: u32 = 3;

/// What [`dynamic`] keeps of a board for the next one: the board it ended on, for each
/// assumption it followed to its end without a contradiction.
///
/// The next board is the same puzzle's with fewer candidates. Every single an assumption placed
/// on the last board is, on the next, a single again or a contradiction (a cell or a unit left
/// with fewer places); so following the assumption there reaches its old end's placements, or a
/// contradiction. The end, with the candidates removed since taken out and the cells placed
/// since placed, is followed on: where that ends without a contradiction, so does following
/// from the start, and on the same board (singles reach one end, whatever their order). Where
/// it meets one, or goes on for more than [`MOVE_BUDGET`] singles, the assumption is followed
/// from the start, as on a board seen for the first time: a contradiction's score is the
/// length of the way there from the start.
pub(crate) struct DynamicMemo {
    /// The board of the last call, the ends' start.
    board: Option<Bits>,
    /// The last call's ends (`ends[now]`), in node order, and room for the next call's.
    ends: [Stack<End, MEMO>; 2],
    now: usize,
    /// The ends moved on so far (for the tests to see that they are).
    #[cfg(test)]
    moved: usize,
}

impl DynamicMemo {
    /// Nothing kept. (Not a constant: a constant is copied whole.)
    #[inline(always)]
    pub(crate) fn new() -> DynamicMemo {
        DynamicMemo {
            board: None,
            ends: [Stack::new(), Stack::new()],
            now: 0,
            #[cfg(test)]
            moved: 0,
        }
    }
}

/// An assumption's end: see [`DynamicMemo`].
#[derive(Clone, Copy)]
struct End {
    /// The candidate assumed, `9 * cell + digit`.
    node: u16,
    bits: Bits,
}

/// Moves an end `t` on to a board that has since lost `removed` and placed `placed`, and
/// follows it on to its new end; false where that meets a contradiction or takes more than
/// [`MOVE_BUDGET`] singles (and then `t` is left part way).
fn moved_on(t: &mut Bits, removed: &[u128; 9], placed: &[u128; 9]) -> bool {
    let mut stale = [0u32; 9];
    // Whether a placement or a removal may have left a single or a contradiction.
    let mut touched = false;
    for d in 0..9 {
        for c in cells_of(placed[d] & !t.placed[d]) {
            if t.cand[d] >> c & 1 == 0 || !t.place_marking(c, d, &mut stale) {
                return false;
            }
            touched = true;
        }
    }
    for d in 0..9 {
        // A cell the end placed with a candidate removed since: a contradiction.
        if removed[d] & t.placed[d] & !placed[d] != 0 {
            return false;
        }
        for c in cells_of(removed[d] & t.cand[d]) {
            t.cand[d] &= !(1u128 << c);
            t.cell[c] &= !(1 << d);
            stale[d] |= UNITS_OF_CELL[c];
            // A cell, or a unit of `d`, left with one place or none.
            touched |= t.cell[c] & t.cell[c].wrapping_sub(1) == 0;
            for &u in &CELL_UNITS[c] {
                let p = t.cand[d] & UNIT_MASK[usize::from(u)];
                touched |= t.open[d] >> u & 1 == 1 && p & p.wrapping_sub(1) == 0;
            }
        }
    }
    if !touched {
        return true;
    }
    // A short way on; a longer one most often ends in a contradiction, which needs following
    // from the start anyway (for its length).
    matches!(t.singles(stale, MOVE_BUDGET), (n, false) if n <= MOVE_BUDGET)
}

/// The rungs a trial runs inside an assumption: every pattern below the chains, without the
/// uniqueness techniques (the ladder without them, up to its chains).
#[cfg(test)]
const INNER: &[Rung] = Rung::NOT_UNIQUE.split_at(19).0;
#[cfg(test)]
const _: () = assert!(matches!(INNER[INNER.len() - 1], Rung::HiddenQuad));
#[cfg(test)]
const _: () = assert!(matches!(Rung::NOT_UNIQUE[INNER.len()], Rung::Chains));

/// The other pattern rungs below the chains (uniqueness aside), cheapest first. The direct
/// rungs are left out: locking and the hidden subsets find all they find, and the singles
/// they leave follow in the next round. The subsets of each kind are sought together, pairs to
/// quads in one search, and so are the fish, X-Wing to Jellyfish.
const TRIAL_PATTERNS: &[Rung] = &[
    Rung::Locking,
    Rung::NakedSets,
    Rung::HiddenSets,
    Rung::Fish,
    Rung::XyWing,
    Rung::XyzWing,
];

/// The board that assuming `d` in `c` ends on, followed through every pattern rung below the
/// chains until none finds anything; `None` when it ends in a contradiction. `closed` says that
/// none finds anything on `s` itself (as on the board trial runs on, where every lower rung has
/// failed); on any other board it must be false.
///
/// That board, and so the verdict, does not depend on the order the rungs run in: whatever a
/// rung finds on a board, it or a smaller pattern of the set still finds on any board with fewer
/// candidates, until it is made (a naked triple that lost a cell's candidate is a naked pair or
/// singles; an XYZ-Wing whose pivot lost a digit, an XY-Wing or a naked pair; a Swordfish, an
/// X-Wing). The set holds every smaller pattern of its rungs: singles, pairs to quads, X-Wing to
/// Jellyfish, XY- and XYZ-Wing. So every order ends on the same board, or on a contradiction,
/// and the cheapest order serves: a round applies every single at once, else the first other
/// rung, cheapest first, that finds something. (The ladder's own order costs more here: it
/// retries the direct rungs before every naked single.) And a rung that has looked at the board
/// finds nothing new until the board changes where it looks (see [`Todo`]).
///
/// `dead` holds candidates whose own assumption on `s` ends in a contradiction: a board that
/// places one does too (it holds fewer candidates than that assumption's board, the same
/// argument), so the closure stops there.
fn assumption_closure(
    s: &State,
    closed: bool,
    c: usize,
    d: usize,
    dead: &[u128; 9],
    buf: &mut Steps,
) -> Option<State> {
    let mut t = *s;
    if t.place(c, d).is_err() {
        return None;
    }
    // Where each rung has still to look.
    let mut todo = match closed {
        true => Todo::searched(s),
        false => Todo::everywhere(),
    };
    close(&mut t, &mut todo, dead, buf).ok().map(|_| t)
}

/// The rounds of a closure (see [`assumption_closure`]) on `t`: every single at once, else the
/// first pattern rung, cheapest first, that finds something. `Ok` once `t` is solved or nothing
/// more is found, `Err` at a contradiction or a candidate of `dead` placed; either way with the
/// count of cells placed, including a round whose placements met the contradiction (not one
/// whose singles' pass found it).
fn close(t: &mut State, todo: &mut Todo, dead: &[u128; 9], buf: &mut Steps) -> Result<u32, u32> {
    close_with(t, todo, dead, buf, TRIAL_PATTERNS)
        .map(|f| f.placed)
        .map_err(|f| f.placed)
}

/// What a closure did: the cells it placed, and the highest score of a step it took that was not
/// a single (0 if none).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Followed {
    placed: u32,
    hardest: u8,
}

/// [`close`], with `rungs` (cheapest first) after the singles instead of the pattern rungs.
fn close_with(
    t: &mut State,
    todo: &mut Todo,
    dead: &[u128; 9],
    buf: &mut Steps,
    rungs: &[Rung],
) -> Result<Followed, Followed> {
    let mut f = Followed::default();
    // A solved board is sound (`place` refuses a digit its units hold); any other is checked
    // by the singles' pass, so a round's board is checked before the patterns look at it.
    while !t.solved() {
        buf.clear();
        if basic::all_singles(t, buf).is_err() {
            return Err(f);
        }
        if buf.is_empty() {
            for &rung in rungs {
                todo.run(t, rung, &[0; 9], buf);
                if !buf.is_empty() {
                    break;
                }
            }
            if buf.is_empty() {
                return Ok(f);
            }
            let hardest = buf.steps().iter().map(|s| s.tenths).max();
            f.hardest = f.hardest.max(hardest.unwrap_or(0));
        }
        let mut places_dead = false;
        for step in buf.steps() {
            if let Some((c, v)) = step.place {
                f.placed += 1;
                places_dead |= dead[usize::from(v - 1)] >> c & 1 == 1;
            }
        }
        if places_dead || t.apply_unchecked(buf.steps()).is_err() {
            return Err(f);
        }
    }
    Ok(f)
}

/// Trial (depth 1): a candidate assumed true, followed through every pattern technique below the
/// chains, ends in a contradiction: it goes.
///
/// `s` must be a board where every rung below trial has found nothing (as the ladder reaches
/// it): each assumption's closure starts from there (see [`assumption_closure`]). The
/// candidates of `solution` are not assumed (see [`nishio`]).
///
/// Nor is a candidate that an earlier assumption placed without a contradiction: the closure
/// of a board with fewer candidates holds fewer candidates (the argument of
/// [`assumption_closure`]), and that assumption's closure is a board with this candidate
/// placed and no contradiction, so this candidate's own closure, which holds it, has none
/// either.
#[inline(never)] // a large frame: kept out of `run_rungs`, which every round enters
pub(super) fn trial(s: &State, solution: &[u128; 9], out: &mut Steps) {
    let mut inner = Steps::new();
    // The candidates known to end without a contradiction, by digit.
    let mut settled = *solution;
    // The candidates known to end in one.
    let mut dead = [0u128; 9];
    // Cells with two candidates first, then every other cell with candidates: a wrong one of
    // two goes far, and the candidates its board places are settled. What goes does not depend
    // on the order (each verdict is the closure's), and the steps are reported cell by cell
    // below.
    let [once, twice, thrice, ..] = candidate_counts(&s.digits);
    let bivalue = twice & !thrice;
    for cells in [bivalue, once & !bivalue] {
        for c in cells_of(cells) {
            for d in digits_of(s.cand[c]) {
                if settled[d] >> c & 1 == 1 {
                    continue;
                }
                let Some(end) = assumption_closure(s, true, c, d, &dead, &mut inner) else {
                    dead[d] |= 1u128 << c;
                    continue;
                };
                for (c2, &v) in end.value.iter().enumerate() {
                    if v != 0 {
                        settled[usize::from(v - 1)] |= 1u128 << c2;
                    }
                }
            }
        }
    }
    for c in 0..CELLS {
        for d in digits_of(s.cand[c]) {
            if dead[d] >> c & 1 == 1 {
                let mut step = Step::new(Technique::Trial);
                step.length = 1;
                step.eliminations[d] = 1u128 << c;
                step.cells = 1u128 << c;
                step.digits = 1 << d;
                out.push(step);
            }
        }
    }
}

/// Assuming `d` in `c` on `s`, followed through the pattern rungs and trial of depth 1 inside
/// the assumption, in turn, until a contradiction: its length (the cells placed and the
/// candidates trial removed on the way), or `None` without one (or once longer than `limit`).
fn nested_contradiction(s: &State, c: usize, d: usize, limit: u32) -> Option<u32> {
    let mut t = *s;
    if t.place(c, d).is_err() {
        return Some(0);
    }
    let mut length = 0;
    let mut buf = Steps::new();
    loop {
        // No candidate is known to end in a contradiction inside an assumption.
        match close(&mut t, &mut Todo::everywhere(), &[0; 9], &mut buf) {
            Err(placed) => return Some(length + placed),
            Ok(placed) => length += placed,
        }
        if t.solved() || length > limit {
            return None;
        }
        // Every rung below trial has found nothing on `t` (trial's precondition); no candidate
        // is known to be safe inside an assumption.
        buf.clear();
        trial(&t, &[0; 9], &mut buf);
        if buf.is_empty() {
            return None;
        }
        length += buf.len() as u32;
        if t.apply_unchecked(buf.steps()).is_err() {
            return Some(length);
        }
    }
}

/// [`TRIAL_PATTERNS`] followed by `more`, made at compile time (`N` is their count).
const fn patterns_then<const N: usize>(more: &[Rung]) -> [Rung; N] {
    assert!(N == TRIAL_PATTERNS.len() + more.len());
    let mut rungs = [Rung::Locking; N];
    let mut i = 0;
    while i < N {
        rungs[i] = match i < TRIAL_PATTERNS.len() {
            true => TRIAL_PATTERNS[i],
            false => more[i - TRIAL_PATTERNS.len()],
        };
        i += 1;
    }
    rungs
}

/// The rungs an assumption is followed with by [`nested_trial`]'s first level: the pattern
/// rungs, then the chains (X-, XY-chains and AICs, with the single-digit patterns).
const WITH_CHAINS: &[Rung] = &patterns_then::<7>(&[Rung::Chains]);

/// [`WITH_CHAINS`] and the forcing chains (Nishio, the almost locked sets, the dynamic forcing
/// chains): [`nested_trial`]'s second level.
const WITH_FORCING_CHAINS: &[Rung] =
    &patterns_then::<10>(&[Rung::Chains, Rung::Nishio, Rung::Als, Rung::Dynamic]);

/// Nested trial ([`super::Options::nested`]), where trial of depth 1 finds nothing: each
/// candidate is assumed and followed with more inside the assumption, level by level, until a
/// level finds contradictions: the pattern rungs and the chains (`Trial with Chains`), then
/// the forcing chains too (`Trial with Forcing Chains`), then trial of depth 1 (trial of depth
/// 2). These follow Sudoku Explainer's nested forcing chains, whose levels take forcing chains,
/// then (multiple, dynamic) forcing chains inside a dynamic forcing chain. At the first level
/// that finds any, the contradictions that score lowest go (see [`nested_step`]), as SE applies
/// its easiest hint first. The candidates of `solution` are not assumed (see [`nishio`]).
///
/// `s` must be a board where trial of depth 1 found nothing.
#[inline(never)]
pub(super) fn nested_trial(s: &State, solution: &[u128; 9], out: &mut Steps) {
    let mut buf = Steps::new();
    for (technique, rungs) in [
        (Technique::TrialWithChains, WITH_CHAINS),
        (Technique::TrialWithForcingChains, WITH_FORCING_CHAINS),
    ] {
        let follow = |c: usize, d: usize| {
            let mut t = *s;
            let f = match t.place(c, d) {
                Err(_) => Followed::default(),
                Ok(()) => {
                    close_with(&mut t, &mut Todo::everywhere(), &[0; 9], &mut buf, rungs).err()?
                }
            };
            Some(nested_step(technique, f))
        };
        easiest_contradictions(s, solution, out, follow);
        if !out.is_empty() {
            return;
        }
    }
    // Trial of depth 2: a contradiction scores by its length, so one longer than every length
    // that scores as low as the lowest so far is given up (not merely one longer than the
    // shortest: lengths that score the same go together, whatever order they are found in).
    let score =
        |length: u32| (NESTED_TRIAL_TENTHS + length_tenths(2 * length + 2)).min(NESTED_MAX_TENTHS);
    let mut limit = u32::MAX;
    let follow = |c, d| {
        let length = nested_contradiction(s, c, d, limit)?;
        let tenths = score(length);
        if tenths < NESTED_MAX_TENTHS {
            let mut longest = length;
            while score(longest + 1) == tenths {
                longest += 1;
            }
            limit = limit.min(longest);
        }
        let mut step = Step::new(Technique::Trial);
        step.tenths = tenths;
        step.length = 2;
        Some(step)
    };
    easiest_contradictions(s, solution, out, follow);
}

/// The step of a contradiction that `technique`'s level of nested trial found, `f` its
/// closure. Its length is a chain's: the candidates of the placements and the assumption. The
/// chains level scores the technique's base plus that length's add. The forcing chains level
/// adds half of the hardest forcing chain's score above 8.0 and half of the length add: SE
/// counts the nodes of the chains nested in a chain in its length, and the hardest chain inside
/// stands for them (its own length add, and whether it had to be dynamic), which ranked SE's
/// ratings better than the cells placed alone (see docs/grading.md, Validation). That chain is
/// `f.hardest`, the closure's highest-scoring step: at this level always a forcing chain, since
/// a contradiction that the chains alone reach is found by the level before.
fn nested_step(technique: Technique, f: Followed) -> Step {
    let nodes = 2 * f.placed + 2;
    let add = length_tenths(nodes);
    let tenths = match technique {
        Technique::TrialWithForcingChains => {
            // In tenths, halves rounded down; a Nishio chain inside (7.5 and up) counts as 8.0.
            technique.se() + (f.hardest.max(80) - 80 + add) / 2
        }
        _ => technique.se() + add,
    };
    let mut step = Step::new(technique);
    step.tenths = tenths.min(NESTED_MAX_TENTHS);
    step.length = nodes.min(u32::from(u8::MAX)) as u8;
    step
}

/// Follows each candidate of `s` but those of `solution` with `follow` (a cell and a digit: the
/// step of its contradiction, without its removal, if it ends in one): the candidates whose
/// steps score lowest go.
fn easiest_contradictions(
    s: &State,
    solution: &[u128; 9],
    out: &mut Steps,
    mut follow: impl FnMut(usize, usize) -> Option<Step>,
) {
    for c in 0..CELLS {
        for d in digits_of(s.cand[c]) {
            if solution[d] >> c & 1 == 1 {
                continue;
            }
            if let Some(mut step) = follow(c, d) {
                step.eliminations[d] = 1u128 << c;
                step.cells = 1u128 << c;
                step.digits = 1 << d;
                out.keep_lowest(step);
            }
        }
    }
}

/// The highest score of a step of nested trial: SE's highest rating, below `Trial depth 3+`.
const NESTED_MAX_TENTHS: u8 = 119;

/// The base score of trial of depth 2, to which its length adds.
const NESTED_TRIAL_TENTHS: u8 = 115;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{puzzle, Mode};
    use crate::grade::{public_puzzles, run_rungs};
    use crate::grid::UNITS;
    use crate::Grid;

    /// Trial's verdict as the ladder's own order reaches it: one rung's steps a round, the
    /// lowest rung that finds anything.
    fn ladder_contradicts(s: &State, c: usize, d: usize) -> bool {
        let mut t = *s;
        let mut buf = Steps::new();
        let mut contradiction = t.place(c, d).is_err() || t.check().is_err();
        while !contradiction && !t.solved() {
            buf.clear();
            if !run_rungs(&t, INNER, &mut buf) {
                break;
            }
            contradiction = t.apply(buf.steps()).is_err();
        }
        contradiction
    }

    /// The board where the ladder below trial stops on `p` (the board trial starts from).
    fn before_trial(p: &Grid) -> State {
        where_stops(p, Rung::NOT_UNIQUE.split_last().expect("a ladder").1)
    }

    /// The board where `ladder` stops on `p`: it finds nothing more, or a step clashes.
    fn where_stops(p: &Grid, ladder: &[Rung]) -> State {
        let mut t = State::new(p).expect("no clash");
        let mut buf = Steps::new();
        while !t.solved() {
            buf.clear();
            if !run_rungs(&t, ladder, &mut buf) || t.apply(buf.steps()).is_err() {
                break;
            }
        }
        t
    }

    /// Compares the two orders on every candidate of each board, and on the boards trial runs
    /// on (`closed`) what trial removes with the candidates whose assumption contradicts;
    /// returns (candidates, contradictions).
    fn compare(boards: &[(Grid, State, bool)]) -> (usize, usize) {
        let mut buf = Steps::new();
        let (mut checked, mut contradicted) = (0, 0);
        for (p, s, closed) in boards {
            let mut contradicting = [0u128; 9];
            for c in 0..CELLS {
                for d in digits_of(s.cand[c]) {
                    let fast = assumption_closure(s, *closed, c, d, &[0; 9], &mut buf).is_none();
                    contradicting[d] |= u128::from(fast) << c;
                    assert_eq!(
                        fast,
                        ladder_contradicts(s, c, d),
                        "{p}: {} assumed in r{}c{}",
                        d + 1,
                        c / 9 + 1,
                        c % 9 + 1
                    );
                    checked += 1;
                    contradicted += usize::from(fast);
                }
            }
            if *closed {
                // Trial passes over the candidates its earlier assumptions placed, and those
                // of a solution: it still removes exactly these.
                let mut solution = Grid::EMPTY;
                assert!(crate::solver::count_into(p, 2, &mut solution) > 0, "{p}");
                let mut known = [0u128; 9];
                for (c, &v) in solution.cells().iter().enumerate() {
                    known[usize::from(v - 1)] |= 1u128 << c;
                }
                for known in [[0; 9], known] {
                    let mut out = Steps::new();
                    trial(s, &known, &mut out);
                    let removed = out.steps().iter().fold([0u128; 9], |mut r, step| {
                        for (r, e) in r.iter_mut().zip(step.eliminations) {
                            *r |= e;
                        }
                        r
                    });
                    assert_eq!(removed, contradicting, "{p}");
                }
            }
        }
        (checked, contradicted)
    }

    /// Hard puzzles (trial territory), and boards where most assumptions end early.
    const HARD: [&str; 2] = [
        "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
        "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..",
    ];

    /// The steps of [`dynamic`] on `s`, with and without the ends of the boards before.
    fn dynamic_both_ways(s: &State, known: &[u128; 9], memo: &mut DynamicMemo) -> [Vec<Step>; 2] {
        let (mut carried, mut alone) = (Steps::new(), Steps::new());
        dynamic(s, known, memo, &mut carried);
        dynamic_once(s, known, &mut alone);
        [carried.steps().to_vec(), alone.steps().to_vec()]
    }

    /// Runs [`dynamic`] with one memo over every board of the ladder's path through each
    /// puzzle in turn (each board has fewer candidates than the last, until the next puzzle's
    /// first), twice on each board, with and without the solution known; the steps must be
    /// those found on each board alone. Returns the number of ends moved on.
    fn dynamic_carried_along_the_ladder(puzzles: &[Grid]) -> usize {
        let mut memos = [DynamicMemo::new(), DynamicMemo::new()];
        let mut found = 0;
        for p in puzzles {
            let mut solution = Grid::EMPTY;
            assert_eq!(crate::solver::count_into(p, 2, &mut solution), 1, "{p}");
            let mut known = [0u128; 9];
            for (c, &v) in solution.cells().iter().enumerate() {
                known[usize::from(v - 1)] |= 1u128 << c;
            }
            let mut t = State::new(p).expect("no clash");
            let mut buf = Steps::new();
            while !t.solved() {
                for (memo, known) in memos.iter_mut().zip([known, [0; 9]]) {
                    for _ in 0..2 {
                        let [carried, alone] = dynamic_both_ways(&t, &known, memo);
                        assert_eq!(carried, alone, "{p}: {}", t.grid());
                        found += alone.len();
                    }
                }
                buf.clear();
                if !run_rungs(&t, Rung::NOT_UNIQUE, &mut buf) || t.apply(buf.steps()).is_err() {
                    break;
                }
            }
        }
        assert!(found > 0);
        memos.iter().map(|m| m.moved).sum()
    }

    #[test]
    fn dynamic_chains_find_the_same_with_the_ends_of_the_boards_before() {
        let mut puzzles: Vec<Grid> = HARD.iter().map(|p| p.parse().expect("a puzzle")).collect();
        puzzles.extend((0..12).map(|i| puzzle(25, i, Mode::Minimal, None)));
        let moved = dynamic_carried_along_the_ladder(&puzzles);
        assert!(moved > 3_000, "{moved} ends moved on");
    }

    /// Along the ladder's path backwards each board has more candidates than the last, which is
    /// not the board the memo's ends come from: it carries none over, and the steps are those
    /// of each board alone.
    #[test]
    fn dynamic_chains_use_no_ends_of_a_board_with_fewer_candidates() {
        let mut found = 0;
        for p in HARD {
            let p: Grid = p.parse().expect("a puzzle");
            let mut boards = vec![State::new(&p).expect("no clash")];
            let mut buf = Steps::new();
            loop {
                let mut t = *boards.last().expect("a board");
                buf.clear();
                if t.solved() || !run_rungs(&t, Rung::NOT_UNIQUE, &mut buf) {
                    break;
                }
                if t.apply(buf.steps()).is_err() {
                    break;
                }
                boards.push(t);
            }
            let mut memo = DynamicMemo::new();
            for t in boards.iter().rev() {
                let [carried, alone] = dynamic_both_ways(t, &[0; 9], &mut memo);
                assert_eq!(carried, alone, "{p}: {}", t.grid());
                found += alone.len();
            }
            assert_eq!(memo.moved, 0);
        }
        assert!(found > 0);
    }

    #[test]
    #[ignore = "needs SUDOKU_DATA_DIR"]
    fn dynamic_chains_find_the_same_with_the_ends_of_the_boards_before_on_public_puzzles() {
        let mut puzzles = public_puzzles("puzzles3_magictour_top1465", 40);
        puzzles.extend(public_puzzles("puzzles6_forum_hardest_1106", 10));
        let moved = dynamic_carried_along_the_ladder(&puzzles);
        assert!(moved > 100_000, "{moved} ends moved on");
    }

    #[test]
    fn trial_runs_every_pattern_rung_below_the_chains() {
        // The direct rungs are left out: locking and the hidden subsets find all they find.
        let direct = [
            Rung::DirectLocking,
            Rung::DirectHiddenPair,
            Rung::DirectHiddenTriple,
        ];
        // The subsets of each kind, together.
        let together = |r: &Rung| match r {
            Rung::NakedSets => vec![Rung::NakedPair, Rung::NakedTriple, Rung::NakedQuad],
            Rung::HiddenSets => vec![Rung::HiddenPair, Rung::HiddenTriple, Rung::HiddenQuad],
            Rung::Fish => vec![Rung::XWing, Rung::Swordfish, Rung::Jellyfish],
            r => vec![*r],
        };
        let mut ours: Vec<Rung> = crate::grade::SINGLE_RUNGS
            .iter()
            .chain(TRIAL_PATTERNS)
            .flat_map(together)
            .collect();
        ours.extend(direct);
        ours.sort();
        let mut inner = INNER.to_vec();
        inner.sort();
        assert!(
            ours == inner,
            "a pattern rung below the chains is missing from trial"
        );
    }

    #[test]
    fn trial_verdicts_do_not_depend_on_the_order_of_the_rungs() {
        let mut boards: Vec<(Grid, State, bool)> = HARD
            .iter()
            .map(|p| {
                let p: Grid = p.parse().expect("a puzzle");
                (p, before_trial(&p), true)
            })
            .collect();
        for i in 0..3 {
            let p = puzzle(25, i, Mode::Minimal, None);
            boards.push((p, State::new(&p).expect("no clash"), false));
        }
        let (checked, contradicted) = compare(&boards);
        eprintln!("{contradicted} of {checked} assumptions end in a contradiction");
        // Both verdicts occur often enough for the comparison to mean something.
        assert!(checked > 500, "{checked}");
        assert!(
            contradicted * 10 > checked && contradicted * 10 < checked * 9,
            "{contradicted} of {checked}"
        );
    }

    /// The scores of nested trial's steps, as docs/grading.md gives them.
    #[test]
    fn nested_steps_score_their_level_length_and_hardest_chain_inside() {
        let at = |technique, placed, hardest| nested_step(technique, Followed { placed, hardest });
        // The chains level: its base plus the length add of twice the cells placed plus two.
        let s = at(Technique::TrialWithChains, 2, 73);
        assert_eq!((s.tenths, s.length), (102 + 1, 6));
        assert_eq!(at(Technique::TrialWithChains, 40, 66).tenths, 102 + 9);
        // The forcing chains level: a dynamic forcing chain of 9.2 inside, two cells placed:
        // 11.1 + (1.2 + 0.1) / 2, rounded down.
        assert_eq!(at(Technique::TrialWithForcingChains, 2, 92).tenths, 117);
        // A Nishio chain inside counts as 8.0.
        assert_eq!(at(Technique::TrialWithForcingChains, 0, 76).tenths, 111);
        // At most 11.9, below trial of depth 3 and more.
        assert_eq!(at(Technique::TrialWithForcingChains, 60, 100).tenths, 119);
    }

    /// Each level of nested trial spares the solution's candidates, and holds what the level
    /// before it finds (the same closure, which goes on where the chains stop): checked on
    /// every candidate of the board where trial of depth 1 finds nothing, for two puzzles of
    /// the forum's hardest list, with trial of depth 2 on the solution's candidates.
    #[test]
    fn nested_trial_levels_are_sound_and_each_holds_the_one_before() {
        let puzzles = [
            "1....67....71.9...68..7......8.6.9..5....2.4.........2..1.9.8...4......3...3...5.",
            "..39.....4...8..36..8...1...4..6..738......1......2.....4.7..686........7.....5..",
        ];
        for p in puzzles {
            let p = Grid::parse(p.as_bytes()).expect("a puzzle");
            let mut solution = Grid::EMPTY;
            assert_eq!(crate::solver::count_into(&p, 2, &mut solution), 1, "{p}");
            // The ladder up to trial of depth 1, until it finds nothing.
            let s = where_stops(&p, Rung::NOT_UNIQUE);
            assert!(!s.solved(), "{p}: needs no nested trial");
            let mut buf = Steps::new();
            let mut follow = |rungs: &[Rung], c: usize, d: usize| {
                let mut t = s;
                match t.place(c, d) {
                    Err(_) => Err(Followed::default()),
                    Ok(()) => close_with(&mut t, &mut Todo::everywhere(), &[0; 9], &mut buf, rungs),
                }
            };
            let (mut chains, mut forcing) = (0, 0);
            for c in 0..CELLS {
                for d in digits_of(s.cand[c]) {
                    let with_chains = follow(WITH_CHAINS, c, d);
                    let with_forcing = follow(WITH_FORCING_CHAINS, c, d);
                    let at = format!("{p}: {} in r{}c{}", d + 1, c / 9 + 1, c % 9 + 1);
                    if let Err(followed) = with_chains {
                        assert_eq!(with_forcing, Err(followed), "{at}");
                        chains += 1;
                    }
                    if usize::from(solution.cells()[c]) == d + 1 {
                        assert!(
                            with_forcing.is_ok(),
                            "{at}: the solution's digit contradicts"
                        );
                        assert_eq!(nested_contradiction(&s, c, d, u32::MAX), None, "{at}");
                    }
                    forcing += usize::from(with_forcing.is_err());
                }
            }
            // The second level finds more than the first.
            assert!(forcing > chains, "{p}: {chains} {forcing}");
        }
    }

    #[test]
    #[ignore = "needs SUDOKU_DATA_DIR"]
    fn trial_verdicts_do_not_depend_on_the_order_of_the_rungs_on_public_puzzles() {
        let mut boards = Vec::new();
        for (file, n) in [
            ("puzzles3_magictour_top1465", 150),
            ("puzzles5_forum_hardest_1905_11+", 40),
            ("puzzles6_forum_hardest_1106", 20),
        ] {
            for p in public_puzzles(file, n) {
                boards.push((p, State::new(&p).expect("no clash"), false));
                boards.push((p, before_trial(&p), true));
            }
        }
        let (checked, contradicted) = compare(&boards);
        eprintln!("{contradicted} of {checked} assumptions end in a contradiction");
        assert!(contradicted * 10 > checked, "{contradicted} of {checked}");
    }

    /// `d` placed in `c`, then naked and hidden singles of every digit in waves, each wave all
    /// the singles of the board before it, looked for in every cell and unit: the placements
    /// after the first, and whether they end in a contradiction (an empty cell or unit, or two
    /// singles of a wave that clash: that wave counts whole).
    fn naive_singles(s: &State, c: usize, d: usize) -> (u32, bool) {
        let mut cand = s.digits;
        let mut value = s.value;
        let place = |cand: &mut [u128; 9], value: &mut [u8; CELLS], c: usize, d: usize| {
            let clash = (0..CELLS).any(|p| PEERS[c] >> p & 1 == 1 && value[p] == d as u8 + 1);
            value[c] = d as u8 + 1;
            for m in cand.iter_mut() {
                *m &= !(1u128 << c);
            }
            cand[d] &= !PEERS[c];
            clash
        };
        if place(&mut cand, &mut value, c, d) {
            return (0, true);
        }
        let mut count = 0;
        loop {
            let mut wave = [0u128; 9];
            for cell in (0..CELLS).filter(|&cell| value[cell] == 0) {
                let digits: Vec<usize> = (0..9).filter(|&e| cand[e] >> cell & 1 == 1).collect();
                match digits.len() {
                    0 => return (count, true),
                    1 => wave[digits[0]] |= 1u128 << cell,
                    _ => {}
                }
            }
            for (e, w) in wave.iter_mut().enumerate() {
                for unit in UNITS {
                    if unit.iter().any(|&p| value[usize::from(p)] == e as u8 + 1) {
                        continue;
                    }
                    let places = cand[e] & unit.iter().fold(0u128, |m, &p| m | 1u128 << p);
                    if places == 0 {
                        return (count, true);
                    }
                    if is_single(places) {
                        *w |= places;
                    }
                }
            }
            let any = wave.iter().fold(0u128, |a, w| a | w);
            if any == 0 {
                return (count, false);
            }
            let mut clash = (0..9).any(|e| (0..9).any(|f| e != f && wave[e] & wave[f] != 0));
            for (e, &w) in wave.iter().enumerate() {
                for cell in cells_of(w) {
                    clash |= place(&mut cand, &mut value, cell, e);
                }
            }
            count += any.count_ones();
            if clash {
                return (count, true);
            }
        }
    }

    /// What the forcing-chain rungs must find, the slow way: every candidate outside `known`
    /// followed to its end (no score limit, nothing skipped); the lowest score's candidates, in
    /// cell then digit order for the dynamic chains and digit then cell order for Nishio.
    fn lowest_contradictions(
        s: &State,
        known: &[u128; 9],
        nishio: bool,
    ) -> Vec<(usize, usize, u8)> {
        let mut all = Vec::new();
        let mut note = |c: usize, d: usize, contradiction: bool, tenths: u8| {
            if contradiction {
                all.push((c, d, tenths));
            }
        };
        if nishio {
            for d in 0..9 {
                let placed0 = s.placed_mask(d);
                for c in cells_of(s.digits[d] & !known[d]) {
                    // One digit alone, in waves: the units left with one place take it.
                    let (mut m, mut placed) = (
                        s.digits[d] & !PEERS[c] & !(1u128 << c),
                        placed0 | 1u128 << c,
                    );
                    let mut count = 1u32;
                    let contradiction = loop {
                        let open: Vec<u128> = UNIT_MASK
                            .iter()
                            .copied()
                            .filter(|u| placed & u == 0)
                            .collect();
                        if open.iter().any(|u| m & u == 0) {
                            break true;
                        }
                        let wave = open
                            .iter()
                            .filter(|&&u| is_single(m & u))
                            .fold(0u128, |w, u| w | (m & u));
                        if wave == 0 {
                            break false;
                        }
                        let clash = cells_of(wave).any(|c2| PEERS[c2] & wave != 0);
                        for c2 in cells_of(wave) {
                            m &= !PEERS[c2];
                        }
                        m &= !wave;
                        placed |= wave;
                        count += wave.count_ones();
                        if clash {
                            break true;
                        }
                    };
                    note(
                        c,
                        d,
                        contradiction,
                        Technique::Nishio.se() + length_tenths(count + 1),
                    );
                }
            }
        } else {
            for c in 0..CELLS {
                for d in digits_of(s.cand[c]) {
                    if known[d] >> c & 1 == 1 {
                        continue;
                    }
                    let (count, contradiction) = naive_singles(s, c, d);
                    let tenths = Technique::DynamicForcingChain.se() + length_tenths(2 * count + 2);
                    note(c, d, contradiction, tenths);
                }
            }
        }
        let low = all.iter().map(|&(_, _, t)| t).min();
        all.retain(|&(_, _, t)| Some(t) == low);
        all
    }

    /// The dynamic forcing chains and Nishio, which skip what an earlier assumption settled and
    /// stop at the lowest score found so far, find exactly what following every candidate to its
    /// end finds: the same candidates, scores and order.
    #[test]
    fn forcing_chains_find_what_following_every_candidate_finds() {
        let mut boards: Vec<(Grid, State)> = HARD
            .iter()
            .map(|p| {
                let p: Grid = p.parse().expect("a puzzle");
                (p, before_trial(&p))
            })
            .collect();
        // Every board of the ladder's path through generated minimal puzzles.
        for i in 0..40 {
            let p = puzzle(25, i, Mode::Minimal, None);
            let mut t = State::new(&p).expect("no clash");
            let mut buf = Steps::new();
            while !t.solved() {
                boards.push((p, t));
                buf.clear();
                if !run_rungs(&t, Rung::NOT_UNIQUE, &mut buf) || t.apply(buf.steps()).is_err() {
                    break;
                }
            }
        }
        let mut found = 0;
        for (p, s) in &boards {
            let mut solution = Grid::EMPTY;
            assert!(crate::solver::count_into(p, 2, &mut solution) > 0, "{p}");
            let mut known = [0u128; 9];
            for (c, &v) in solution.cells().iter().enumerate() {
                known[usize::from(v - 1)] |= 1u128 << c;
            }
            for known in [[0; 9], known] {
                for nishio_rung in [false, true] {
                    let mut out = Steps::new();
                    match nishio_rung {
                        true => nishio(s, &known, 0x1ff, &mut out),
                        false => dynamic_once(s, &known, &mut out),
                    }
                    let steps: Vec<(usize, usize, u8)> = out
                        .steps()
                        .iter()
                        .map(|step| {
                            let d = step.digits.trailing_zeros() as usize;
                            (
                                step.eliminations[d].trailing_zeros() as usize,
                                d,
                                step.tenths,
                            )
                        })
                        .collect();
                    assert_eq!(
                        steps,
                        lowest_contradictions(s, &known, nishio_rung),
                        "{p}, Nishio {nishio_rung}"
                    );
                    found += steps.len();
                }
            }
        }
        assert!(found > 10_000, "{found} removals");
    }
}
