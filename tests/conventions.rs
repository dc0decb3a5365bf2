//! The command line meets its ecosystem's conventions, through the real binary: completions and
//! a man page generated from the flags, `--version` with the commit and CPU features, one
//! meaning of `-j`, help that lists only the flags a command uses, one error style, `bench
//! --json` in hyperfine's shape, and `generate` for dataset builders.

mod common;

use assert_cmd::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

fn stdout_of(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const COMMANDS: [&str; 8] = [
    "solve", "count", "check", "canon", "rate", "dedupe", "generate", "bench",
];

#[test]
fn completions_and_the_man_page_come_from_the_flags() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = stdout_of(&["completions", shell]);
        for command in COMMANDS {
            assert!(script.contains(command), "{shell}: no {command}");
        }
        assert!(script.contains("keep-solution-column"), "{shell}");
    }
    let bash = stdout_of(&["completions", "bash"]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sudoku-batch.bash");
    std::fs::write(&path, bash).unwrap();
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(&path)
        .status()
        .unwrap();
    assert!(syntax.success(), "bash -n rejects the completion script");
    bin().args(["completions", "tcsh"]).assert().code(2);

    let man = stdout_of(&["man"]);
    assert!(
        man.contains(".TH sudoku-batch 1"),
        "{}",
        &man[..200.min(man.len())]
    );
    for command in COMMANDS {
        assert!(man.contains(command), "man: no {command}");
    }
    // The exit codes, each code of docs/formats.md's table, in the page and in --help.
    let help = stdout_of(&["--help"]);
    let (_, section) = man
        .split_once(".SH \"EXIT STATUS\"")
        .expect("an exit status section");
    let (_, listed) = help
        .split_once("Exit status:")
        .expect("exit codes in --help");
    let formats =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/formats.md")).unwrap();
    let (_, table) = formats.split_once("## Exit codes").unwrap();
    let codes: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("|---"))
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.split('|').nth(1).unwrap().trim())
        .collect();
    assert_eq!(codes, ["0", "1", "2", "128+N"]);
    for code in codes {
        assert!(
            section.contains(&format!(".TP\n{code}\n")),
            "man: no exit code {code}"
        );
        assert!(
            listed.contains(&format!("\n  {code} ")),
            "--help: no exit code {code}"
        );
    }
}

#[test]
fn the_long_version_names_the_commit_target_and_cpu_features() {
    let short = stdout_of(&["-V"]);
    assert_eq!(
        short,
        format!("sudoku-batch {}\n", env!("CARGO_PKG_VERSION"))
    );
    let long = stdout_of(&["--version"]);
    let lines: Vec<&str> = long.lines().collect();
    assert_eq!(lines[0], short.trim_end());
    let commit = lines[1].strip_prefix("commit: ").expect("a commit line");
    let hash = commit.trim_end_matches("-dirty");
    assert!(
        hash == "unknown" || (hash.len() == 12 && hash.bytes().all(|b| b.is_ascii_hexdigit())),
        "{commit}"
    );
    assert_eq!(
        lines[2],
        format!(
            "target: {}-{}",
            std::env::consts::ARCH,
            std::env::consts::OS
        )
    );
    assert!(long.contains("cpu features"), "{long}");
    #[cfg(target_arch = "x86_64")]
    assert_eq!(
        lines[4].contains("avx2"),
        std::is_x86_feature_detected!("avx2"),
        "{long}"
    );
}

#[test]
fn every_error_has_one_style_clap_s_included() {
    for args in [
        &["solve", "--bogus"][..],
        &["solve", "-j", "5000"],
        &["frobnicate"],
        &["generate"],
    ] {
        let out = bin().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(
            stderr.starts_with("sudoku-batch: error: "),
            "{args:?}: {stderr}"
        );
    }
    // Help and version are not errors: stdout, exit 0.
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout)
        .unwrap()
        .contains("Usage: sudoku-batch"));
}

#[test]
fn help_lists_only_the_flags_a_command_uses() {
    let help = |command: &str| stdout_of(&["help", command]);
    for command in ["solve", "check"] {
        assert!(help(command).contains("--solution-column"), "{command}");
    }
    for command in ["count", "canon", "rate", "dedupe"] {
        assert!(!help(command).contains("--solution-column"), "{command}");
    }
    assert!(!help("dedupe").contains("--shard"));
    assert!(help("rate").contains("--shard"));
    assert!(help("solve").contains("--keep-solution-column"));
    assert!(!help("check").contains("--keep-solution-column"));
    // A flag a command does not take is a usage error, not silently ignored.
    bin()
        .args(["canon", "--solution-column", "x", "-"])
        .write_stdin("")
        .assert()
        .code(2);
    bin()
        .args(["dedupe", "--shard", "1/2", "-"])
        .write_stdin("")
        .assert()
        .code(2);
}

