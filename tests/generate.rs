//! `generate`: uniqueness, minimality, clue targets and thread-count independence, through the
//! real binary and the library's count API.

use std::path::Path;

use assert_cmd::Command;
use sudoku_batch::generate::{self, Mode};
use sudoku_batch::Grid;

fn generate(args: &[&str]) -> String {
    generate_in(Path::new("."), args)
}

/// `generate ARGS` run in `dir`: its stdout.
fn generate_in(dir: &Path, args: &[&str]) -> String {
    let out = Command::cargo_bin("sudoku-batch")
        .unwrap()
        .current_dir(dir)
        .arg("generate")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).unwrap()
}

fn parse_all(text: &str, n: usize) -> Vec<Grid> {
    let grids: Vec<Grid> = text
        .lines()
        .map(|l| {
            assert_eq!(l.len(), 81, "{l}");
            assert!(!l.contains('0'), "blanks are written as '.': {l}");
            Grid::parse(l.as_bytes()).unwrap()
        })
        .collect();
    assert_eq!(grids.len(), n);
    grids
}

fn assert_unique(grids: &[Grid]) {
    for g in grids {
        assert_eq!(sudoku_batch::count(g, 2).solutions, 1, "not unique: {g}");
    }
}

#[test]
fn same_seed_same_output_at_any_thread_count() {
    // 20,000 easy puzzles span two parallel chunks, so chunk order is checked too.
    let j1 = generate(&["-n", "20000", "--seed", "7", "-j", "1"]);
    let j4 = generate(&["-n", "20000", "--seed", "7", "-j", "4"]);
    assert!(j1 == j4, "easy output differs between -j 1 and -j 4");
    for mode in ["unique", "minimal"] {
        let j1 = generate(&["-n", "60", "--seed", "3", "--mode", mode, "-j", "1"]);
        let j4 = generate(&["-n", "60", "--seed", "3", "--mode", mode, "-j", "4"]);
        assert_eq!(j1, j4, "{mode} output differs between -j 1 and -j 4");
    }
    let other = generate(&["-n", "20000", "--seed", "8", "-j", "4"]);
    assert!(j1 != other, "seeds 7 and 8 gave the same puzzles");
}

#[test]
fn each_line_is_the_library_puzzle_of_its_index() {
    let text = generate(&[
        "-n", "5", "--seed", "11", "--mode", "unique", "--clues", "30",
    ]);
    for (i, g) in parse_all(&text, 5).iter().enumerate() {
        assert_eq!(*g, generate::puzzle(11, i as u64, Mode::Unique, Some(30)));
    }
}

#[test]
fn easy_puzzles_are_unique_and_hit_the_clue_target() {
    let grids = parse_all(&generate(&["-n", "500", "--seed", "1"]), 500);
    assert!(grids.iter().all(|g| g.givens() == 36));
    assert_unique(&grids);
    let grids = parse_all(
        &generate(&["-n", "200", "--seed", "2", "--clues", "33"]),
        200,
    );
    assert!(grids.iter().all(|g| g.givens() == 33));
    assert_unique(&grids);
}

#[test]
fn unique_mode_reaches_its_target_and_is_unique() {
    let args = [
        "-n", "100", "--seed", "5", "--mode", "unique", "--clues", "25",
    ];
    let grids = parse_all(&generate(&args), 100);
    assert!(grids.iter().all(|g| g.givens() == 25));
    assert_unique(&grids);
}

#[test]
fn minimal_puzzles_lose_uniqueness_when_any_given_is_removed() {
    let grids = parse_all(
        &generate(&["-n", "40", "--seed", "9", "--mode", "minimal"]),
        40,
    );
    assert_unique(&grids);
    for g in &grids {
        for cell in 0..81 {
            if g.cells()[cell] == 0 {
                continue;
            }
            let mut cells = *g.cells();
            cells[cell] = 0;
            let fewer = Grid::from_cells(cells).unwrap();
            assert_eq!(
                sudoku_batch::count(&fewer, 2).solutions,
                2,
                "{g}: removing cell {cell} keeps it unique, so it is not minimal"
            );
        }
    }
}

#[test]
fn output_file_is_complete_and_no_temporary_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.txt");
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["generate", "-n", "1000", "--seed", "4", "-o"])
        .arg(&path)
        .assert()
        .success()
        .stdout("");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text, generate(&["-n", "1000", "--seed", "4"]));
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1, "only the output file remains");
}

#[test]
fn usage_and_io_errors_exit_2() {
    let run = |args: &[&str]| {
        Command::cargo_bin("sudoku-batch")
            .unwrap()
            .arg("generate")
            .args(args)
            .assert()
            .code(2)
    };
    run(&["-n", "5", "--mode", "minimal", "--clues", "30"])
        .stderr(predicates::str::contains("--clues"));
    run(&["-n", "5", "--clues", "16"]);
    run(&["-n", "5", "-j", "1025"]); // 0 is one per core, as everywhere
    run(&["-n", "5", "-o", "/nonexistent-dir/x.txt"])
        .stderr(predicates::str::contains("/nonexistent-dir/x.txt"));
}

#[test]
fn dash_is_stdout_and_no_puzzles_as_csv_is_the_header_alone() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| generate_in(dir.path(), args);
    let to_stdout = run(&["-n", "3", "--seed", "7", "-o", "-"]);
    assert_eq!(to_stdout, generate(&["-n", "3", "--seed", "7"]));
    parse_all(&to_stdout, 3);
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "no file named `-`"
    );
    assert_eq!(
        run(&[
            "-n",
            "0",
            "--output-format",
            "csv",
            "--with-solution",
            "--rating"
        ]),
        "question,answer,rating\n"
    );
    assert_eq!(run(&["-n", "0"]), "");
}
