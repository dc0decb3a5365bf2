//! `rate` figures are comparable across releases: they carry `RATE_VERSION`, and this test pins
//! the ratings of a fixed sample under each version in `tests/rating_pins/v{N}.txt`.
//!
//! - The current figures must equal the current version's pins: a change to the search that moves
//!   any rating fails here until `RATE_VERSION` is raised.
//! - They must differ from every earlier version's pins (the other files there): a new version
//!   is only for new figures.
//!
//! To record a new version: raise `RATE_VERSION`, then run
//! `SUDOKU_WRITE_PINS=1 cargo test --release --test rating_pins` once, which writes the new
//! version's file (it never overwrites one), and commit it.

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use sudoku_batch::{rate, Grid, RATE_VERSION};

/// The options of `sudoku-batch rate` by default.
const SAMPLES: u32 = 16;
const SEED: u64 = 0;

/// Well-known hard puzzles, so the sample covers long searches too.
const HARD: [&str; 3] = [
    // "AI Escargot"
    "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    // "Easter Monster"
    "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1",
    // The first puzzle of the magictour top 1465 list
    "4...3.......6..8..........1....5..9..8....6...7.2........1.27..5.3....4.9........",
];

/// The fixed sample: the 20 puzzles of `data/sample.txt`, every 50th of
/// `data/generated_minimal_2000.txt` (40 puzzles), and [`HARD`].
fn sample() -> Vec<String> {
    let lines = |name: &str| -> Vec<String> {
        std::fs::read_to_string(common::shipped(name))
            .unwrap()
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l[..81].to_string())
            .collect()
    };
    let mut puzzles = lines("sample.txt");
    puzzles.extend(lines("generated_minimal_2000.txt").into_iter().step_by(50));
    puzzles.extend(HARD.iter().map(|p| p.to_string()));
    puzzles
}

/// One line per puzzle: the puzzle, its guesses summed over the samples, and whether singles
/// solve it.
fn figures() -> String {
    let mut text = String::new();
    for puzzle in sample() {
        let grid = Grid::parse(puzzle.as_bytes()).unwrap();
        let r = rate(&grid, SAMPLES, SEED).expect("every puzzle of the sample has a solution");
        writeln!(text, "{puzzle} {} {}", r.guesses, r.singles).unwrap();
    }
    text
}

fn pins_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/rating_pins")
}

fn pins(version: u32) -> Option<String> {
    std::fs::read_to_string(pins_dir().join(format!("v{version}.txt"))).ok()
}

#[test]
fn ratings_of_the_fixed_sample_are_pinned_to_the_rating_version() {
    let now = figures();
    assert_eq!(now.lines().count(), 63);
    let Some(pinned) = pins(RATE_VERSION) else {
        if std::env::var_os("SUDOKU_WRITE_PINS").is_some() {
            std::fs::write(pins_dir().join(format!("v{RATE_VERSION}.txt")), &now).unwrap();
            return;
        }
        panic!(
            "no pins for rating version {RATE_VERSION}: record them with \
             SUDOKU_WRITE_PINS=1 cargo test --release --test rating_pins"
        );
    };
    let moved: Vec<String> = pinned
        .lines()
        .zip(now.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("  pinned {a}\n  now    {b}"))
        .collect();
    assert!(
        moved.is_empty() && pinned.lines().count() == now.lines().count(),
        "{} ratings of the fixed sample moved under rating version {RATE_VERSION}: a change that \
         moves ratings needs a new RATE_VERSION (src/dataset/rate.rs) and new pins (see this \
         file's header)\n{}",
        moved.len(),
        moved.join("\n")
    );
    for entry in std::fs::read_dir(pins_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let version: u32 = name
            .strip_prefix('v')
            .and_then(|n| n.strip_suffix(".txt"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("tests/rating_pins/{name} is not named v<N>.txt"));
        assert!(version <= RATE_VERSION, "{name} is newer than RATE_VERSION");
        if version < RATE_VERSION {
            assert_ne!(
                pins(version).unwrap(),
                now,
                "rating version {RATE_VERSION} gives the same figures as version {version}"
            );
        }
    }
}

#[test]
fn the_long_version_names_the_rating_version() {
    let out = assert_cmd::Command::cargo_bin("sudoku-batch")
        .unwrap()
        .arg("--version")
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let want = format!("rating version: {RATE_VERSION}");
    assert!(text.lines().any(|l| l == want), "{text}");
}
