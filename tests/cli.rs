//! End-to-end tests of the batch engine through the real binary: order, stdin, bad records, empty
//! input, count, exit codes, output files. Outputs are checked with the tests' own independent
//! checker (`tests/common`).

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

fn sample() -> PathBuf {
    common::shipped("sample.txt")
}

/// The 20 shipped sample puzzles (all with one solution).
fn sample_puzzles() -> Vec<String> {
    common::puzzle_texts(&sample())
}

/// Runs the independent checker on a puzzles file and an output file; panics unless it agrees.
fn independent_check(puzzles: &Path, output: &Path) {
    let input = std::fs::read(puzzles).unwrap();
    let output = std::fs::read_to_string(output).unwrap();
    common::check_output(&input, &output, 50);
}

/// A solved grid with `blanks` cells emptied: an easy puzzle.
fn easy_from(solution: &str, blanks: usize, seed: usize) -> String {
    let mut cells: Vec<u8> = solution.bytes().collect();
    for k in 0..blanks {
        cells[(seed * 7 + k * 29) % 81] = b'.';
    }
    String::from_utf8(cells).unwrap()
}

const UNSOLVABLE: &str =
    "12345678.........9...............................................................";

#[test]
fn order_is_kept_with_8_threads_across_hard_and_easy_runs() {
    let dir = tempfile::tempdir().unwrap();
    let hard = sample_puzzles();
    let solved = bin().arg("solve").arg(sample()).arg("-q").output().unwrap();
    let solutions: Vec<String> = String::from_utf8(solved.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(solutions.len(), hard.len());
    // Runs of hard puzzles (many guesses) among long runs of easy ones, over many blocks.
    let mut input = String::new();
    for run in 0..24 {
        for i in 0..150 {
            input += &hard[(run + i) % hard.len()];
            input += "\n";
        }
        for i in 0..1500 {
            input += &easy_from(&solutions[i % solutions.len()], 12, i);
            input += "\n";
        }
    }
    let puzzles = dir.path().join("mixed.txt");
    std::fs::write(&puzzles, &input).unwrap();
    let out8 = dir.path().join("out8.txt");
    let out1 = dir.path().join("out1.txt");
    bin()
        .args(["solve", "-j", "8", "-q"])
        .arg(&puzzles)
        .arg("-o")
        .arg(&out8)
        .assert()
        .code(0);
    bin()
        .args(["solve", "-j", "1", "-q"])
        .arg(&puzzles)
        .arg("-o")
        .arg(&out1)
        .assert()
        .code(0);
    let text8 = std::fs::read_to_string(&out8).unwrap();
    assert_eq!(text8.lines().count(), 24 * 1650);
    // Every hard puzzle has one solution, so its line is known exactly.
    for (i, line) in text8.lines().enumerate().filter(|(i, _)| i % 1650 < 150) {
        let run = i / 1650;
        assert_eq!(
            line,
            solutions[(run + i % 1650) % hard.len()],
            "line {}",
            i + 1
        );
    }
    independent_check(&puzzles, &out8);
    assert_eq!(text8, std::fs::read_to_string(&out1).unwrap());
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn public_hard_set_in_order_with_8_threads() {
    let data = common::data_dir();
    let dir = tempfile::tempdir().unwrap();
    let puzzles = data.join("puzzles6_forum_hardest_1106");
    let out = dir.path().join("out.txt");
    bin()
        .args(["solve", "-j", "8", "-q"])
        .arg(&puzzles)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(0);
    independent_check(&puzzles, &out);
}

#[test]
fn stdin_to_stdout_matches_the_file_path() {
    let from_file = bin().arg("solve").arg(sample()).output().unwrap();
    assert_eq!(from_file.status.code(), Some(0));
    let input = std::fs::read(sample()).unwrap();
    for args in [&["solve", "-"][..], &["solve"][..]] {
        let piped = bin()
            .args(args)
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(piped.status.code(), Some(0));
        assert_eq!(piped.stdout, from_file.stdout);
    }
    let stderr = String::from_utf8(from_file.stderr).unwrap();
    assert!(
        stderr.contains("records 20, solved 20, unsolvable 0, invalid 0"),
        "{stderr}"
    );
}

#[test]
fn bad_records_get_a_status_line_and_a_message_naming_their_line() {
    let good = &sample_puzzles()[0];
    let mut clash = good.clone().into_bytes();
    let first_blank = clash.iter().position(|&b| b == b'.').unwrap();
    // Copy a given of the same row into a blank: two equal digits in one row.
    let row = first_blank / 9;
    let given = (row * 9..row * 9 + 9).find(|&i| clash[i] != b'.').unwrap();
    clash[first_blank] = clash[given];
    let clash = String::from_utf8(clash).unwrap();
    let mut nul = good.clone().into_bytes();
    nul[40] = 0;
    let mut input = Vec::new();
    input.extend_from_slice(b"# comment\n\n"); // lines 1-2: not records
    input.extend_from_slice(format!("{good}\r\n").as_bytes()); // 3: CRLF
    input.extend_from_slice(b"garbage here\n"); // 4
    input.extend_from_slice(&nul); // 5: NUL byte
    input.push(b'\n');
    input.extend_from_slice(&vec![b'7'; 100_000]); // 6: a 100,000-character line
    input.push(b'\n');
    input.extend_from_slice(format!("{clash}\n").as_bytes()); // 7
    input.extend_from_slice(format!("{UNSOLVABLE}\n").as_bytes()); // 8
    input.extend_from_slice(b"   \t\n"); // 9: blank
    input.extend_from_slice(format!("{good} 42;x").as_bytes()); // 10: no final newline
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.txt");
    std::fs::write(&path, &input).unwrap();

    for source in ["file", "stdin"] {
        let mut cmd = bin();
        cmd.arg("solve");
        if source == "file" {
            cmd.arg(&path);
        } else {
            cmd.write_stdin(input.clone());
        }
        let run = cmd.output().unwrap();
        assert_eq!(run.status.code(), Some(1), "{source}");
        let stdout = String::from_utf8(run.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 7, "{source}: {stdout}");
        assert!(lines[0].len() == 81 && lines[0].bytes().all(|b| b.is_ascii_digit()));
        assert_eq!(lines[1], "invalid: expected 81 cells, found 7");
        assert_eq!(
            lines[2],
            "invalid: character 0x00 at position 41 is not a digit 1-9 or a blank (0 or .)"
        );
        assert_eq!(lines[3], "invalid: expected 81 cells, found 100000");
        assert!(
            lines[4].starts_with("invalid: givens clash: digit "),
            "{}",
            lines[4]
        );
        assert_eq!(lines[5], "unsolvable");
        assert_eq!(lines[6], lines[0]);
        let stderr = String::from_utf8(run.stderr).unwrap();
        let name = if source == "file" {
            path.display().to_string()
        } else {
            "<stdin>".to_string()
        };
        for line in [4, 5, 6, 7, 8] {
            assert!(
                stderr.contains(&format!("{name}:{line}: ")),
                "{source}: line {line} in {stderr}"
            );
        }
        assert!(
            !stderr.contains(&format!("{name}:3:")) && !stderr.contains(&format!("{name}:10:"))
        );
        assert!(
            stderr.contains("records 7, solved 2, unsolvable 1, invalid 4"),
            "{stderr}"
        );
        let out = dir.path().join(format!("{source}.out"));
        std::fs::write(&out, &stdout).unwrap();
        independent_check(&path, &out);
    }
}

#[test]
fn messages_are_capped_then_counted() {
    let input = "x\n".repeat(50);
    let run = bin()
        .args(["solve", "--max-messages", "5"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        run.stdout,
        "invalid: expected 81 cells, found 1\n"
            .repeat(50)
            .as_bytes()
    );
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert_eq!(stderr.matches(": invalid:").count(), 5, "{stderr}");
    assert!(stderr.contains("<stdin>: format: line (of the first 50 record lines, 0 start"));
    assert!(stderr.contains("<stdin>:5: ") && !stderr.contains("<stdin>:6: "));
    assert!(stderr.contains("45 more bad records not shown"), "{stderr}");
}

#[test]
fn empty_input_gives_empty_output_and_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let out = dir.path().join("out.txt");
    bin()
        .arg("solve")
        .arg(&empty)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(0);
    assert_eq!(std::fs::read(&out).unwrap(), b"");
    bin()
        .arg("solve")
        .write_stdin("")
        .assert()
        .code(0)
        .stdout("");
    bin()
        .arg("count")
        .write_stdin("# only a comment\n\n")
        .assert()
        .code(0)
        .stdout("");
}

#[test]
fn count_reports_solutions_up_to_the_limit() {
    let unique = &sample_puzzles()[1];
    let open = ".".repeat(81);
    let input = format!("{unique}\n{open}\n{UNSOLVABLE}\n");
    bin()
        .arg("count")
        .write_stdin(input.clone())
        .assert()
        .code(1)
        .stdout("1\n2+\n0\n");
    bin()
        .args(["count", "--limit", "5"])
        .write_stdin(format!("{unique}\n{open}\n"))
        .assert()
        .code(0)
        .stdout("1\n5+\n");
    bin()
        .args(["count", "--limit", "1"])
        .write_stdin(format!("{unique}\n"))
        .assert()
        .code(0)
        .stdout("1+\n");
    bin()
        .args(["count", "--limit", "0"])
        .write_stdin("")
        .assert()
        .code(2);
}

#[test]
fn stats_json_is_machine_readable() {
    let run = bin()
        .args(["solve", "-q", "--stats", "json"])
        .arg(sample())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let stderr = String::from_utf8(run.stderr).unwrap();
    let v: serde_json::Value = serde_json::from_str(stderr.trim()).expect("one JSON object");
    assert_eq!(v["records"], 20);
    assert_eq!(v["solved"], 20);
    assert_eq!(v["invalid"], 0);
    assert!(v["puzzles_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn usage_and_io_errors_exit_2() {
    bin().args(["solve", "--no-such-flag"]).assert().code(2);
    bin().args(["solve", "-j", "many"]).assert().code(2);
    let run = bin().args(["solve", "/no/such/file.txt"]).output().unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(
        stderr.contains("/no/such/file.txt: cannot open"),
        "{stderr}"
    );
    // A directory is not a readable input.
    bin()
        .arg("solve")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .assert()
        .code(2);
}

#[test]
fn output_into_an_unwritable_place_leaves_no_file_and_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("out.txt");
    let run = bin()
        .arg("solve")
        .arg(sample())
        .arg("-o")
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8(run.stderr).unwrap();
    // The message names the output asked for and the system's reason, and no temporary name.
    assert!(stderr.contains(&format!(
        "{}: cannot create the output file: No such file or directory",
        missing.display()
    )));
    assert!(!stderr.contains(".sudoku-batch."), "{stderr}");
    assert!(!missing.exists());
    // A read-only directory (root may still write there, so only when it really is unwritable).
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(ro.join("probe"), "").is_err() {
            bin()
                .arg("solve")
                .arg(sample())
                .arg("-o")
                .arg(ro.join("out.txt"))
                .assert()
                .code(2);
        }
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    // A file that is there, in a directory where no file can be made (Linux's /proc): the message
    // says that the new file is what cannot be made, not that the file is missing.
    let proc_file = Path::new("/proc/version");
    if proc_file.is_file() {
        let run = bin()
            .arg("solve")
            .arg(sample())
            .arg("-o")
            .arg(proc_file)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2));
        let stderr = String::from_utf8(run.stderr).unwrap();
        // (A user other than root is refused earlier, for want of write permission.)
        let explained = "/proc/version: cannot create the output file: the new file that \
                         replaces it cannot be made in /proc: ";
        assert!(
            !stderr.contains("No such file") || stderr.contains(explained),
            "{stderr}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&ro)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().file_name() != "probe")
            .count(),
        0
    );
}

#[test]
fn a_failed_run_leaves_an_existing_output_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    std::fs::write(&out, "previous\n").unwrap();
    bin()
        .args(["solve", "--format", "csv", "--column", "nope"])
        .arg(sample())
        .arg("-o")
        .arg(&out)
        .assert()
        .code(2);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "previous\n");
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["out.txt"]);
    // And a successful run replaces it whole.
    bin()
        .arg("solve")
        .arg(sample())
        .arg("-o")
        .arg(&out)
        .assert()
        .code(0);
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 20);
}

