//! `--shard K/N`: N independent runs cover every record exactly once. Their outputs, concatenated
//! in K order, are the unsharded output byte for byte, and their messages name the whole file's
//! lines, in every format, including records that straddle the byte cuts.

mod common;

use std::path::Path;

use assert_cmd::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

/// stdout, and the per-record messages (`name:line: text`) of one run.
fn run(args: &[&str], input: &Path) -> (Vec<u8>, Vec<String>) {
    let out = bin()
        .args(args)
        .args(["--max-messages", "100000"])
        .arg(input)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{args:?}: {out:?}"
    );
    let name = format!("{}:", input.display());
    let messages = String::from_utf8(out.stderr)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(&name))
        .map(String::from)
        .collect();
    (out.stdout, messages)
}

fn assert_shards_add_up(args: &[&str], input: &Path) {
    let (whole, messages) = run(args, input);
    assert!(!whole.is_empty());
    for n in [1u64, 2, 3, 7, 64, 500] {
        let mut joined = Vec::new();
        let mut joined_messages = Vec::new();
        for k in 1..=n {
            let shard = format!("{k}/{n}");
            let mut with_shard = args.to_vec();
            with_shard.extend(["--shard", &shard]);
            let (out, msgs) = run(&with_shard, input);
            joined.extend(out);
            joined_messages.extend(msgs);
        }
        assert!(
            joined == whole,
            "{args:?} in {n} shards: the outputs do not add up to the whole"
        );
        assert_eq!(joined_messages, messages, "{args:?} in {n} shards");
    }
}

fn sample() -> Vec<String> {
    common::puzzle_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt"))
}

#[test]
fn line_format_with_bad_records_crlf_and_comments() {
    let p = sample();
    let mut text = String::from("# header comment\n\n");
    for i in 0..400 {
        match i % 37 {
            3 => text += "garbage\r\n",
            5 => text += &format!("{}\n", "7".repeat(3000)),
            7 => text += "   \n# comment\n",
            _ => {
                text += &format!(
                    "{}{}",
                    p[i % p.len()],
                    if i % 2 == 0 { "\n" } else { " 42\r\n" }
                )
            }
        }
    }
    text += &p[0]; // no final newline
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.txt");
    std::fs::write(&path, text).unwrap();
    assert_shards_add_up(&["solve"], &path);
    assert_shards_add_up(&["count", "--limit", "3"], &path);
}

