//! The minlex canonical form against an independent brute force (every one of the 3,359,232
//! geometric transforms, relabelled by first appearance), its invariance under transforms written
//! here from scratch, idempotence and distinctness, and `Transform` itself. Nothing here calls
//! the library's transform code except the tests of `Transform`.

mod common;

use std::collections::{HashMap, HashSet};

use sudoku_batch::Grid;
use sudoku_batch::Transform;
use sudoku_batch::{canonical, Canonicalizer};

type Cells = [u8; 81];

/// A seeded xorshift64* stream, independent of the library's generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn perm(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, self.below(i + 1));
        }
        p
    }
}

/// The six orders of `0..3`.
fn perms3() -> Vec<[usize; 3]> {
    let mut out = Vec::new();
    for a in 0..3 {
        for b in 0..3 {
            for c in 0..3 {
                if a != b && b != c && a != c {
                    out.push([a, b, c]);
                }
            }
        }
    }
    out
}

/// All 1,296 line permutations that keep the three blocks of three together.
fn block_perms() -> Vec<[usize; 9]> {
    let p3 = perms3();
    let mut out = Vec::new();
    for outer in &p3 {
        for a in &p3 {
            for b in &p3 {
                for c in &p3 {
                    let inner = [a, b, c];
                    let mut p = [0; 9];
                    for k in 0..3 {
                        for i in 0..3 {
                            p[3 * k + i] = 3 * outer[k] + inner[k][i];
                        }
                    }
                    out.push(p);
                }
            }
        }
    }
    out
}

fn transpose(g: &Cells) -> Cells {
    let mut t = [0; 81];
    for r in 0..9 {
        for c in 0..9 {
            t[r * 9 + c] = g[c * 9 + r];
        }
    }
    t
}

/// The brute-force minlex form: every transposition x row permutation x column permutation,
/// digits numbered by first appearance, the smallest string kept.
fn brute_force(g: &Cells) -> Cells {
    let perms = block_perms();
    let mut best = [u8::MAX; 81];
    for src in [*g, transpose(g)] {
        for rp in &perms {
            let mut rows = [[0u8; 9]; 9];
            for (row, &sr) in rows.iter_mut().zip(rp) {
                row.copy_from_slice(&src[sr * 9..sr * 9 + 9]);
            }
            for cp in &perms {
                let mut label = [0u8; 10];
                let mut next = 1;
                let mut less = false;
                'cells: for (r, row) in rows.iter().enumerate() {
                    for (c, &sc) in cp.iter().enumerate() {
                        let d = row[sc] as usize;
                        if d != 0 && label[d] == 0 {
                            label[d] = next;
                            next += 1;
                        }
                        let x = label[d];
                        let i = r * 9 + c;
                        if less {
                            best[i] = x;
                        } else if x < best[i] {
                            less = true;
                            best[i] = x;
                        } else if x > best[i] {
                            break 'cells;
                        }
                    }
                }
            }
        }
    }
    best
}

/// A random transform written from scratch: transposition, band/row/stack/column permutations
/// and a digit relabelling.
fn random_transform(g: &Cells, rng: &mut Rng) -> Cells {
    let src = if rng.below(2) == 1 { transpose(g) } else { *g };
    let line_perm = |rng: &mut Rng| {
        let outer = rng.perm(3);
        let mut p = [0; 9];
        for k in 0..3 {
            let inner = rng.perm(3);
            for i in 0..3 {
                p[3 * k + i] = 3 * outer[k] + inner[i];
            }
        }
        p
    };
    let rp = line_perm(rng);
    let cp = line_perm(rng);
    let mut digits = [0u8; 10];
    for (d, &p) in rng.perm(9).iter().enumerate() {
        digits[d + 1] = p as u8 + 1;
    }
    let mut out = [0; 81];
    for r in 0..9 {
        for c in 0..9 {
            out[r * 9 + c] = digits[src[rp[r] * 9 + cp[c]] as usize];
        }
    }
    out
}

