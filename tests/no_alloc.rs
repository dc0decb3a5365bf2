//! The solve path allocates nothing: a counting global allocator watches `solve`, `count`,
//! `lexmin` and `grade` over a mix of easy, hard, multi-solution and unsolvable puzzles, and a
//! warmed-up `Canonicalizer` (whose scratch space grows over its first calls).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use sudoku_batch::Grid;

struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCS.with(|n| n.set(n.get() + 1));
        // SAFETY: forwards the caller's contract to the system allocator unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCS.with(|n| n.set(n.get() + 1));
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const PUZZLES: [&str; 7] = [
    // 17 clues
    "000000010400000000020000000000050407008000300001090000300400200050100000000806000",
    // AI Escargot
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    // many solutions
    ".................................................................................",
    // few givens, several solutions
    "1........2........3........4........5........6........7........8........9........",
    // clash: two 5s in row 0
    "55...............................................................................",
    // unsolvable without a direct clash
    "12345678.........9...............................................................",
    // solved
    "534678912672195348198342567859761423426853791713924856961537284287419635345286179",
];

fn test_puzzles() -> Vec<Grid> {
    PUZZLES
        .iter()
        .map(|p| Grid::parse(p.as_bytes()).expect("test puzzle parses"))
        .collect()
}

#[test]
fn solve_count_and_lexmin_do_not_allocate() {
    let puzzles = test_puzzles();

    let before = ALLOCS.with(Cell::get);
    let mut solved = 0;
    for _ in 0..20 {
        for p in &puzzles {
            solved += usize::from(sudoku_batch::solve(p).solution.is_some());
            solved += sudoku_batch::count(p, 2).solutions as usize;
            solved += sudoku_batch::count(p, 1000).solutions as usize;
            solved += usize::from(sudoku_batch::lexmin(p).solution.is_some());
        }
    }
    let allocations = ALLOCS.with(Cell::get) - before;
    assert!(solved > 0);
    assert_eq!(
        allocations, 0,
        "the solve path allocated {allocations} times"
    );
}

#[test]
fn grade_does_not_allocate() {
    let puzzles = test_puzzles();
    let before = ALLOCS.with(Cell::get);
    let mut graded = 0;
    for p in &puzzles {
        graded += usize::from(sudoku_batch::grade::grade(p).is_some());
    }
    let allocations = ALLOCS.with(Cell::get) - before;
    assert_eq!(graded, 5);
    assert_eq!(allocations, 0, "grade allocated {allocations} times");
}

#[test]
fn canon_stops_allocating_once_warm() {
    let puzzles = test_puzzles();
    let mut canon = sudoku_batch::Canonicalizer::new();
    let forms: Vec<Grid> = puzzles.iter().map(|p| canon.canonical(p)).collect();
    let before = ALLOCS.with(Cell::get);
    for _ in 0..5 {
        for (p, form) in puzzles.iter().zip(&forms) {
            assert!(canon.canonical(p) == *form);
        }
    }
    let allocations = ALLOCS.with(Cell::get) - before;
    assert_eq!(allocations, 0, "canon allocated {allocations} times");
}

#[test]
fn the_counter_sees_allocations() {
    let before = ALLOCS.with(Cell::get);
    let v: Vec<u64> = std::hint::black_box(vec![1, 2, 3]);
    assert_eq!(v.len(), 3);
    assert!(ALLOCS.with(Cell::get) > before);
}