#[test]
fn a_closed_output_pipe_ends_the_run_quietly() {
    let input = std::fs::read_to_string(sample()).unwrap().repeat(2000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.txt");
    std::fs::write(&path, input).unwrap();
    let (code, stderr) = common::run_into_a_closed_pipe(
        std::process::Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
            .arg("solve")
            .arg(&path),
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("error"), "{stderr}");
}

#[test]
fn help_lists_the_flags() {
    bin()
        .args(["solve", "--help"])
        .assert()
        .code(0)
        .stdout(predicates::str::contains("--threads"));
}

#[test]
fn no_input_with_a_terminal_on_stdin_prints_usage() {
    // `script` (util-linux, essential on Debian) runs the binary on a pseudo-terminal, so its
    // stdin is a terminal.
    let run = std::process::Command::new("timeout")
        .args(["20", "script", "-qec"])
        .arg(format!("{} solve", env!("CARGO_BIN_EXE_sudoku-batch")))
        .arg("/dev/null")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2), "usage exits 2, not a wait");
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("Usage: sudoku-batch solve"), "{text}");
}

#[test]
fn output_streams_while_the_input_is_still_open() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command as Std, Stdio};
    let solutions = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .output()
        .unwrap()
        .stdout;
    let first_solution = String::from_utf8(solutions)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let puzzles = sample_puzzles();
    let mut child = Std::new(env!("CARGO_BIN_EXE_sudoku-batch"))
        .args(["solve", "-q", "-j", "2", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // More than one block (at most 1 MiB) yet less than the blocks in flight can hold, so the test
    // cannot deadlock; the input stays open while the first answers are read.
    let chunk: String = (0..20_000)
        .map(|i| format!("{}\n", puzzles[i % puzzles.len()]))
        .collect();
    stdin.write_all(chunk.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    out.read_line(&mut line).unwrap();
    assert_eq!(line.trim_end(), first_solution);
    assert!(
        child.try_wait().unwrap().is_none(),
        "still running: the input is open"
    );
    drop(stdin);
    let rest = out.lines().count();
    assert_eq!(rest, 20_000 - 1);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_read_without_mapping() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let input = std::fs::read(sample()).unwrap();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, input).unwrap())
    };
    let run = bin().args(["solve", "-q"]).arg(&fifo).output().unwrap();
    writer.join().unwrap();
    assert_eq!(run.status.code(), Some(0));
    let expected = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .output()
        .unwrap()
        .stdout;
    assert_eq!(run.stdout, expected);
}