fn grid(cells: &Cells) -> Grid {
    Grid::from_cells(*cells).unwrap()
}

fn parse(text: &str) -> Cells {
    *Grid::parse(text.as_bytes()).unwrap().cells()
}

fn line(cells: &Cells) -> String {
    cells.iter().map(|&d| (b'0' + d) as char).collect()
}

/// A random puzzle: a solved grid with about `keep` cells of 81 kept; with `clash`, some givens
/// are overwritten with random digits (so they may repeat in a unit).
fn random_puzzle(rng: &mut Rng, keep: usize, clash: bool) -> Cells {
    let full = common::reference::random_full(rng.next());
    let mut p = [0u8; 81];
    for i in 0..81 {
        if rng.below(81) < keep {
            p[i] = full[i];
            if clash && rng.below(4) == 0 {
                p[i] = rng.below(9) as u8 + 1;
            }
        }
    }
    p
}

/// A puzzle of about `keep` givens drawn from the digits `1..=digits` only: rows and stacks that
/// repeat digits, the hardest case for the labelling.
fn few_digits(rng: &mut Rng, keep: usize, digits: usize) -> Cells {
    let mut p = [0u8; 81];
    for c in p.iter_mut() {
        if rng.below(81) < keep {
            *c = 1 + rng.below(digits) as u8;
        }
    }
    p
}

const SEVENTEEN: &str =
    ".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...";
const MAGICTOUR: &str =
    "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........";
const SOLVED: &str =
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
/// The most symmetric solved grid: its many automorphisms keep many candidates alive.
const PATTERN: &str =
    "123456789456789123789123456234567891567891234891234567345678912678912345912345678";

fn special_puzzles() -> Vec<(&'static str, Cells)> {
    let mut near_empty = [0u8; 81];
    near_empty[40] = 5;
    near_empty[80] = 3;
    near_empty[2] = 5;
    let mut one = [0u8; 81];
    one[50] = 9;
    let mut clashing = parse(MAGICTOUR);
    clashing[1] = 4; // a second 4 in row 1 and box 1
    clashing[72] = 4; // and in column 1
    let mut sparse_pattern = parse(PATTERN);
    for (i, c) in sparse_pattern.iter_mut().enumerate() {
        if i % 4 != 0 {
            *c = 0;
        }
    }
    // Equal lines (swapping them is a symmetry): bands 0 and 2, rows 3 and 5, stacks 0 and 1.
    let mut twins = parse(MAGICTOUR);
    twins.copy_within(0..27, 54);
    twins.copy_within(27..36, 45);
    for r in 0..9 {
        twins.copy_within(r * 9..r * 9 + 3, r * 9 + 3);
    }
    // A grid equal to its transpose, with two equal sparse rows in a band.
    let mut symmetric = [0u8; 81];
    for (r, c, d) in [
        (0, 4, 1),
        (1, 4, 1),
        (4, 0, 1),
        (4, 1, 1),
        (2, 7, 3),
        (7, 2, 3),
        (8, 8, 5),
    ] {
        symmetric[r * 9 + c] = d;
    }
    vec![
        ("17-clue", parse(SEVENTEEN)),
        ("equal lines", twins),
        ("symmetric", symmetric),
        ("magictour", parse(MAGICTOUR)),
        ("three givens", near_empty),
        ("one given", one),
        ("empty", [0; 81]),
        ("solved", parse(SOLVED)),
        ("pattern grid", parse(PATTERN)),
        ("sparse pattern grid", sparse_pattern),
        ("clashing givens", clashing),
        ("all nines", [9; 81]),
    ]
}

