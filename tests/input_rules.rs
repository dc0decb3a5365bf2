//! How an input is read, through the real binary: the format is a function of the input's bytes
//! alone (never of how fast a pipe delivers them), a first record that is a whole puzzle is
//! answered at once, one damaged line never changes how the rest is read, CSV rows are all data
//! after the header, and flags or outputs that cannot work are refused before any record is read.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use assert_cmd::Command;

const BIN: &str = env!("CARGO_BIN_EXE_sudoku-batch");

fn bin() -> Command {
    Command::new(BIN)
}

/// The first `n` shipped puzzles (each with one solution).
fn puzzles(n: usize) -> Vec<String> {
    let mut p = common::puzzle_texts(&common::shipped("generated_unique25_2000.txt"));
    p.truncate(n);
    p
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Starts the binary on stdin with `args`, stdout and stderr piped.
fn spawn(args: &[&str]) -> Child {
    Process::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Runs `args` with `input` written to stdin in `pieces` (byte offsets where to pause for
/// `pause`), returning stdout, stderr and the exit code.
fn run_paced(
    args: &[&str],
    input: &[u8],
    cuts: &[usize],
    pause: Duration,
) -> (Vec<u8>, String, i32) {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let cuts = cuts.to_vec();
    let writer = std::thread::spawn(move || {
        let mut from = 0;
        for &cut in cuts.iter().chain([input.len()].iter()) {
            if stdin.write_all(&input[from..cut]).is_err() {
                return;
            }
            let _ = stdin.flush();
            from = cut;
            std::thread::sleep(pause);
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.stdout,
        text(&out.stderr),
        out.status.code().unwrap_or(-1),
    )
}

/// The same bytes, all at once and with pauses at `cuts`, give the same output.
fn same_with_pauses(args: &[&str], input: &[u8], cuts: &[usize]) -> (Vec<u8>, String, i32) {
    let at_once = run_paced(args, input, &[], Duration::ZERO);
    let paced = run_paced(args, input, cuts, Duration::from_millis(400));
    assert_eq!(
        text(&at_once.0),
        text(&paced.0),
        "paused at {cuts:?}: {}",
        paced.1
    );
    assert_eq!(at_once.2, paced.2);
    at_once
}

#[test]
fn one_damaged_first_line_does_not_turn_a_line_file_into_csv() {
    let p = puzzles(70);
    let rest: String = p.iter().map(|q| format!("{q},1.5\n")).collect();
    // A trailing field that names a puzzle column does not make it a header either, with any
    // separator.
    for first in [
        format!("x{},2.5", &p[0][1..]),
        format!("{},2.5", &p[0][..60]),
        format!("{},sudoku", &p[0][..80]),
        format!("{};quiz", &p[0][..80]),
        format!("{}\tpuzzle", &p[0][..80]),
    ] {
        let input = format!("{first}\n{rest}");
        let out = bin()
            .args(["solve", "-"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
        assert_eq!(
            lines.len(),
            71,
            "one answer per record, the damaged one included"
        );
        assert!(lines[0].starts_with("invalid: "), "{}", lines[0]);
        assert!(lines[1..].iter().all(|l| l.len() == 81), "{lines:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("<stdin>:1: invalid: "), "{stderr}");
        assert!(stderr.contains("records 71, solved 70"), "{stderr}");
        assert!(!stderr.contains("format: csv"), "{stderr}");
    }
}

#[test]
fn the_format_is_a_function_of_the_bytes_not_of_their_timing() {
    let p = puzzles(300);
    // Comments, then a CSV: detection must wait for the sample, not judge the comments.
    let comments: String = (1..=100).map(|i| format!("# comment {i}\n")).collect();
    let rows: String = p
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{i},{q}\n"))
        .collect();
    let csv = format!("{comments}id,puzzle\n{rows}");
    let (out, stderr, code) = same_with_pauses(&["solve", "-"], csv.as_bytes(), &[comments.len()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(text(&out).starts_with("id,puzzle,solution,status\n"));
    assert_eq!(
        text(&out)
            .lines()
            .filter(|l| l.ends_with(",solved"))
            .count(),
        300
    );

    // A line file whose first line is damaged: judged on the sample, however it arrives.
    let lines: String = p.iter().map(|q| format!("{q}\n")).collect();
    let damaged = format!("x{}\n{lines}", &p[0][1..]);
    let (out, _, code) = same_with_pauses(&["count", "-"], damaged.as_bytes(), &[82, 82 * 3]);
    assert_eq!(code, 1);
    assert_eq!(text(&out).lines().count(), 301);

    // Grids, paused in the middle of the first one.
    let grid: String = (0..9)
        .map(|r| format!("{}\n", &p[0][9 * r..9 * r + 9]))
        .collect();
    let grids = format!("{grid}\n{grid}\n{grid}");
    let (out, _, code) = same_with_pauses(&["solve", "-"], grids.as_bytes(), &[25]);
    assert_eq!(code, 0);
    assert_eq!(text(&out).lines().filter(|l| l.len() == 9).count(), 27);
}

/// A run reading a pipe the test keeps open: each answer is awaited before more is written.
struct Interactive {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: mpsc::Receiver<String>,
}

impl Interactive {
    fn spawn(args: &[&str]) -> Interactive {
        let mut child = spawn(args);
        let stdin = child.stdin.take();
        // Stdout's lines are read on a thread, so that one can be waited for with a deadline.
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        Interactive {
            child,
            stdin,
            answers,
        }
    }

    /// Writes `bytes` and flushes them; the pipe stays open.
    fn send(&mut self, bytes: impl AsRef<[u8]>) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes.as_ref()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line of the output; `case` names the case when none comes.
    fn answer(&self, case: &str) -> String {
        // A deadline for a hung run, not a speed figure.
        let wait = Duration::from_secs(20);
        self.answers
            .recv_timeout(wait)
            .unwrap_or_else(|_| panic!("{case}: no answer while the input stays open"))
    }

    /// Closes the input; the run's exit code.
    fn close(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().unwrap().code()
    }
}

#[test]
fn a_first_record_that_is_a_whole_puzzle_is_answered_while_the_pipe_stays_open() {
    let p = puzzles(2);
    // Each line end: a lone CR is answered at once too, though an LF might still follow it.
    for end in ["\n", "\r\n", "\r"] {
        for args in [&["solve", "-"][..], &["solve", "--format", "line", "-"]] {
            let case = format!("{args:?}, lines ending {end:?}");
            let mut run = Interactive::spawn(args);
            for q in &p {
                run.send(format!("{q}{end}"));
                let answer = run.answer(&case);
                assert_eq!(answer.len(), 81, "{case}: {answer}");
            }
            assert_eq!(run.close(), Some(0), "{case}");
        }
        // A named CSV whose header names the puzzle column.
        let case = format!("CSV, lines ending {end:?}");
        let mut run = Interactive::spawn(&["solve", "--format", "csv", "-"]);
        run.send(format!("id,puzzle{end}"));
        for (i, q) in p.iter().enumerate() {
            run.send(format!("{i},{q}{end}"));
            if i == 0 {
                assert_eq!(run.answer(&case), "id,puzzle,solution,status");
            }
            let row = run.answer(&case);
            assert!(row.ends_with(",solved"), "{case}: {row}");
        }
        assert_eq!(run.close(), Some(0), "{case}");
        // A grid: nine rows and the blank line that ends it.
        let case = format!("a grid, lines ending {end:?}");
        let mut run = Interactive::spawn(&["solve", "-"]);
        for r in 0..9 {
            run.send(format!("{}{end}", &p[0][9 * r..9 * r + 9]));
        }
        run.send(end);
        for _ in 0..9 {
            let row = run.answer(&case);
            assert_eq!(row.len(), 9, "{case}: {row}");
        }
        assert_eq!(run.close(), Some(0), "{case}");
    }
}

#[test]
fn a_pause_after_exactly_a_read_piece_is_a_pause() {
    // 64 KiB (a read piece, and a pipe's size) of comments and a last puzzle line, then the
    // writer waits: the read that takes it all comes back full, and is still a pause.
    let p = puzzles(1);
    for end in ["\n", "\r"] {
        let last = format!("{}{end}", p[0]);
        let mut input = String::new();
        while input.len() + last.len() < 64 << 10 {
            let room = (64 << 10) - last.len() - input.len();
            let n = room.min(1000);
            input += &if n >= 2 {
                format!("#{}\n", "x".repeat(n - 2))
            } else {
                "\n".into()
            };
        }
        input += &last;
        assert_eq!(input.len(), 64 << 10);
        let case = format!("ending {end:?}");
        let mut run = Interactive::spawn(&["solve", "--format", "line", "-"]);
        run.send(&input);
        let answer = run.answer(&case);
        assert_eq!(answer.len(), 81, "{case}: {answer}");
        assert_eq!(run.close(), Some(0), "{case}");
    }
}

#[test]
fn a_pause_between_the_cr_and_the_lf_of_a_line_end_changes_nothing() {
    // At a pause a CR at the end is taken as a line end and answered; an LF that then comes is
    // the rest of that line end, not a line of its own: answers and line numbers stay the same.
    let p = puzzles(3);
    let grid = |q: &str| -> String {
        (0..9)
            .map(|r| format!("{}\r\n", &q[9 * r..9 * r + 9]))
            .collect()
    };
    let inputs = [
        (
            vec!["solve", "-"],
            format!("{}\r\nbad\r\n{}\r\n", p[0], p[1]),
            "<stdin>:2: ",
        ),
        (
            vec!["solve", "--format", "csv", "-"],
            format!("id,puzzle\r\n1,{}\r\n2,bad\r\n3,{}\r\n", p[0], p[1]),
            "<stdin>:3: ",
        ),
        (
            vec!["solve", "-"],
            format!(
                "{}\r\n{}\r\n{}\r\n",
                grid(&p[0]),
                &grid(&p[1])[2..],
                grid(&p[2])
            ),
            "<stdin>:11: ",
        ),
        // Titled grids, the title a puzzle column's name: still grids.
        (
            vec!["solve", "-"],
            format!(
                "Sudoku\r\n{}\r\nSudoku\r\n{}\r\n",
                grid(&p[0]),
                &grid(&p[1])[2..]
            ),
            "<stdin>:13: ",
        ),
    ];
    for (args, input, message) in inputs {
        // A pause after every CR, its LF still to come.
        let cuts: Vec<usize> = input.match_indices('\r').map(|(i, _)| i + 1).collect();
        let at_once = run_paced(&args, input.as_bytes(), &[], Duration::ZERO);
        let paced = run_paced(&args, input.as_bytes(), &cuts, Duration::from_millis(150));
        assert_eq!(text(&at_once.0), text(&paced.0), "{args:?}: {}", paced.1);
        // The messages, not the summary (which gives the time).
        let messages = |stderr: &str| {
            stderr
                .lines()
                .filter(|l| l.starts_with("<stdin>:"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(messages(&at_once.1), messages(&paced.1), "{args:?}");
        assert_eq!((at_once.2, paced.2), (1, 1), "{args:?}: {}", paced.1);
        assert!(paced.1.contains(message), "{args:?}: {}", paced.1);
    }
}

#[test]
fn comments_longer_than_the_sample_are_skipped_and_counted_in_line_numbers() {
    let p = puzzles(3);
    let comments: String = (1..=2000)
        .map(|i| format!("# a comment line, number {i:>5}, long enough to matter\n"))
        .collect();
    assert!(comments.len() > 64 << 10);
    let csv = format!("{comments}id,puzzle\n1,{}\n2,bad\n3,{}\n", p[0], p[2]);
    let out = bin()
        .args(["solve", "-"])
        .write_stdin(csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with("id,puzzle,solution,status\n"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().filter(|l| l.ends_with(",solved")).count(), 2);
    let stderr = text(&out.stderr);
    assert!(stderr.contains("<stdin>:2003: invalid: "), "{stderr}");
    // Grids after as many comments.
    let grid: String = (0..9)
        .map(|r| format!("{}\n", &p[0][9 * r..9 * r + 9]))
        .collect();
    let out = bin()
        .args(["solve", "-"])
        .write_stdin(format!("{comments}{grid}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 9);
}

#[test]
fn csv_rows_that_start_with_a_hash_are_records() {
    let p = puzzles(2);
    let csv = format!(
        "# made by hand\nid,puzzle\n#1,{}\n2,{}\n#3,bad\n",
        p[0], p[1]
    );
    let out = bin()
        .args(["solve", "-"])
        .write_stdin(csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows.len(), 4, "{stdout}");
    assert!(
        rows[1].starts_with(&format!("#1,{},", p[0])),
        "written as it came: {}",
        rows[1]
    );
    assert!(rows[3].starts_with("#3,bad,,\"invalid: "), "{}", rows[3]);
    assert!(text(&out.stderr).contains("<stdin>:5: invalid: "));
}

#[test]
fn a_quoted_empty_csv_field_or_a_lone_quote_is_a_record_not_a_blank_line() {
    // pandas writes a missing value as `""` when it quotes every field: such a row is a record
    // with an empty puzzle, answered in its place; a row of spaces alone is a blank line.
    let p = puzzles(2);
    for (header, tail) in [("puzzle\n", ""), ("quizzes,solutions\n", ",")] {
        let csv = format!(
            "{header}{}{tail}\n\"\"\n   \n\"   \"\n\"\n{}{tail}\n",
            p[0], p[1]
        );
        let out = bin()
            .args(["solve", "-"])
            .write_stdin(csv.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{csv}");
        let stdout = text(&out.stdout);
        let rows: Vec<&str> = stdout.lines().collect();
        assert_eq!(rows.len(), 6, "a header and five records: {stdout}");
        assert!(
            rows[1].ends_with(",solved") && rows[5].ends_with(",solved"),
            "{stdout}"
        );
        for row in &rows[2..4] {
            assert!(
                row.contains("invalid: expected 81 cells, found 0"),
                "{stdout}"
            );
        }
        assert!(rows[4].contains("invalid: unterminated quote"), "{stdout}");
        let stderr = text(&out.stderr);
        for line in [3, 5, 6] {
            assert!(
                stderr.contains(&format!("<stdin>:{line}: invalid: ")),
                "{stderr}"
            );
        }
        assert!(
            !stderr.contains("<stdin>:4:"),
            "the line of spaces is blank: {stderr}"
        );
    }
}

/// Waits for `child` to end by itself (it is given no input and its stdin stays open).
fn ends_without_input(mut child: Child) -> (i32, String) {
    for _ in 0..200 {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut stderr)
                .unwrap();
            return (status.code().unwrap_or(-1), stderr);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    panic!("still waiting for input: the output was not checked first");
}

#[test]
fn an_output_that_names_a_directory_is_refused_before_any_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    for output in [
        dir.path().join("newdir/"),
        Path::new(&format!("{}/", file.display())).into(),
    ] {
        let child = spawn(&["rate", "-o", output.to_str().unwrap(), "-"]);
        let (code, stderr) = ends_without_input(child);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.starts_with("sudoku-batch: error: "), "{stderr}");
        assert!(stderr.contains("ends with `/`"), "{stderr}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "nothing left beside it"
    );
}

#[test]
fn an_output_name_that_cannot_be_looked_up_is_refused_before_any_input_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "x").unwrap();
    // A name longer than a file name may be (which used to fail only when the finished output
    // was moved into place), and a path through a file as if a directory.
    for (output, why) in [
        (dir.path().join("y".repeat(256)), "too long"),
        (file.join("out.txt"), "Not a directory"),
    ] {
        let child = spawn(&["rate", "-o", output.to_str().unwrap(), "-"]);
        let (code, stderr) = ends_without_input(child);
        assert_eq!(code, 2, "{stderr}");
        assert!(stderr.contains("cannot create the output file"), "{stderr}");
        assert!(stderr.contains(why), "{stderr}");
    }
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn check_on_puzzles_without_solutions_is_refused_before_any_record() {
    let input: String = puzzles(50).iter().map(|q| format!("{q}\n")).collect();
    let out = bin()
        .args(["check", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains("check needs a solution after each puzzle"));
    // Damaged records first say nothing of the others: the first puzzle that reads decides.
    let p = puzzles(3);
    let solution = |q: &str| {
        let grid = sudoku_batch::Grid::parse(q.as_bytes()).unwrap();
        sudoku_batch::solve(&grid).solution.unwrap().to_line()
    };
    let damaged = format!("x{}\n{}\n# c\n", &p[0][1..], "7".repeat(80));
    // Damaged CRLF lines up to a first puzzle whose CR is the last byte of the first look.
    let mut to_the_edge = format!("x{}\r\n", &p[0][1..]).repeat(788);
    to_the_edge += &format!("{}\r\n", "y".repeat(48));
    assert_eq!(to_the_edge.len() + 81, sudoku_batch::PEEK - 1);
    for (first, rest, refused) in [
        (&damaged, format!("{}\n{}\n", p[1], p[2]), true),
        (
            &damaged,
            format!("{} {}\n{}\n", p[1], solution(&p[1]), p[2]),
            false,
        ),
        (&to_the_edge, format!("{}\r\n{}\r\n", p[1], p[2]), true),
    ] {
        let input = format!("{first}{rest}");
        let lines = input.lines().count();
        for format in ["auto", "line"] {
            let (out, stderr, code) = same_with_pauses(
                &["check", "--format", format, "-"],
                input.as_bytes(),
                &[3, 90],
            );
            let case = format!("{format}, {lines} lines: {stderr}");
            assert_eq!(code, if refused { 2 } else { 1 }, "{case}");
            assert_eq!(
                stderr.contains("check needs a solution after each puzzle"),
                refused,
                "{case}"
            );
            assert_eq!(
                text(&out).lines().count(),
                if refused { 0 } else { 4 },
                "{case}"
            );
        }
    }
}

#[test]
fn solve_says_when_it_fills_a_column_and_can_keep_it() {
    let p = puzzles(2);
    let csv = format!("id,question,answer\n1,{},old1\n2,{},\n", p[0], p[1]);
    let out = bin()
        .args(["solve", "-"])
        .write_stdin(csv.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).starts_with("id,question,answer,status\n"));
    assert!(!text(&out.stdout).contains("old1"));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("column \"answer\" filled in place: 1 of its values were replaced"),
        "{stderr}"
    );

    let out = bin()
        .args(["solve", "--keep-solution-column", "--stats", "json", "-"])
        .write_stdin(csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows[0], "id,question,answer,solution,status");
    assert!(
        rows[1].starts_with(&format!("1,{},old1,", p[0])),
        "{}",
        rows[1]
    );
    assert!(rows[2].starts_with(&format!("2,{},,", p[1])), "{}", rows[2]);
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("filled in place"), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    assert!(json.get("filled_column").is_none() && json.get("replaced").is_none());
    // An empty column filled in place replaces nothing, and says nothing.
    let csv = format!("id,question,answer\n1,{},\n", p[0]);
    let out = bin()
        .args(["solve", "--stats", "json", "-"])
        .write_stdin(csv)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("filled in place"), "{stderr}");
    let json: serde_json::Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    assert_eq!(json["filled_column"], "answer");
    assert!(json.get("replaced").is_none());
}

#[test]
fn dedupe_reports_kept_records_and_reads_against_from_stdin() {
    let p = puzzles(4);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.txt");
    std::fs::write(&input, format!("{}\n{}\n{}\n", p[0], p[1], p[2])).unwrap();
    let out = bin()
        .args(["dedupe", "--stats", "json", "--against", "-"])
        .arg(&input)
        .write_stdin(format!("{}\n{}\n", p[1], p[3]))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{}\n{}\n", p[0], p[2]));
    let stderr = text(&out.stderr);
    let json: serde_json::Value = serde_json::from_str(stderr.lines().last().unwrap()).unwrap();
    assert_eq!(json["kept"], 2, "{json}");
    assert_eq!(json["duplicates"], 1);
    assert!(json.get("solved").is_none(), "{json}");
    // Both from stdin cannot be.
    let out = bin()
        .args(["dedupe", "--against", "-", "-"])
        .write_stdin("x\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--against - reads stdin"));
}

#[test]
fn column_flags_on_an_input_without_columns_are_refused() {
    let input: String = puzzles(3).iter().map(|q| format!("{q}\n")).collect();
    for flag in [
        &["--column", "question"][..],
        &["--solution-column", "answer"],
        &["--keep-solution-column"],
    ] {
        let out = bin()
            .arg("solve")
            .args(flag)
            .arg("-")
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(out.stdout.is_empty());
        assert!(
            text(&out.stderr).contains(&format!("{} is about a column, but a line input", flag[0])),
            "{}",
            text(&out.stderr)
        );
    }
}

#[test]
fn text_that_holds_no_puzzle_is_refused_not_answered_line_by_line() {
    let words: String = (0..20_000).map(|i| format!("word{i}\n")).collect();
    let out = bin()
        .args(["solve", "-"])
        .write_stdin(words.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("not a file of puzzles"), "{stderr}");
    assert!(stderr.contains("\"word0\""), "{stderr}");
    // Named, the format is read as asked: one status per line.
    let out = bin()
        .args(["solve", "--format", "line", "-"])
        .write_stdin(words)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stdout).lines().count(), 20_000);
    // Bytes with no line end at all.
    let out = bin()
        .args(["solve", "-"])
        .write_stdin("7".repeat(70_000))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no line end"),
        "{}",
        text(&out.stderr)
    );
    // A table's header row longer than the sample: the message says that CSV cannot read it
    // either (its hint led to another refusal).
    let header: Vec<String> = (0..12_000).map(|i| format!("col{i}")).collect();
    let wide = format!("{},puzzle\n", header.join(","));
    for format in [None, Some("csv")] {
        let mut run = bin();
        run.arg("solve");
        if let Some(format) = format {
            run.args(["--format", format]);
        }
        let out = run.arg("-").write_stdin(wide.clone()).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        let want = match format {
            None => "a CSV header row longer than 64 KiB is not read",
            Some(_) => "the CSV header row is longer than 64 KiB",
        };
        assert!(text(&out.stderr).contains(want), "{}", text(&out.stderr));
    }
}

#[test]
fn a_header_row_and_64_kib_of_comments_before_the_records_are_read_wherever_the_first_look_ends() {
    // Comments after a header row are not skipped before the first look at the input, as those
    // before it are: the look (64 KiB from the header) may end in a comment, at a line end,
    // between a CR and its LF, inside the first record's cells or after them. Each is read.
    let p = puzzles(3);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("commented.txt");
    let header = "puzzle solution\n";
    for end in ["\n", "\r\n"] {
        for shift in 0..200 {
            // Comment lines of 100 bytes, the first shortened so that the first record starts
            // `shift` bytes before the end of the look.
            let room = sudoku_batch::PEEK - header.len() + 100 - shift;
            let first = format!("#{}{end}", "c".repeat(room % 100 + 100 - 1 - end.len()));
            let rest = format!("# {}{end}", "c".repeat(100 - 2 - end.len())).repeat(room / 100 - 1);
            let mut input = format!("{header}{first}{rest}");
            assert_eq!(input.len() + shift, sudoku_batch::PEEK + 100);
            // A good record, a damaged one, good ones.
            input += &format!(
                "{}{end}x{}{end}{}{end}{}{end}",
                p[0],
                &p[0][1..],
                p[1],
                p[2]
            );
            std::fs::write(&file, &input).unwrap();
            let from_file = bin().args(["solve", "-q"]).arg(&file).output().unwrap();
            let case = format!("{end:?} shift {shift}: {}", text(&from_file.stderr));
            assert_eq!(from_file.status.code(), Some(1), "{case}");
            let answers = text(&from_file.stdout);
            assert_eq!(answers.lines().count(), 4, "{case}");
            assert!(
                answers.lines().nth(1).unwrap().starts_with("invalid: "),
                "{case}"
            );
            let from_pipe = bin()
                .args(["solve", "-q", "-"])
                .write_stdin(input)
                .output()
                .unwrap();
            assert_eq!(from_pipe.stdout, from_file.stdout, "{case}");
        }
    }
    // What the header row and comments lead to is no puzzle: refused, with what it is.
    let comments = format!("# {}\n", "x".repeat(97)).repeat(655);
    let out = bin()
        .args(["solve", "-"])
        .write_stdin(format!("{header}{comments}{}\n", "x".repeat(200)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no record line") && stderr.contains("it starts \"xxx"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn a_replaced_output_keeps_its_owner_and_group_where_permitted() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.txt");
    std::fs::write(&out, "old\n").unwrap();
    let me = std::fs::metadata(&out).unwrap();
    // Root may give a file any owner: the replaced file's is kept. Anyone else keeps their own.
    let (uid, gid) = if me.uid() == 0 {
        let (uid, gid) = (4242, 4343);
        std::os::unix::fs::chown(&out, Some(uid), Some(gid)).unwrap();
        (uid, gid)
    } else {
        (me.uid(), me.gid())
    };
    let input: String = puzzles(2).iter().map(|q| format!("{q}\n")).collect();
    bin()
        .args(["solve", "-o"])
        .arg(&out)
        .arg("-")
        .write_stdin(input)
        .assert()
        .code(0);
    let meta = std::fs::metadata(&out).unwrap();
    assert_eq!((meta.uid(), meta.gid()), (uid, gid));
    assert_ne!(std::fs::read(&out).unwrap(), b"old\n");
}

#[test]
fn a_first_line_whose_trailing_fields_outrun_the_sample_is_a_line_record() {
    let p = &puzzles(2);
    let mut input = format!("{},", p[0]).into_bytes();
    input.extend(std::iter::repeat_n(b'x', 70_000));
    input.extend(format!("\n{}\n", p[1]).bytes());
    for piped in [false, true] {
        let out = if piped {
            bin()
                .args(["solve", "-q", "-"])
                .write_stdin(input.clone())
                .output()
        } else {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("long.txt");
            std::fs::write(&path, &input).unwrap();
            bin().args(["solve", "-q"]).arg(&path).output()
        }
        .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout).lines().count(), 2);
    }
}

#[test]
fn a_shard_of_a_stream_is_refused_before_anything_is_read() {
    // Empty, or silent for a long time: refused at once either way.
    let out = bin()
        .args(["solve", "--shard", "1/2", "-"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--shard needs a regular file"),
        "{}",
        text(&out.stderr)
    );
    let (code, stderr) = ends_without_input(spawn(&["solve", "--shard", "1/2", "-"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--shard needs a regular file"), "{stderr}");
}

#[test]
fn tab_and_semicolon_separated_tables_are_csv_in_their_own_separator() {
    let p = puzzles(3);
    for sep in ["\t", ";"] {
        // A quoted field may hold the separator and a line end; a comma is plain text here.
        let input = format!(
            "# made by hand\nid{sep}Quizzes{sep}note\r\n1{sep}{}{sep}\"a{sep}b\nc\"\n2{sep}bad{sep}3,5\n3{sep}{}{sep}\n",
            p[0], p[1]
        );
        let out = bin()
            .args(["solve", "-"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(1), "{sep:?}: {stderr}");
        let rows: Vec<Vec<String>> = csv::ReaderBuilder::new()
            .delimiter(sep.as_bytes()[0])
            .has_headers(false)
            .from_reader(stdout.as_bytes())
            .records()
            .map(|r| r.unwrap().iter().map(str::to_string).collect())
            .collect();
        assert_eq!(
            rows[0],
            ["id", "Quizzes", "note", "solution", "status"],
            "{sep:?}"
        );
        assert_eq!(rows.len(), 4, "{sep:?}: {stdout}");
        assert_eq!(rows[1][2], format!("a{sep}b\nc"));
        assert_eq!(rows[1][4], "solved");
        assert_eq!(rows[2][2], "3,5");
        assert!(rows[2][4].starts_with("invalid"), "{sep:?}: {stdout}");
        assert_eq!(rows[3][4], "solved");
        assert!(stderr.contains("<stdin>:5: invalid"), "{sep:?}: {stderr}");
        // The same bytes at every thread count, and in shards, on a table of many blocks whose
        // quoted fields hold the separator and line ends (a cut there would split a row).
        let many: String = std::iter::once(format!("id{sep}puzzle{sep}note\n"))
            .chain((0..6000).map(|i| {
                let p = &p[i % 3];
                format!("{i}{sep}{p}{sep}\"x{sep}\n{sep}{i}\"\n")
            }))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("many.txt");
        std::fs::write(&file, &many).unwrap();
        let whole = bin().arg("solve").arg("-q").arg(&file).output().unwrap();
        assert_eq!(
            whole.status.code(),
            Some(0),
            "{sep:?}: {}",
            text(&whole.stderr)
        );
        assert_eq!(
            text(&whole.stdout)
                .matches(&format!("{sep}solved\n"))
                .count(),
            6000
        );
        for j in ["1", "3"] {
            let again = bin()
                .args(["solve", "-q", "-j", j, "-"])
                .write_stdin(many.clone())
                .output()
                .unwrap();
            assert_eq!(again.stdout, whole.stdout, "{sep:?} -j {j}");
        }
        let shards: Vec<u8> = (1..=3)
            .flat_map(|k| {
                let shard = bin()
                    .args(["solve", "-q", "--shard", &format!("{k}/3")])
                    .arg(&file)
                    .output()
                    .unwrap();
                shard.stdout
            })
            .collect();
        assert_eq!(shards, whole.stdout, "{sep:?}: shards");
        // dedupe writes the kept rows as they came, under the header.
        let twice = format!("id{sep}puzzle\n1{sep}{}\n2{sep}{}\n", p[0], p[0]);
        let out = bin()
            .args(["dedupe", "-q", "-"])
            .write_stdin(twice)
            .output()
            .unwrap();
        assert_eq!(
            text(&out.stdout),
            format!("id{sep}puzzle\n1{sep}{}\n", p[0])
        );
    }
    // A header row that holds a comma keeps the comma as the separator.
    let out = bin()
        .args(["solve", "-q", "-"])
        .write_stdin(format!("id,puzzle\tx\n1,{}\n", p[0]))
        .output()
        .unwrap();
    assert!(text(&out.stdout).starts_with("id,puzzle\tx,solution,status\n"));
}

#[test]
fn a_named_line_format_answers_its_first_line_at_once_whatever_it_holds() {
    let p = puzzles(1);
    let mut run = Interactive::spawn(&["solve", "--format", "line", "-"]);
    run.send("# a comment\njunk\n");
    let answer = run.answer("a comment and a bad line");
    assert!(answer.starts_with("invalid"), "{answer}");
    run.send(format!("{}\n", p[0]));
    assert_eq!(run.answer("a puzzle").len(), 81);
    assert_eq!(run.close(), Some(1));
}

#[test]
fn rows_that_hold_their_puzzle_after_other_fields_without_a_header_are_refused_with_a_hint() {
    let p = puzzles(3);
    for (sep, quote) in [(",", ""), (";", ""), ("\t", ""), (",", "\"")] {
        let input: String = p
            .iter()
            .enumerate()
            .map(|(i, p)| format!("{i}{sep}{quote}{p}{quote}{sep}3\n"))
            .collect();
        let out = bin()
            .args(["solve", "-"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{sep:?}: {stderr}");
        assert!(out.stdout.is_empty());
        assert!(
            stderr.contains("puzzles in field 2") && stderr.contains("add a header row"),
            "{sep:?}: {stderr}"
        );
        // The header the hint suggests reads the same rows: every one is answered.
        let header = stderr.split('`').nth(1).unwrap().replace("<TAB>", "\t");
        let out = bin()
            .args(["solve", "-q", "-"])
            .write_stdin(format!("{header}\n{input}"))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{header:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout).lines().count(), 4, "{header:?}");
    }
}

#[test]
fn a_utf16_or_utf32_byte_order_mark_is_refused_even_without_nuls() {
    let cases = [
        (&b"\xff\xfe"[..], "UTF-16"),
        (b"\xfe\xff", "UTF-16"),
        (b"\xff\xfe\x35\x26", "UTF-16"),
        (b"\xff\xfe\x00\x00", "UTF-32"),
        (b"\x00\x00\xfe\xff", "UTF-32"),
    ];
    for (bom, says) in cases {
        let out = bin()
            .args(["solve", "-"])
            .write_stdin(bom)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr.contains(&format!("it is {says} text")), "{stderr}");
    }
}

#[test]
fn a_vertical_tab_is_whitespace_and_control_characters_in_names_are_escaped() {
    let p = puzzles(1);
    let out = bin()
        .args(["solve", "-q", "-"])
        .write_stdin(format!("{}\x0b1\n\x0b{}\n\x0b\n", p[0], p[0]))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 2);
    // So in a CSV field, before or after the puzzle, and around a solution `check` reads.
    let solution = text(&out.stdout).lines().next().unwrap().to_string();
    let csv = format!(
        "puzzle,solution\n{p0}\x0b,\x0b{solution}\n\x0b{p0},{solution}\x0b\n\"{p0}\x0b\",{solution}\n",
        p0 = p[0]
    );
    for task in ["solve", "check"] {
        let out = bin()
            .args([task, "-q", "--stats", "json", "--format", "csv", "-"])
            .write_stdin(csv.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{task}: {}", text(&out.stdout));
        assert!(
            text(&out.stderr).contains("\"records\":3"),
            "{}",
            text(&out.stderr)
        );
    }
    // A vertical-tab line before a grid is blank, from a file and from a pipe alike.
    let grid: String = (0..9)
        .map(|r| format!("{}\n", &p[0][9 * r..9 * r + 9]))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("grid.txt");
    std::fs::write(&file, format!("\x0b\n{grid}")).unwrap();
    let from_file = bin().args(["solve", "-q"]).arg(&file).output().unwrap();
    let from_pipe = bin()
        .args(["solve", "-q", "-"])
        .write_stdin(format!("\x0b\n{grid}"))
        .output()
        .unwrap();
    assert_eq!(
        from_file.status.code(),
        Some(0),
        "{}",
        text(&from_file.stderr)
    );
    assert_eq!(from_file.stdout, from_pipe.stdout);
    assert_eq!(text(&from_file.stdout).lines().count(), 9);
    let out = bin()
        .args(["solve", "no\nsuch\x1bfile\u{202e}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("no\\nsuch\\u{1b}file\\u{202e}: cannot open"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_shows_its_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    // Bytes that are not UTF-8, which a display of the name would each show as U+FFFD.
    let missing = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"no\xffsuch\xfe"));
    let out = bin().arg("solve").arg(&missing).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no\\xffsuch\\xfe: cannot open"), "{stderr}");
    let output = dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"gone\xe9/out.txt"));
    let out = bin()
        .args(["solve", "-q", "-", "-o"])
        .arg(&output)
        .write_stdin(puzzles(1)[0].as_str())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("gone\\xe9/out.txt"), "{stderr}");
}

#[test]
fn a_space_separated_header_row_is_not_a_record() {
    let p = puzzles(3);
    let solved = |puzzle: &str| {
        let out = bin()
            .args(["solve", "-q", "-"])
            .write_stdin(puzzle)
            .output();
        text(&out.unwrap().stdout).trim_end().to_string()
    };
    let rows: String = p.iter().map(|q| format!("{q} {}\n", solved(q))).collect();
    let dir = tempfile::tempdir().unwrap();
    for header in ["puzzle solution", "Quizzes  Solutions se_rating", "sudoku"] {
        let input = format!("# made by hand\n\n{header}\r\n{rows}");
        let file = dir.path().join("table.txt");
        std::fs::write(&file, &input).unwrap();
        for args in [
            &["solve", "-q"][..],
            &["check", "-q"],
            &["solve", "-q", "--format", "line"],
        ] {
            let from_file = bin().args(args).arg(&file).output().unwrap();
            let from_pipe = same_with_pauses(
                &[args, &["-"][..]].concat(),
                input.as_bytes(),
                &[header.len() + 16, input.len() - 10],
            );
            assert_eq!(
                from_file.status.code(),
                Some(0),
                "{}",
                text(&from_file.stderr)
            );
            assert_eq!(from_file.stdout, from_pipe.0);
            let lines: Vec<String> = text(&from_file.stdout).lines().map(String::from).collect();
            assert_eq!(lines.len(), 3, "{header}: {lines:?}");
            if args[0] == "solve" {
                assert_eq!(lines[0], solved(&p[0]));
            }
        }
        // Messages name the lines of the whole file; dedupe copies the header.
        let damaged = format!("{header}\n{}\nx{}\n{}", p[0], p[1], p[0]);
        std::fs::write(&file, &damaged).unwrap();
        let out = bin()
            .args(["dedupe", "--exact"])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        assert!(
            text(&out.stderr).contains("table.txt:3: invalid"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&out.stdout),
            format!("{header}\n{}\nx{}\n", p[0], p[1])
        );
        // A header alone is no record, and no evidence against the line format: no note.
        std::fs::write(&file, format!("{header}\n")).unwrap();
        let out = bin().arg("solve").arg(&file).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains("records 0,") && !stderr.contains("format:"),
            "{stderr}"
        );
    }
    // Not a header: a name that is not the puzzle column's first, a line after the first
    // record, a field that is not a name.
    for input in [
        format!("id puzzle\n{}\n", p[0]),
        format!("{}\npuzzle solution\n", p[0]),
        format!("puzzle 2.5\n{}\n", p[0]),
    ] {
        let out = bin()
            .args(["solve", "-q", "-"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert!(text(&out.stdout).contains("invalid"));
    }
}

#[test]
fn a_byte_order_mark_can_start_any_line() {
    // Files joined with `cat`, each saved with a mark: a puzzle, a comment and a blank line.
    let p = puzzles(2);
    let input = format!(
        "{}\n\u{feff}{}\n\u{feff}# two\n\u{feff}\n\u{feff} {}\n",
        p[0], p[1], p[0]
    );
    let (out, stderr, code) = same_with_pauses(&["solve", "-"], input.as_bytes(), &[90]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(text(&out).lines().count(), 3);
    assert!(stderr.contains("records 3, solved 3"), "{stderr}");
}

#[test]
fn a_byte_order_mark_on_a_csv_row_is_its_data_and_dedupe_copies_rows_whole() {
    let p = puzzles(1);
    let input = format!("puzzle,x\n\u{feff}\nbad,1\n{},2\n", p[0]);
    let out = bin()
        .args(["dedupe", "-"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), input);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("<stdin>:2: invalid: expected 81 cells, found 1"),
        "{stderr}"
    );
    assert!(stderr.contains("<stdin>:3: invalid"), "{stderr}");
    // Marks on the blank lines before the first record: a file and a pipe agree.
    let input = format!("\n\u{feff}\n\u{feff}puzzle\n{}\n", p[0]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("marked.txt");
    std::fs::write(&file, &input).unwrap();
    let from_file = bin().arg("dedupe").arg(&file).output().unwrap();
    let (from_pipe, _, code) = same_with_pauses(&["dedupe", "-"], input.as_bytes(), &[2, 5]);
    assert_eq!(code, 0);
    assert_eq!(text(&from_file.stdout), text(&from_pipe));
    assert_eq!(text(&from_pipe), format!("puzzle\n{}\n", p[0]));
}

#[test]
fn check_past_a_header_row_is_refused_up_front_when_the_first_record_has_no_solution() {
    let p = puzzles(2);
    // `puzzle rating` heads line records (`puzzle` alone, a one-column CSV: refused too).
    let input = format!("puzzle rating\n{}\n{}\n", p[0], p[1]);
    for format in ["auto", "line"] {
        let (out, stderr, code) = same_with_pauses(
            &["check", "--format", format, "-"],
            input.as_bytes(),
            &[7, 20],
        );
        assert_eq!(code, 2, "{format}: {stderr}");
        assert!(out.is_empty());
        assert!(
            stderr.contains("check needs a solution after each puzzle"),
            "{stderr}"
        );
    }
}

#[test]
fn check_reads_a_first_record_that_the_first_look_cuts_after_its_puzzle() {
    // A header row, then comments up to 81 bytes before the end of the first look at the
    // input (which starts at the header): the look ends between the first record's puzzle and
    // its solution, which is there.
    let p = puzzles(1);
    let puzzle = sudoku_batch::Grid::parse(p[0].as_bytes()).unwrap();
    let solution = sudoku_batch::solve(&puzzle).solution.unwrap().to_line();
    let header = "puzzle solution\n";
    let comment = format!(
        "#{}\n",
        "c".repeat(sudoku_batch::PEEK - header.len() - 81 - 2)
    );
    let input = format!("{header}{comment}{},{solution}\n", p[0]);
    assert_eq!(input.find(',').unwrap(), sudoku_batch::PEEK);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cut.txt");
    std::fs::write(&file, &input).unwrap();
    // The format named, or found from the cut line's start (the look holds no other record).
    for format in [&["--format", "line"][..], &[]] {
        let from_file = bin()
            .args(["check", "-q"])
            .args(format)
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(
            from_file.status.code(),
            Some(0),
            "{format:?}: {}",
            text(&from_file.stderr)
        );
        assert_eq!(text(&from_file.stdout), "ok\n");
        let args = [&["check", "-q"], format, &["-"]].concat();
        let (out, stderr, code) = same_with_pauses(&args, input.as_bytes(), &[50]);
        assert_eq!(code, 0, "{format:?}: {stderr}");
        assert_eq!(text(&out), "ok\n");
    }
}

#[test]
fn a_byte_order_mark_alone_between_grids_is_a_blank_line() {
    let p = puzzles(2);
    let grid = |q: &str| -> String {
        (0..9)
            .map(|r| format!("{}\n", &q[9 * r..9 * r + 9]))
            .collect()
    };
    let input = format!("\u{feff}\n{}\u{feff}\n\u{feff}{}", grid(&p[0]), grid(&p[1]));
    let (out, stderr, code) = same_with_pauses(&["solve", "-"], input.as_bytes(), &[3, 95]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("records 2, solved 2"), "{stderr}");
    assert_eq!(text(&out).lines().count(), 19);
}

#[test]
fn a_tables_output_reads_back_with_its_separator_when_a_name_holds_another() {
    let p = puzzles(2);
    for (header, sep) in [
        ("\"id,x\";puzzle", ";"),
        ("\"a;b\"\tpuzzle", "\t"),
        ("\"a;b\",puzzle", ","),
    ] {
        let input: String =
            format!("{header}\n") + &p.iter().map(|p| format!("1{sep}{p}\n")).collect::<String>();
        let first = bin()
            .args(["count", "-q", "-"])
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(
            first.status.code(),
            Some(0),
            "{header}: {}",
            text(&first.stderr)
        );
        // The output, read again, is the same table with the answers added once more.
        let again = bin()
            .args(["count", "-q", "-"])
            .write_stdin(first.stdout.clone())
            .output()
            .unwrap();
        assert_eq!(
            again.status.code(),
            Some(0),
            "{header}: {}",
            text(&again.stderr)
        );
        let rows: Vec<String> = text(&again.stdout).lines().map(String::from).collect();
        assert_eq!(rows.len(), 3, "{header}");
        for row in &rows[1..] {
            assert!(
                row.ends_with(&format!("{sep}1{sep}ok{sep}1{sep}ok")),
                "{header}: {row}"
            );
        }
    }
}