#[test]
fn j_0_is_every_core_everywhere() {
    let at = |j: &str| stdout_of(&["generate", "-n", "40", "--seed", "7", "-j", j]);
    let all = at("0");
    assert_eq!(all, at("1"));
    assert_eq!(all.lines().count(), 40);
    for help in ["solve", "generate"] {
        assert!(
            stdout_of(&["help", help]).contains("0: one per core"),
            "{help}"
        );
    }
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let json = stdout_of(&[
        "bench",
        "-j",
        "0,1",
        "--warmup",
        "0",
        "--min-time",
        "0",
        "--json",
        "data/sample.txt",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["threads"], serde_json::json!([cores, 1]));
}

#[test]
fn bench_json_has_the_tool_the_machine_and_hyperfine_s_spread() {
    let json = stdout_of(&[
        "bench",
        "-j",
        "1",
        "--warmup",
        "0",
        "--min-time",
        "0.05",
        "--json",
        "data/sample.txt",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["tool"], "sudoku-batch");
    assert_eq!(report["version"], env!("CARGO_PKG_VERSION"));
    assert!(report["commit"].is_string() && report["cpu"].is_string());
    let date = report["date"].as_str().unwrap();
    assert!(
        date.len() == 20 && date.ends_with('Z') && date.as_bytes()[10] == b'T',
        "{date}"
    );
    assert!(date >= "2024-01-01", "{date}");
    assert!(report["command"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "--json"));
    let run = &report["files"][0]["modes"][0]["runs"][0];
    let spread = &run["rate"];
    let (min, median, max) = (
        spread["min"].as_f64().unwrap(),
        spread["median"].as_f64().unwrap(),
        spread["max"].as_f64().unwrap(),
    );
    assert!(min <= median && median <= max, "{spread}");
    assert_eq!(run["puzzles_per_s"].as_f64().unwrap(), median);
    assert!(spread["stddev"].as_f64().unwrap() >= 0.0);
}

#[test]
fn bench_reads_every_format_a_run_reads() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("set.csv");
    bin()
        .args(["generate", "-n", "20", "--with-solution", "-o"])
        .arg(&csv)
        .assert()
        .code(0);
    let mut with_bad = std::fs::read_to_string(&csv).unwrap();
    with_bad += "x,y\n";
    std::fs::write(&csv, with_bad).unwrap();
    for (file, puzzles) in [
        (csv.clone(), 20),
        (common::shipped("sample.parquet"), 20),
        (common::shipped("classic_spaces.txt"), 1),
    ] {
        let out = bin()
            .args([
                "bench",
                "-j",
                "1",
                "--warmup",
                "0",
                "--min-time",
                "0",
                "--json",
            ])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{file:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["files"][0]["puzzles"], puzzles, "{file:?}");
    }
    let out = bin()
        .args([
            "bench",
            "-j",
            "1",
            "--warmup",
            "0",
            "--min-time",
            "0",
            "--json",
        ])
        .arg(&csv)
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("line 22: skipped: expected 81 cells, found 1"),
        "{stderr}"
    );
}

#[test]
fn a_plot_that_cannot_be_written_fails_before_the_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    for plot in [
        dir.path().join("missing/plot.svg"),
        dir.path().join("plot.svg/"),
        dir.path().to_path_buf(),
    ] {
        let out = bin()
            // A minimum time no benchmark finishes quickly: failing late would hang the test.
            .args(["bench", "--min-time", "100000", "--plot"])
            .arg(&plot)
            .arg("data/sample.txt")
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{plot:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.starts_with("sudoku-batch: error: "), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn generate_writes_puzzles_with_solutions_and_ratings_as_lines_or_csv() {
    let lines = stdout_of(&[
        "generate",
        "-n",
        "30",
        "--seed",
        "3",
        "--with-solution",
        "--rating",
        "-j",
        "3",
    ]);
    assert_eq!(
        lines,
        stdout_of(&[
            "generate",
            "-n",
            "30",
            "--seed",
            "3",
            "--with-solution",
            "--rating",
            "-j",
            "1"
        ])
    );
    let plain = stdout_of(&["generate", "-n", "30", "--seed", "3"]);
    let rows: Vec<Vec<&str>> = lines.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 30);
    let puzzles: String = rows.iter().map(|r| format!("{}\n", r[0])).collect();
    assert_eq!(
        puzzles, plain,
        "the same puzzles as without the extra columns"
    );
    // Each solution is the puzzle's only one, by the tests' own checker.
    let pairs: String = rows
        .iter()
        .map(|r| format!("{},{}\n", r[0], r[1]))
        .collect();
    let checked = bin()
        .args(["check", "--unique", "-"])
        .write_stdin(pairs)
        .output()
        .unwrap();
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    let solutions: String = rows.iter().map(|r| format!("{}\n", r[1])).collect();
    let checked = common::check_output(puzzles.as_bytes(), &solutions, 0);
    assert_eq!(checked.records, 30);
    // The rating is what `rate` gives.
    let out = bin()
        .args(["rate", "-q", "-"])
        .write_stdin(puzzles.clone())
        .output()
        .unwrap();
    let ratings: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(
        rows.iter().map(|r| r[2].to_string()).collect::<Vec<_>>(),
        ratings
    );

    // CSV, by flag or by the output's name.
    let csv = stdout_of(&[
        "generate",
        "-n",
        "5",
        "--seed",
        "3",
        "--with-solution",
        "--output-format",
        "csv",
    ]);
    let mut csv_lines = csv.lines();
    assert_eq!(csv_lines.next(), Some("question,answer"));
    assert_eq!(
        csv_lines.map(|l| format!("{l}\n")).collect::<String>(),
        rows[..5]
            .iter()
            .map(|r| format!("{},{}\n", r[0], r[1]))
            .collect::<String>()
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.csv");
    bin()
        .args(["generate", "-n", "5", "--seed", "3", "--rating", "-o"])
        .arg(&path)
        .assert()
        .code(0);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("question,rating\n"), "{text}");
    // Read back by the batch commands as the dataset it is.
    let solved = bin().args(["solve", "-q"]).arg(&path).output().unwrap();
    assert!(String::from_utf8(solved.stdout)
        .unwrap()
        .starts_with("question,rating,solution,status\n"));
    // A columnar output name is refused rather than filled with lines.
    bin()
        .args(["generate", "-n", "1", "-o"])
        .arg(dir.path().join("x.parquet"))
        .assert()
        .code(2);
}