#[test]
#[cfg_attr(debug_assertions, ignore = "brute force: run with --release")]
fn matches_brute_force_on_special_puzzles() {
    let mut canon = Canonicalizer::new();
    for (name, p) in special_puzzles() {
        let expect = brute_force(&p);
        let got = canon.canonical(&grid(&p));
        assert_eq!(got.to_line(), line(&expect), "{name}: {}", line(&p));
        assert_eq!(canonical(&grid(&p)), got, "{name}: free function");
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "brute force: run with --release")]
fn matches_brute_force_on_random_puzzles() {
    let mut rng = Rng::new(7);
    let mut canon = Canonicalizer::new();
    for i in 0..20 {
        let keep = [3, 6, 10, 17, 22, 28, 40, 75][i % 8];
        let p = if i < 16 {
            random_puzzle(&mut rng, keep, i % 3 == 2)
        } else {
            few_digits(&mut rng, keep, i % 3 + 1)
        };
        let expect = brute_force(&p);
        assert_eq!(
            canon.canonical(&grid(&p)).to_line(),
            line(&expect),
            "{}",
            line(&p)
        );
    }
}

/// Three random isomorphs of `p` all have `p`'s form `c`.
fn assert_isomorphs_share_form(
    canon: &mut Canonicalizer,
    p: &Cells,
    c: &Grid,
    rng: &mut Rng,
    case: usize,
) {
    for _ in 0..3 {
        let q = random_transform(p, rng);
        assert_eq!(
            canon.canonical(&grid(&q)),
            *c,
            "case {case}: {} and its isomorph {}",
            line(p),
            line(&q)
        );
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "brute force: run with --release")]
fn solution_grids_match_brute_force() {
    let mut rng = Rng::new(19);
    let mut canon = Canonicalizer::new();
    // Row r is row 0 shifted by 4r: every row and column a permutation, boxes not.
    let latin: Cells = std::array::from_fn(|i| ((i / 9 * 4 + i % 9) % 9 + 1) as u8);
    let mut grids = vec![latin];
    for _ in 0..6 {
        grids.push(common::reference::random_full(rng.next()));
    }
    for g in &grids {
        let expect = line(&brute_force(g));
        assert_eq!(canon.canonical(&grid(g)).to_line(), expect, "{}", line(g));
        let q = random_transform(g, &mut rng);
        assert_eq!(canon.canonical(&grid(&q)).to_line(), expect, "{}", line(&q));
    }
}

#[test]
fn solution_grids_invariant_under_random_transforms() {
    let mut rng = Rng::new(23);
    let mut canon = Canonicalizer::new();
    for case in 0..300 {
        let g = common::reference::random_full(rng.next());
        let c = canon.canonical(&grid(&g));
        assert!(c.is_complete() && c.to_line().starts_with("123456789"));
        assert_isomorphs_share_form(&mut canon, &g, &c, &mut rng, case);
    }
}

#[test]
fn invariant_under_random_transforms() {
    let mut rng = Rng::new(11);
    let mut canon = Canonicalizer::new();
    let mut specials = special_puzzles().into_iter().map(|(_, p)| p);
    for case in 0..2000 {
        let p = match specials.next() {
            Some(p) => p,
            None => {
                let keep = rng.below(82);
                match rng.below(10) {
                    0 => {
                        let digits = 1 + rng.below(3);
                        few_digits(&mut rng, keep / 2, digits)
                    }
                    1 | 2 => random_puzzle(&mut rng, keep, true),
                    _ => random_puzzle(&mut rng, keep, false),
                }
            }
        };
        let c = canon.canonical(&grid(&p));
        assert_isomorphs_share_form(&mut canon, &p, &c, &mut rng, case);
    }
}

