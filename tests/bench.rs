//! `bench`: JSON that parses with positive figures, the shipped-sets default, the plot, and the
//! handling of comment, CRLF and bad lines.

mod common;

use assert_cmd::Command;
use serde_json::Value;

fn bench(args: &[&str]) -> Value {
    let out = Command::cargo_bin("sudoku-batch")
        .unwrap()
        .arg("bench")
        .args(["--json", "--min-time", "0.02", "--warmup", "0"])
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    serde_json::from_slice(&out).expect("bench --json prints JSON")
}

fn positive(v: &Value, key: &str) -> f64 {
    let x = v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"));
    assert!(x > 0.0 && x.is_finite(), "{key} = {x}");
    x
}

/// Checks every run of every file and mode; returns the file names.
fn check_report(report: &Value, threads: &[u64]) -> Vec<String> {
    assert!(report["cores"].as_u64().unwrap() >= 1);
    let files = report["files"].as_array().unwrap();
    assert!(!files.is_empty());
    for f in files {
        assert!(f["puzzles"].as_u64().unwrap() > 0);
        let modes = f["modes"].as_array().unwrap();
        let names: Vec<_> = modes.iter().map(|m| m["mode"].as_str().unwrap()).collect();
        assert_eq!(names, ["first-solution", "uniqueness"]);
        for m in modes {
            let pct = m["no_guess_pct"].as_f64().unwrap();
            assert!((0.0..=100.0).contains(&pct));
            let guesses = m["guesses_per_puzzle"].as_f64().unwrap();
            assert!(guesses >= 0.0);
            // At least the root and one state per branch point.
            assert!(m["nodes_per_puzzle"].as_f64().unwrap() >= 1.0 + guesses - 1e-9);
            let runs = m["runs"].as_array().unwrap();
            let got: Vec<u64> = runs
                .iter()
                .map(|r| r["threads"].as_u64().unwrap())
                .collect();
            assert_eq!(got, threads);
            for r in runs {
                let rate = positive(r, "puzzles_per_s");
                let us = positive(r, "us_per_puzzle");
                assert!((rate * us / 1e6 - 1.0).abs() < 1e-9);
                positive(r, "efficiency");
                assert!(r["passes"].as_u64().unwrap() >= 1);
            }
        }
    }
    files
        .iter()
        .map(|f| f["file"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn json_on_a_generated_file_has_positive_figures() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.txt");
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["generate", "-n", "300", "--seed", "1", "-o"])
        .arg(&path)
        .assert()
        .success();
    let plot = dir.path().join("plot.svg");
    let report = bench(&[
        path.to_str().unwrap(),
        "--threads",
        "1,2",
        "--plot",
        plot.to_str().unwrap(),
    ]);
    check_report(&report, &[1, 2]);
    let f = &report["files"][0];
    assert_eq!(f["puzzles"], 300);
    assert_eq!(f["modes"][1]["multiple"], 0, "generated puzzles are unique");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("p.txt, first"),
        "{svg:.200}"
    );
}

#[test]
fn no_files_runs_on_the_shipped_sets() {
    let report = bench(&["--threads", "1"]);
    let files = check_report(&report, &[1]);
    assert!(
        files
            .iter()
            .all(|f| f.starts_with("data/") && f.ends_with(".txt")),
        "{files:?}"
    );
    assert!(files.len() >= 3, "{files:?}");
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn comments_crlf_and_bad_lines_are_handled() {
    let data = common::data_dir();
    // The 17-clue set has CRLF line ends and `#` comment lines at the top.
    let text = std::fs::read(data.join("puzzles2_17_clue")).unwrap();
    let head: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').take(54).collect();
    let comments = head.iter().filter(|l| l.starts_with(b"#")).count();
    assert!(comments > 0);
    let mut file = head.concat();
    file.extend_from_slice(b"\r\n12345\r\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("17.txt");
    std::fs::write(&path, file).unwrap();
    let report = bench(&[path.to_str().unwrap(), "--threads", "1"]);
    check_report(&report, &[1]);
    let f = &report["files"][0];
    assert_eq!(f["puzzles"].as_u64().unwrap() as usize, 54 - comments);
    let skipped = f["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0]["line"], 56);
    assert_eq!(f["modes"][0]["unsolvable"], 0);
}

#[test]
fn format_names_how_the_files_are_read() {
    // A CSV with a header: detected, the header is no record; read as lines, it is the line
    // format's header row, no record either; a title line is one skipped.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.csv");
    let puzzles = common::puzzle_texts(&common::shipped("generated_unique25_2000.txt"));
    let rows: String = puzzles[..20].iter().map(|p| format!("{p}\n")).collect();
    std::fs::write(&path, format!("quizzes\n{rows}")).unwrap();
    let detected = bench(&[path.to_str().unwrap(), "--threads", "1"]);
    let f = &detected["files"][0];
    assert_eq!(f["puzzles"], 20);
    assert_eq!(f["skipped"].as_array().unwrap().len(), 0);
    let as_lines = bench(&[path.to_str().unwrap(), "--threads", "1", "--format", "line"]);
    let f = &as_lines["files"][0];
    assert_eq!(f["puzzles"], 20);
    assert_eq!(f["skipped"].as_array().unwrap().len(), 0);
    std::fs::write(&path, format!("quizzes of 2026\n{rows}")).unwrap();
    let titled = bench(&[path.to_str().unwrap(), "--threads", "1", "--format", "line"]);
    let f = &titled["files"][0];
    assert_eq!(f["puzzles"], 20);
    assert_eq!(f["skipped"][0]["line"], 1);
}

#[test]
fn missing_file_exits_2() {
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["bench", "/nonexistent/puzzles.txt"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("/nonexistent/puzzles.txt"));
}

#[test]
fn a_bad_file_fails_before_any_file_is_timed() {
    // With a million seconds a file, timing the good file first would never finish.
    Command::cargo_bin("sudoku-batch")
        .unwrap()
        .args(["bench", "--min-time", "1e6", "--threads", "1"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.txt"))
        .arg("/nonexistent/puzzles.txt")
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicates::str::contains(
            "cannot read /nonexistent/puzzles.txt",
        ));
}

#[test]
fn durations_out_of_range_are_named() {
    let run = |flag: &str| {
        Command::cargo_bin("sudoku-batch")
            .unwrap()
            .args(["bench", flag])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.txt"))
            .assert()
            .code(2)
    };
    run("--warmup=1e308").stderr(predicates::str::contains("--warmup is too long"));
    run("--min-time=-1").stderr(predicates::str::contains(
        "--min-time must be a non-negative number of seconds",
    ));
}

#[test]
fn clashing_givens_are_skipped_as_invalid_not_counted_as_unsolvable() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/sample.txt")).unwrap();
    let good: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| &l[..81])
        .collect();
    let clash = format!("55{}", &good[0][2..]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clash.txt");
    std::fs::write(&path, format!("{}\n{clash}\n{}\n", good[0], good[1])).unwrap();
    let report = bench(&[path.to_str().unwrap(), "--threads", "1"]);
    let f = &report["files"][0];
    assert_eq!(f["puzzles"], 2);
    assert_eq!(f["skipped"][0]["line"], 2);
    assert!(f["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .starts_with("givens clash"));
    assert_eq!(f["modes"][0]["unsolvable"], 0);
}
