//! An independent, deliberately simple reference solver (no code shared with the engine):
//! recompute candidates from scratch, branch on the emptiest cell, collect solutions.

pub type Cells = [u8; 81];

fn candidates(g: &Cells, cell: usize) -> u16 {
    let (r, c) = (cell / 9, cell % 9);
    let mut used = 0u16;
    for i in 0..9 {
        used |= 1 << g[r * 9 + i];
        used |= 1 << g[i * 9 + c];
        used |= 1 << g[(r / 3 * 3 + i / 3) * 9 + c / 3 * 3 + i % 3];
    }
    !used & 0b11_1111_1110
}

pub fn givens_clash(g: &Cells) -> bool {
    (0..81).any(|cell| {
        let v = g[cell];
        if v == 0 {
            return false;
        }
        let mut h = *g;
        h[cell] = 0;
        candidates(&h, cell) & (1 << v) == 0
    })
}

fn search(g: &mut Cells, limit: usize, out: &mut Vec<Cells>) {
    let mut best: Option<(usize, u16)> = None;
    for cell in 0..81 {
        if g[cell] == 0 {
            let m = candidates(g, cell);
            if best.is_none_or(|(_, b)| m.count_ones() < b.count_ones()) {
                best = Some((cell, m));
            }
        }
    }
    let Some((cell, mask)) = best else {
        out.push(*g);
        return;
    };
    for d in 1..=9u8 {
        if mask & (1 << d) != 0 && out.len() < limit {
            g[cell] = d;
            search(g, limit, out);
            g[cell] = 0;
        }
    }
}

/// Up to `limit` solutions.
pub fn solutions(puzzle: &Cells, limit: usize) -> Vec<Cells> {
    let mut out = Vec::new();
    if !givens_clash(puzzle) {
        search(&mut puzzle.clone(), limit, &mut out);
    }
    out
}

/// A random solved grid: fill cells in order with digits in a seeded random order.
pub fn random_full(seed: u64) -> Cells {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    fn fill(g: &mut Cells, cell: usize, next: &mut dyn FnMut() -> u64) -> bool {
        if cell == 81 {
            return true;
        }
        let mut digits: Vec<u8> = (1..=9).collect();
        for i in (1..9).rev() {
            digits.swap(i, (next() % (i as u64 + 1)) as usize);
        }
        let m = candidates(g, cell);
        for d in digits {
            if m & (1 << d) != 0 {
                g[cell] = d;
                if fill(g, cell + 1, next) {
                    return true;
                }
                g[cell] = 0;
            }
        }
        false
    }
    let mut g = [0u8; 81];
    assert!(fill(&mut g, 0, &mut next));
    g
}