#[test]
fn canonical_is_idempotent_and_an_isomorph() {
    let mut rng = Rng::new(13);
    let mut canon = Canonicalizer::new();
    for case in 0..500 {
        let keep = rng.below(82);
        let p = random_puzzle(&mut rng, keep, case % 4 == 0);
        let c = canon.canonical(&grid(&p));
        assert_eq!(canon.canonical(&c), c, "{}", line(&p));
        // Same givens count; digits numbered 1, 2, ... by first appearance; no larger than p
        // relabelled by first appearance.
        assert_eq!(c.givens(), grid(&p).givens());
        let mut next = 1;
        for &d in c.cells() {
            assert!(d <= next, "{c}: digit {d} before {next}");
            if d == next {
                next += 1;
            }
        }
        let mut label = [0u8; 10];
        let mut n = 1;
        let relabelled: Cells = p.map(|d| {
            if d != 0 && label[d as usize] == 0 {
                label[d as usize] = n;
                n += 1;
            }
            label[d as usize]
        });
        assert!(c.cells() <= &relabelled);
    }
}

#[test]
#[cfg_attr(debug_assertions, ignore = "brute force: run with --release")]
fn distinct_classes_get_distinct_forms() {
    let mut rng = Rng::new(17);
    let mut puzzles: Vec<Cells> = special_puzzles().into_iter().map(|(_, p)| p).collect();
    // Close relatives: the magictour puzzle with one given removed, at several places.
    let m = parse(MAGICTOUR);
    for i in (0..81).filter(|&i| m[i] != 0).take(6) {
        let mut q = m;
        q[i] = 0;
        puzzles.push(q);
    }
    for _ in 0..6 {
        let keep = rng.below(30);
        puzzles.push(random_puzzle(&mut rng, keep, false));
    }
    let mut by_brute: HashMap<Cells, usize> = HashMap::new();
    let mut canon = Canonicalizer::new();
    for (i, p) in puzzles.iter().enumerate() {
        let b = brute_force(p);
        let c = canon.canonical(&grid(p));
        assert_eq!(c.to_line(), line(&b));
        if let Some(j) = by_brute.insert(b, i) {
            panic!("test data: puzzles {j} and {i} are isomorphs");
        }
    }
    // And without brute force: different given counts, different forms.
    let forms: HashSet<Grid> = (0..=81usize)
        .map(|k| {
            let mut p = parse(SOLVED);
            p[k..].fill(0);
            canon.canonical(&grid(&p))
        })
        .collect();
    assert_eq!(forms.len(), 82);
}

#[test]
fn known_forms() {
    assert_eq!(canonical(&Grid::EMPTY), Grid::EMPTY);
    let mut one = [0u8; 81];
    one[3] = 7;
    let mut expect = [0u8; 81];
    expect[80] = 1;
    assert_eq!(canonical(&grid(&one)), grid(&expect));
    // A solved grid's form starts with 123456789 and stays solved.
    let c = canonical(&Grid::parse(SOLVED.as_bytes()).unwrap());
    assert!(c.to_line().starts_with("123456789"));
    assert!(c.is_complete());
    // This puzzle of the 17-clue list is published in its minlex form.
    let seventeen = Grid::parse(SEVENTEEN.as_bytes()).unwrap();
    assert_eq!(canonical(&seventeen), seventeen);
}

#[test]
fn transform_preserves_validity_and_solutions() {
    let solved = Grid::parse(SOLVED.as_bytes()).unwrap();
    let puzzle = Grid::parse(MAGICTOUR.as_bytes()).unwrap();
    let solutions = common::reference::solutions(puzzle.cells(), 2);
    assert_eq!(solutions.len(), 1);
    let solution = grid(&solutions[0]);
    let mut canon = Canonicalizer::new();
    let c = canon.canonical(&puzzle);
    for seed in 0..500 {
        let t = Transform::random(seed);
        let s = t.apply(&solved);
        assert!(s.is_complete(), "seed {seed}: {s}");
        let q = t.apply(&puzzle);
        assert!(q.is_consistent());
        assert_eq!(q.givens(), puzzle.givens());
        // The image of the solution solves the image of the puzzle, and is its only solution.
        assert!(t.apply(&solution).solves(&q), "seed {seed}");
        if seed % 50 == 0 {
            let image = common::reference::solutions(q.cells(), 2);
            assert_eq!(image, [*t.apply(&solution).cells()], "seed {seed}");
        }
        assert_eq!(canon.canonical(&q), c, "seed {seed}");
    }
    assert_eq!(Transform::IDENTITY.apply(&puzzle), puzzle);
}