#[test]
fn an_output_that_is_a_named_pipe_is_written_through_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    // Renaming a temporary file over a special file would replace it (as root, even /dev/null).
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("answers.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    bin()
        .args(["solve", "-q"])
        .arg(sample())
        .arg("-o")
        .arg(&fifo)
        .assert()
        .success();
    // Checked before joining: had the pipe been replaced, the reader would wait forever.
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
    let text = reader.join().unwrap();
    assert_eq!(text.lines().count(), sample_puzzles().len());
    assert!(text.lines().all(|l| l.len() == 81));
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

#[test]
fn cr_only_line_ends_lose_no_record() {
    // `tr '\n' '\r'` of a puzzle file used to come back as one record.
    let puzzles = sample_puzzles();
    let lf = puzzles.join("\n") + "\n";
    let cr = lf.replace('\n', "\r");
    let dir = tempfile::tempdir().unwrap();
    let (lf_path, cr_path) = (dir.path().join("lf.txt"), dir.path().join("cr.txt"));
    std::fs::write(&lf_path, &lf).unwrap();
    std::fs::write(&cr_path, &cr).unwrap();
    let from_lf = bin().args(["solve", "-q"]).arg(&lf_path).output().unwrap();
    let from_cr = bin().args(["solve", "-q"]).arg(&cr_path).output().unwrap();
    assert_eq!(from_cr.status.code(), Some(0));
    assert_eq!(from_cr.stdout, from_lf.stdout);
    let piped = bin()
        .args(["solve", "-q"])
        .write_stdin(cr.clone())
        .output()
        .unwrap();
    assert_eq!(piped.stdout, from_lf.stdout);
    let out_path = dir.path().join("out.txt");
    std::fs::write(&out_path, &from_cr.stdout).unwrap();
    independent_check(&cr_path, &out_path);
    // One line holding two puzzles separated by a CR is two records.
    let two = format!("{}\r{}\n", puzzles[0], puzzles[1]);
    let out = bin()
        .args(["solve", "-q"])
        .write_stdin(two)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap().lines().count(), 2);
}

