//! The minlex form of a solution grid: every row and every column a permutation of `1..=9`.
//!
//! The general search in the parent module is slow on such grids: every row labels to
//! `123456789`, so no first row is pruned and every column order stays open. Here the structure
//! is used instead:
//!
//! - Output row 0 is always `123456789`, and it fixes the relabelling: once the source row `top`
//!   and the column order `sigma` (output column -> source column) are chosen, the digit in
//!   source column `sigma[c]` of `top` is labelled `c + 1`.
//! - Output row 1 is another row `second` of the same band. Its digit in source column `j` sits
//!   in `top` at source column `pi[j]`, so output row 1 reads `c -> sigma⁻¹(pi(sigma(c))) + 1`:
//!   a conjugate of the fixed permutation `pi`. It is minimised column by column (see
//!   [`SolutionCanonicalizer::order`]), with the best row shared by all 36 choices of
//!   (transposition, band, `top`, `second`), so most choices are cut at their first columns.
//! - Everything after is then fixed up to the order of the remaining rows and bands. Column
//!   `sigma[0]` holds distinct digits, so the smallest output puts the rows of each band in
//!   increasing order of their first output digit, and the bands in increasing order of their
//!   smallest one.
//!
//! Several column orders can tie on rows 0 and 1 (a grid with automorphisms has many); each is
//! finished and the smallest whole grid wins.

use crate::grid::CELLS;

/// An open position in [`Order`].
const OPEN: u8 = u8::MAX;

/// The first band as chosen so far: which grid (0 as given, 1 transposed), band, rows, and the
/// column order.
#[derive(Clone, Copy)]
struct Layout {
    grid: u8,
    band: u8,
    top: u8,
    second: u8,
    sigma: [u8; 9],
}

/// A partial column order: output columns are placed in stacks of three, each stack taken from
/// one source stack, and each output stack is filled left to right.
#[derive(Clone, Copy)]
struct Order {
    /// Output column -> source column, or [`OPEN`].
    sigma: [u8; 9],
    /// Source column -> output column, or [`OPEN`].
    pos: [u8; 9],
    /// Output stack -> source stack, or [`OPEN`].
    stack_src: [u8; 3],
    /// Source stack -> output stack, or [`OPEN`].
    stack_out: [u8; 3],
    /// Columns placed so far in each output stack.
    filled: [u8; 3],
    /// Source columns not placed yet, one bit each.
    open: u16,
}

impl Order {
    const NEW: Order = Order {
        sigma: [OPEN; 9],
        pos: [OPEN; 9],
        stack_src: [OPEN; 3],
        stack_out: [OPEN; 3],
        filled: [0; 3],
        open: 0x1ff,
    };

    /// Puts source column `col` at the next free output column of output stack `stack`, which
    /// takes `col`'s source stack if it has none.
    #[inline]
    fn place(&mut self, col: u8, stack: u8) -> u8 {
        let (s, k) = (col as usize / 3, stack as usize);
        self.stack_src[k] = s as u8;
        self.stack_out[s] = stack;
        let at = 3 * stack + self.filled[k];
        self.filled[k] += 1;
        self.sigma[at as usize] = col;
        self.pos[col as usize] = at;
        self.open &= !(1 << col);
        at
    }

    /// The output stack of source column `col`: its source stack's, or else the first output
    /// stack without one.
    #[inline]
    fn stack_for(&self, col: u8) -> u8 {
        match self.stack_out[col as usize / 3] {
            OPEN => self
                .stack_src
                .iter()
                .position(|&s| s == OPEN)
                .expect("stacks pair up") as u8,
            k => k,
        }
    }
}

/// True if every row and every column of `g` holds each digit `1..=9` once (boxes may repeat:
/// nothing here needs them).
pub(super) fn is_solution_grid(g: &[u8; CELLS]) -> bool {
    const ALL: u16 = 0b11_1111_1110;
    if g.contains(&0) {
        return false;
    }
    let mut rows = [0u16; 9];
    let mut cols = [0u16; 9];
    for (i, &d) in g.iter().enumerate() {
        let bit = 1u16 << d;
        rows[i / 9] |= bit;
        cols[i % 9] |= bit;
    }
    rows.iter().chain(&cols).all(|&m| m == ALL)
}

/// Scratch space for the canonical form of solution grids: after a few calls it stops
/// allocating.
#[derive(Default)]
pub(super) struct SolutionCanonicalizer {
    /// Layouts whose output rows 0 and 1 equal the best so far.
    ties: Vec<Layout>,
    /// The best output row 1 so far; `u8::MAX` past the part decided.
    best: [u8; 9],
}