#[test]
fn transform_random_is_deterministic_per_seed() {
    for seed in [0, 1, 2, u64::MAX, 0x1234_5678] {
        assert_eq!(Transform::random(seed), Transform::random(seed));
    }
    let distinct: HashSet<Transform> = (0..2000u64).map(Transform::random).collect();
    assert!(
        distinct.len() >= 1990,
        "{} distinct of 2000",
        distinct.len()
    );
    // Different seeds move a puzzle differently.
    let puzzle = Grid::parse(MAGICTOUR.as_bytes()).unwrap();
    let images: HashSet<Grid> = (0..200u64)
        .map(|s| Transform::random(s).apply(&puzzle))
        .collect();
    assert!(images.len() >= 195, "{}", images.len());
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn magictour_set_invariant_under_transforms() {
    let mut rng = Rng::new(19);
    let mut canon = Canonicalizer::new();
    let puzzles = common::data_puzzles("puzzles3_magictour_top1465");
    let mut first: HashMap<Grid, usize> = HashMap::new();
    let mut pairs = Vec::new();
    for (i, text) in puzzles.iter().enumerate() {
        let p = parse(text);
        let c = canon.canonical(&grid(&p));
        let q = random_transform(&p, &mut rng);
        assert_eq!(canon.canonical(&grid(&q)), c, "{text}");
        assert_eq!(canon.canonical(&c), c, "{text}");
        if let Some(j) = first.insert(c, i) {
            pairs.push((j, i));
        }
    }
    // top1465 holds one pair of isomorphs (puzzles 300 and 307); the brute force agrees.
    assert_eq!(pairs, [(299, 306)]);
    assert_eq!(
        brute_force(&parse(&puzzles[299])),
        brute_force(&parse(&puzzles[306]))
    );
}

/// The published 17-clue list is mostly in minlex form: 47,653 of its 49,158 puzzles are their
/// own canonical form; the others come out smaller (checked by brute force below), so the list
/// used some other convention for them. No puzzle is smaller than its form, and no two puzzles of
/// the list share a form.
#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn seventeen_clue_set_forms() {
    let mut canon = Canonicalizer::new();
    let mut rng = Rng::new(23);
    let puzzles = common::data_puzzles("puzzles2_17_clue");
    let mut forms = HashSet::new();
    let mut same = 0;
    for (i, text) in puzzles.iter().enumerate() {
        let p = parse(text);
        let c = canon.canonical(&grid(&p));
        assert!(
            c.cells() <= &p,
            "puzzle {}: {text} above its form {c}",
            i + 1
        );
        same += usize::from(c.cells() == &p);
        if i % 10 == 0 {
            let q = random_transform(&p, &mut rng);
            assert_eq!(canon.canonical(&grid(&q)), c, "{text}");
        }
        forms.insert(c);
    }
    assert_eq!(same, 47_653, "puzzles that are their own form");
    assert_eq!(
        forms.len(),
        puzzles.len(),
        "the 17-clue puzzles are pairwise non-isomorphic"
    );
}

/// Where the canonical form and the published one part, the brute force agrees with ours.
#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn seventeen_clue_brute_force_where_conventions_differ() {
    let mut canon = Canonicalizer::new();
    let mut checked = 0;
    for text in common::data_puzzles("puzzles2_17_clue") {
        let p = parse(&text);
        let c = canon.canonical(&grid(&p));
        if c.cells() != &p {
            assert_eq!(c.to_line(), line(&brute_force(&p)), "{text}");
            checked += 1;
            if checked == 3 {
                break;
            }
        }
    }
    assert_eq!(checked, 3);
}