#[test]
fn cr_only_and_mixed_line_ends() {
    let p = sample();
    let ends = ["\r", "\n", "\r\n", "\r\r", "\n\r"];
    let mut text = String::new();
    for i in 0..300 {
        text += if i % 29 == 3 { "bad" } else { &p[i % p.len()] };
        text += ends[i % ends.len()];
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cr.txt");
    std::fs::write(&path, &text).unwrap();
    assert_shards_add_up(&["solve"], &path);
    let grids: String = p
        .iter()
        .take(9)
        .map(|g| {
            let rows: Vec<String> = g
                .as_bytes()
                .chunks(9)
                .map(|r| String::from_utf8_lossy(r).replace('.', "0"))
                .collect();
            rows.join("\r") + "\r\r"
        })
        .collect();
    let path = dir.path().join("grids_cr.txt");
    std::fs::write(&path, grids).unwrap();
    assert_shards_add_up(&["solve", "--format", "grid"], &path);
}

#[test]
fn grids_with_a_malformed_one() {
    let p = sample();
    let mut text = String::from("# grids\n");
    for (i, puzzle) in p.iter().cycle().take(60).enumerate() {
        if i % 11 == 4 {
            text += "123\n456\n\n";
            continue;
        }
        for row in puzzle.as_bytes().chunks(9) {
            let row = String::from_utf8(row.to_vec()).unwrap().replace('.', "0");
            if i % 2 == 0 {
                text += &row;
            } else {
                text += &row.chars().map(String::from).collect::<Vec<_>>().join(" ");
            }
            text += "\n";
        }
        text += if i % 3 == 0 { "\n\n" } else { "\n" };
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grids.txt");
    std::fs::write(&path, text).unwrap();
    assert_shards_add_up(&["solve", "--format", "grid"], &path);
}

#[test]
fn csv_with_a_header_quoted_line_feeds_and_check() {
    let p = sample();
    let solutions: Vec<String> = String::from_utf8(
        bin()
            .args(["solve", "-q", "-"])
            .write_stdin(p.join("\n"))
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .lines()
    .map(String::from)
    .collect();
    let mut text = String::from("# made by hand\n\nid,note,puzzle,solution\n");
    for i in 0..300 {
        let note = if i % 13 == 2 {
            "\"two\nlines, \"\"quoted\"\"\""
        } else {
            "plain"
        };
        let puzzle = if i % 17 == 5 {
            "\"bad\npuzzle\""
        } else {
            &p[i % p.len()]
        };
        let solution = if i % 19 == 4 {
            &solutions[0]
        } else {
            &solutions[i % p.len()]
        };
        text += &format!("{i},{note},{puzzle},{solution}\r\n");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("set.csv");
    std::fs::write(&path, text).unwrap();
    assert_shards_add_up(&["solve"], &path);
    assert_shards_add_up(&["check", "--unique"], &path);
}

#[test]
fn bad_shards_and_streamed_inputs_are_usage_errors() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt");
    for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/2"] {
        bin()
            .args(["solve", "--shard", bad])
            .arg(&path)
            .assert()
            .code(2);
    }
    let out = bin()
        .args(["solve", "--shard", "1/2", "-"])
        .write_stdin(std::fs::read(&path).unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--shard needs a regular file"));
}

#[test]
fn exit_zero_keeps_bad_records_answered_but_exits_0() {
    let out = bin()
        .args(["solve", "--exit-zero", "-"])
        .write_stdin("bad\n")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"invalid: expected 81 cells, found 3\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("<stdin>:1: invalid"));
}

#[test]
fn csv_quotes_that_csv_core_reads_as_plain_characters() {
    // A quote in a comment before the header, or in the middle of an unquoted field, does not
    // open a quoted field: block and shard cuts must not treat it as one (found by review).
    let p = &sample()[0];
    let mut text = String::from("# don't \"quote\" me\nid,puzzle,note\n");
    for i in 0..60_000 {
        match i % 3 {
            0 => text += &format!("{i},{p},\"two\nlines\"\n"),
            1 => text += &format!("{i},{p},a\"b\n"),
            _ => text += &format!("{i},{p},x\r\n"),
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quotes.csv");
    std::fs::write(&path, text).unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "16"] {
        let out = bin()
            .args(["solve", "-j", threads, "--stats", "json"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stderr).contains("\"records\":60000"));
        outputs.push(out.stdout);
    }
    assert!(
        outputs[0] == outputs[1],
        "the output depends on the thread count"
    );
    for n in ["2/3", "3/3"] {
        bin()
            .args(["solve", "-q", "--shard", n])
            .arg(&path)
            .assert()
            .code(0);
    }
}

#[test]
fn an_empty_file_has_empty_shards() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.txt");
    std::fs::write(&path, "").unwrap();
    let out = bin()
        .args(["solve", "--shard", "2/3"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn csv_lines_are_numbered_as_csv_core_reads_rows() {
    // A lone CR ends a row and a line (CR CR LF is two line ends); messages name the line each
    // row starts on.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cr.csv");
    std::fs::write(&path, "id,puzzle\n1,bad\r2,bad\r3,bad\n\r\r\n4,bad\n").unwrap();
    let (_, messages) = run(&["solve"], &path);
    let lines: Vec<&str> = messages
        .iter()
        .map(|m| m.split(':').nth(1).unwrap())
        .collect();
    assert_eq!(lines, ["2", "3", "4", "7"]);
}

#[test]
fn byte_order_marks_inside_csv_and_line_files_read_the_same_in_every_shard() {
    // A mark at the start of a CSV row is that row's data wherever the row falls (a block's or
    // a shard's first row too); a line file skips it at the start of any line.
    let p = sample();
    // 6,000 rows from `row(mark, puzzle, i)`, a mark on every third.
    let marked = |row: &dyn Fn(&str, &str, usize) -> String| -> String {
        (0..6000)
            .map(|i| row(["\u{feff}", "", ""][i % 3], &p[i % p.len()], i))
            .collect()
    };
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("marked.csv");
    let rows = marked(&|mark, puzzle, i| format!("{mark}{puzzle},{i}\n"));
    std::fs::write(&csv, format!("puzzle,id\n\u{feff}\n{rows}")).unwrap();
    assert_shards_add_up(&["solve", "-j", "3"], &csv);
    let (one, messages) = run(&["solve", "-j", "1"], &csv);
    let (three, _) = run(&["solve", "-j", "3"], &csv);
    assert_eq!(one, three);
    // The mark alone on line 2 is a record, and so is every marked row: 2,001 invalid.
    assert_eq!(messages.len(), 2001, "{:?}", &messages[..3]);
    assert!(messages[0].ends_with("marked.csv:2: invalid: expected 81 cells, found 1"));
    assert!(
        messages[1].contains("marked.csv:3: invalid"),
        "{}",
        messages[1]
    );
    let lines = dir.path().join("marked.txt");
    let rows = marked(&|mark, puzzle, i| format!("{mark}{puzzle} {i}\n{mark}\n"));
    std::fs::write(&lines, format!("sudoku\n{rows}")).unwrap();
    assert_shards_add_up(&["solve", "-j", "3"], &lines);
    let (out, messages) = run(&["solve"], &lines);
    assert!(messages.is_empty(), "{messages:?}");
    assert_eq!(String::from_utf8(out).unwrap().lines().count(), 6000);
}