impl SolutionCanonicalizer {
    /// The minlex form of the solution grid `grids[0]` (`grids[1]` is its transpose), as cells.
    pub(super) fn canonical(&mut self, grids: &[[u8; CELLS]; 2]) -> [u8; CELLS] {
        debug_assert!(is_solution_grid(&grids[0]));
        self.best = [u8::MAX; 9];
        self.ties.clear();
        let count = if grids[0] == grids[1] { 1 } else { 2 };
        for (grid, g) in grids[..count].iter().enumerate() {
            for band in 0..3 {
                for top in 3 * band..3 * band + 3 {
                    let mut col_of = [0u8; 10];
                    for (k, &d) in g[top * 9..top * 9 + 9].iter().enumerate() {
                        col_of[d as usize] = k as u8;
                    }
                    for second in (3 * band..3 * band + 3).filter(|&r| r != top) {
                        let pi: [u8; 9] =
                            std::array::from_fn(|j| col_of[g[second * 9 + j] as usize]);
                        let layout = Layout {
                            grid: grid as u8,
                            band: band as u8,
                            top: top as u8,
                            second: second as u8,
                            sigma: [OPEN; 9],
                        };
                        self.order(&pi, Order::NEW, 0, &layout);
                    }
                }
            }
        }
        let mut out = [u8::MAX; CELLS];
        for layout in &self.ties {
            let grid = finish(&grids[layout.grid as usize], layout);
            if grid < out {
                out = grid;
            }
        }
        out
    }

    /// Records output value `x` of row 1 at column `p`; false if the branch is worse than the
    /// best.
    #[inline]
    fn accept(&mut self, p: usize, x: u8) -> bool {
        let b = self.best[p];
        if x > b {
            return false;
        }
        if x < b {
            self.best[p] = x;
            self.best[p + 1..].fill(u8::MAX);
            self.ties.clear();
        }
        true
    }

    /// Completes `order` from output column `c` on, minimising output row 1.
    ///
    /// Output column `c` of row 1 is the output position of source column `pi[sigma[c]]`. If
    /// that column has no position yet, the smallest one it can take is the next free column of
    /// its stack's output stack (or of the first output stack not yet taken), and any other
    /// would make this value larger, so it is placed there at once. The only choice is which
    /// source column goes to output column `c` when no earlier value placed one there: every
    /// unused column of the stack's source stack (or of any untaken source stack) is a branch.
    fn order(&mut self, pi: &[u8; 9], mut o: Order, mut c: usize, layout: &Layout) {
        while c < 9 {
            if o.sigma[c] == OPEN {
                let k = c / 3;
                debug_assert_eq!(3 * k + o.filled[k] as usize, c);
                let stacks = match o.stack_src[k] {
                    OPEN => (0..3)
                        .filter(|&s| o.stack_out[s] == OPEN)
                        .fold(0u16, |m, s| m | 0b111 << (3 * s)),
                    src => 0b111 << (3 * src),
                };
                let mut cols = stacks & o.open;
                while cols != 0 {
                    let col = cols.trailing_zeros() as u8;
                    cols &= cols - 1;
                    let mut branch = o;
                    branch.place(col, k as u8);
                    self.order(pi, branch, c, layout);
                }
                return;
            }
            let v = pi[o.sigma[c] as usize];
            let at = match o.pos[v as usize] {
                OPEN => o.place(v, o.stack_for(v)),
                at => at,
            };
            if !self.accept(c, at + 1) {
                return;
            }
            c += 1;
        }
        self.ties.push(Layout {
            sigma: o.sigma,
            ..*layout
        });
    }
}

/// The whole output grid of `layout`: its band's rows in the order top, second, third; the other
/// rows ordered by their first output digit, and their bands by their smallest one.
fn finish(g: &[u8; CELLS], layout: &Layout) -> [u8; CELLS] {
    let sigma = layout.sigma;
    let (band, top, second) = (
        layout.band as usize,
        layout.top as usize,
        layout.second as usize,
    );
    let mut label = [0u8; 10];
    for (c, &col) in sigma.iter().enumerate() {
        label[g[top * 9 + col as usize] as usize] = c as u8 + 1;
    }
    // The row of the band that is neither `top` nor `second`.
    let third = 3 * band + (3 - top % 3 - second % 3);
    // The other two bands, each with its rows sorted by first output digit.
    let first = |row: usize| label[g[row * 9 + sigma[0] as usize] as usize];
    let mut bands = [[0usize; 3]; 2];
    for (rows, b) in bands.iter_mut().zip((0..3).filter(|&b| b != band)) {
        *rows = [3 * b, 3 * b + 1, 3 * b + 2];
        rows.sort_unstable_by_key(|&r| first(r));
    }
    if first(bands[1][0]) < first(bands[0][0]) {
        bands.swap(0, 1);
    }
    let order = [
        top,
        second,
        third,
        bands[0][0],
        bands[0][1],
        bands[0][2],
        bands[1][0],
        bands[1][1],
        bands[1][2],
    ];
    let mut out = [0u8; CELLS];
    for (r, &row) in order.iter().enumerate() {
        for (c, &col) in sigma.iter().enumerate() {
            out[r * 9 + c] = label[g[row * 9 + col as usize] as usize];
        }
    }
    out
}