#[test]
fn thread_counts_beyond_1024_are_usage_errors() {
    for j in ["1025", "10000", "99999999999"] {
        for cmd in [&["solve"][..], &["count"], &["generate", "-n", "1"]] {
            let out = bin()
                .args(cmd)
                .args(["-j", j])
                .arg(sample())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{cmd:?} -j {j}");
        }
    }
    bin()
        .args(["bench", "--threads", "1,2000"])
        .arg(sample())
        .assert()
        .code(2);
}

/// The binary run by `sh` with `args` and the shell redirection `redirect` (such as `>&-`, which
/// no `Command` setting can express: it closes the descriptor).
#[cfg(target_os = "linux")]
fn run_in_sh(args: &str, redirect: &str) -> std::process::Output {
    std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" {args} {redirect}"))
        .arg(env!("CARGO_BIN_EXE_sudoku-batch"))
        .output()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn a_closed_stdout_is_an_error_not_a_silent_success() {
    // `>&-`: no descriptor 1 at all (the runtime would put /dev/null there).
    let run = |args: &str| run_in_sh(args, ">&-");
    let sample = sample().display().to_string();
    for args in [
        format!("solve {sample}"),
        "generate -n 3".to_string(),
        // Standard output by name is the same closed descriptor.
        format!("solve {sample} -o /dev/stdout"),
        "generate -n 3 -o /dev/stdout".to_string(),
        "--help".to_string(),
        "man".to_string(),
    ] {
        let done = run(&args);
        assert_eq!(done.status.code(), Some(2), "{args}");
        assert!(String::from_utf8_lossy(&done.stderr).contains("standard output is closed"));
    }
    // With a file to write, stdout is not needed.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let done = run(&format!("solve -q {sample} -o {}", out.display()));
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&out).unwrap().lines().count(), 20);
}

#[cfg(target_os = "linux")]
#[test]
fn a_closed_stdin_is_an_error_not_an_empty_input() {
    // `<&-`: no descriptor 0 (the runtime would put /dev/null there, an empty input).
    let run = |args: &str| run_in_sh(args, "<&-");
    let sample = sample().display().to_string();
    for args in [
        "solve".to_string(),
        "count -".to_string(),
        "solve /dev/stdin".to_string(),
        format!("dedupe {sample} --against -"),
    ] {
        let done = run(&args);
        assert_eq!(done.status.code(), Some(2), "{args}");
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert!(
            stderr.contains("standard input is closed"),
            "{args}: {stderr}"
        );
        assert!(done.stdout.is_empty(), "{args}");
    }
    // An input file does not need stdin.
    let done = run(&format!("solve -q {sample}"));
    assert_eq!(done.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&done.stdout).lines().count(), 20);
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_size_limit_is_a_write_error_not_a_silent_death() {
    // Past `ulimit -f` a write fails with EFBIG (SIGXFSZ is ignored): a message and exit 2, and
    // an output file is not left behind.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    let input = common::shipped("generated_easy_2000.txt");
    let done = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 64 && exec \"$0\" solve -q \"$1\" -o \"$2\"")
        .arg(env!("CARGO_BIN_EXE_sudoku-batch"))
        .arg(&input)
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn every_subcommand_exits_0_quietly_on_a_closed_output_pipe() {
    use std::process::Command as Std;
    let runs: [&[&str]; 3] = [
        &["generate", "-n", "2000000", "--seed", "3"],
        &["solve", "-j", "2"],
        &["count", "-j", "2"],
    ];
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    let puzzles = sample_puzzles();
    std::fs::write(
        &big,
        (0..200_000)
            .map(|i| puzzles[i % 20].clone() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    for args in runs {
        let mut cmd = Std::new(env!("CARGO_BIN_EXE_sudoku-batch"));
        cmd.args(args);
        if args[0] != "generate" {
            cmd.arg(&big);
        }
        let (code, stderr) = common::run_into_a_closed_pipe(&mut cmd);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_and_stderr_give_exit_2_never_a_panic() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let runs: [&[&str]; 7] = [
        &["solve"],
        &["generate", "-n", "100"],
        &["bench", "--min-time", "0.01", "--warmup", "0"],
        &["solve", "/nonexistent/input.txt"],
        &["--help"],
        &["--version"],
        &["man"],
    ];
    for args in runs {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sudoku-batch"));
        cmd.args(args);
        if args == ["solve"] || args[0] == "bench" {
            cmd.arg(sample());
        }
        let status = cmd.stdout(full()).stderr(full()).status().unwrap();
        assert_eq!(status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn an_output_directory_is_refused_before_any_work() {
    use std::process::{Command as Std, Stdio};
    let dir = tempfile::tempdir().unwrap();
    // stdin stays open: a run that read its input before checking the output would hang here.
    let mut child = Std::new(env!("CARGO_BIN_EXE_sudoku-batch"))
        .args(["solve", "-", "-o"])
        .arg(dir.path())
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(
            started.elapsed().as_secs() < 20,
            "waited for input before checking the output"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the output is a directory"));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn a_wrong_solution_is_not_called_a_clash_of_givens() {
    let puzzles = sample_puzzles();
    let solved = bin()
        .args(["solve", "-q"])
        .arg(sample())
        .output()
        .unwrap()
        .stdout;
    let solution = String::from_utf8(solved)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let mut wrong = solution.into_bytes();
    wrong.swap(0, 1);
    let line = format!("{} {}\n", puzzles[0], String::from_utf8(wrong).unwrap());
    let out = bin()
        .args(["check", "-q"])
        .write_stdin(line)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("wrong: solution is not valid: digit "),
        "{text}"
    );
    assert!(!text.contains("givens"), "{text}");
}

#[test]
fn a_record_from_a_paused_pipe_is_answered_at_once() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command as Std, Stdio};
    // A program that writes one puzzle and waits for its answer, three times over.
    let puzzle = &sample_puzzles()[0];
    for format in ["line", "csv"] {
        let mut child = Std::new(env!("CARGO_BIN_EXE_sudoku-batch"))
            .args(["solve", "-q", "--format", format, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let _ = tx.send(line.unwrap());
            }
        });
        if format == "csv" {
            stdin.write_all(b"id,puzzle\n").unwrap();
            stdin.flush().unwrap();
            let header = rx.recv_timeout(std::time::Duration::from_secs(10));
            assert_eq!(header.as_deref(), Ok("id,puzzle,solution,status"));
        }
        for i in 0..3 {
            let record = if format == "csv" {
                format!("{i},{puzzle}\n")
            } else {
                format!("{puzzle}\n")
            };
            stdin.write_all(record.as_bytes()).unwrap();
            stdin.flush().unwrap();
            let answer = rx
                .recv_timeout(std::time::Duration::from_secs(10))
                .unwrap_or_else(|_| panic!("{format}: no answer while the input stays open"));
            assert!(
                answer.contains(&"5".repeat(0)) && answer.len() >= 81,
                "{answer}"
            );
        }
        drop(stdin);
        assert_eq!(child.wait().unwrap().code(), Some(0));
    }
}

#[test]
fn lines_into_a_file_named_csv_are_written_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("answers.csv");
    let done = bin()
        .arg("solve")
        .arg(sample())
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(done.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("answers.csv is written in the input's format, line, not CSV"),
        "{stderr}"
    );
    let input = std::fs::read(sample()).unwrap();
    let checked = common::check_output(&input, &std::fs::read_to_string(&out).unwrap(), 0);
    assert_eq!(checked.solved, 20);
    // Grids stay grids, and the note says so.
    let grids = common::shipped("classic_spaces.txt");
    let done = bin()
        .arg("solve")
        .arg(&grids)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert!(
        stderr.contains("answers.csv is written in the input's format, grid, not CSV"),
        "{stderr}"
    );
    let grid_rows = std::fs::read_to_string(&out).unwrap();
    assert_eq!(grid_rows.lines().next().unwrap().split(' ').count(), 9);
    // A CSV input is answered as CSV, with no note.
    let csv = dir.path().join("in.csv");
    std::fs::write(&csv, format!("puzzle\n{}\n", sample_puzzles()[0])).unwrap();
    let done = bin()
        .arg("solve")
        .arg(&csv)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&done.stderr).contains("not CSV"));
    assert!(std::fs::read_to_string(&out)
        .unwrap()
        .starts_with("puzzle,solution,status\n"));
}
