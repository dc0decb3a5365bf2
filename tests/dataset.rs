//! The dataset tools end to end through the real binary: detection of the layouts people use,
//! CSV pass-through, `check` on a solution column, and `canon`, `rate` and `dedupe`.
//!
//! Isomorphs are made here by a transform written for this file (not the library's), and the
//! solutions the tests compare against come from `tests/common`'s reference solver.

mod common;

use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

/// Puzzles shipped in `data/`, as 81-character lines with `.` blanks.
fn shipped(n: usize) -> Vec<String> {
    let mut puzzles = common::puzzle_texts(&common::shipped("generated_unique25_2000.txt"));
    puzzles.truncate(n);
    puzzles
}

fn run(args: &[&str], input: &[u8]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("input");
    std::fs::write(&path, input).unwrap();
    bin().args(args).arg(&path).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn read_csv(bytes: &[u8]) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes)
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

/// A small random generator for the transforms below (splitmix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn shuffled<const N: usize>(&mut self) -> [usize; N] {
        let mut items: [usize; N] = std::array::from_fn(|i| i);
        for i in (1..N).rev() {
            items.swap(i, (self.next() % (i as u64 + 1)) as usize);
        }
        items
    }
}

/// A random isomorph of an 81-character puzzle (`.`/`0` blanks): bands, rows in bands, stacks,
/// columns in stacks, transposition, and a relabelling of the digits.
fn isomorph(puzzle: &str, rng: &mut Rng) -> String {
    let cells: Vec<u8> = puzzle
        .bytes()
        .map(|b| if b == b'.' { b'0' } else { b })
        .collect();
    let order = |rng: &mut Rng| -> Vec<usize> {
        let outer: [usize; 3] = rng.shuffled();
        outer
            .iter()
            .flat_map(|&o| rng.shuffled::<3>().map(|i| o * 3 + i))
            .collect()
    };
    let (rows, cols) = (order(rng), order(rng));
    let transpose = rng.next() % 2 == 1;
    let digits: [usize; 9] = rng.shuffled();
    let mut out = String::with_capacity(81);
    for r in 0..9 {
        for c in 0..9 {
            let (r, c) = if transpose { (c, r) } else { (r, c) };
            let v = cells[rows[r] * 9 + cols[c]];
            out.push(if v == b'0' {
                '0'
            } else {
                (b'1' + digits[usize::from(v - b'1')] as u8) as char
            });
        }
    }
    out
}

// ---- detection --------------------------------------------------------------------------------

#[test]
fn a_stray_grid_row_does_not_make_a_line_file_a_grid_file() {
    let puzzles = shipped(200);
    let input = format!("000000000\n{}\n", puzzles.join("\n"));
    let out = run(&["solve"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1), "one bad record");
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 201);
    assert_eq!(lines[0], "invalid: expected 81 cells, found 9");
    let checked = common::check_output(puzzles.join("\n").as_bytes(), &lines[1..].join("\n"), 0);
    assert_eq!(checked.solved, 200);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(":1: invalid: expected 81 cells"),
        "{stderr}"
    );
    assert!(
        stderr.contains("format: line"),
        "the doubt is told: {stderr}"
    );
}

#[test]
fn a_puzzle_with_a_trailing_word_is_not_a_csv_header() {
    let puzzles = shipped(3);
    let input = format!("{},sudoku\n{}\n{}\n", puzzles[0], puzzles[1], puzzles[2]);
    let out = run(&["solve"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 3, "no puzzle vanished");
}

#[test]
fn a_byte_order_mark_is_skipped_in_line_and_csv_input() {
    let puzzles = shipped(2);
    let input = format!("\u{feff}{}\n{}\n", puzzles[0], puzzles[1]);
    let out = run(&["solve"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 2);
    let input = format!("\u{feff}question,rating\n{},1\n", puzzles[0]);
    let out = run(&["solve"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = read_csv(&out.stdout);
    assert_eq!(rows[0], ["question", "rating", "solution", "status"]);
}

#[test]
fn a_named_title_line_before_line_records_is_not_a_csv_header() {
    let puzzles = shipped(3);
    let input = format!("generated by,Sudoku\n{}\n", puzzles.join("\n"));
    let out = run(&["solve"], input.as_bytes());
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 4, "line format: the title is one bad record");
    assert!(lines[0].starts_with("invalid: "));
    // Eight line records and one grid: line format (records, not lines, are weighed).
    let grid = "530070000\n".repeat(9);
    let eight: Vec<&str> = puzzles.iter().cycle().take(8).map(|p| p.as_str()).collect();
    let input = format!("{}\n{grid}", eight.join("\n"));
    let out = run(&["solve"], input.as_bytes());
    assert_eq!(text(&out.stdout).lines().count(), 8 + 9);
}

#[test]
fn a_csv_header_is_found_past_blank_lines_and_a_malformed_first_row() {
    let p = &shipped(1)[0];
    let input = format!("  \n  # made by hand\na,b,c\n1,bad,z\n2,{p},z\n");
    let out = run(&["solve"], input.as_bytes());
    let rows = read_csv(&out.stdout);
    assert_eq!(rows[0], ["a", "b", "c", "solution", "status"]);
    assert!(rows[1][4].starts_with("invalid: "));
    assert_eq!(rows[2][4], "solved");
}

#[test]
fn a_paused_pipe_does_not_shrink_the_detection_sample() {
    use std::io::Write;
    use std::process::Stdio;
    let puzzles = shipped(11);
    let mut child = bin()
        .args(["solve", "-q", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"000000000\n").unwrap();
    stdin.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    stdin.write_all(puzzles.join("\n").as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        text(&out.stdout).lines().count(),
        12,
        "line format, every record"
    );
}

// ---- CSV pass-through and check --------------------------------------------------------------

/// A sudoku-extreme-style table: `source,question,answer,rating`, `.` blanks, empty answers.
fn extreme_style(puzzles: &[String]) -> String {
    let mut input = String::from("source,question,answer,rating\n");
    for (i, p) in puzzles.iter().enumerate() {
        input += &format!("\"src, {i}\",{p},,{}\n", i % 7);
    }
    input
}

#[test]
fn sudoku_extreme_layout_solves_with_no_flags_and_keeps_every_column() {
    let puzzles = shipped(50);
    let out = run(&["solve"], extreme_style(&puzzles).as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = read_csv(&out.stdout);
    assert_eq!(
        rows[0],
        ["source", "question", "answer", "rating", "status"]
    );
    assert_eq!(rows.len(), 51);
    for (i, (row, p)) in rows[1..].iter().zip(&puzzles).enumerate() {
        assert_eq!(row[0], format!("src, {i}"));
        assert_eq!(&row[1], p);
        assert_eq!(row[3], (i % 7).to_string());
        assert_eq!(row[4], "solved");
        let checked = common::check_output(p.as_bytes(), &row[2], 0);
        assert_eq!(checked.solved, 1, "row {i}: {row:?}");
    }
}

#[test]
fn kaggle_layout_keeps_clues_and_difficulty() {
    let puzzles = shipped(5);
    let mut input = String::from("id,puzzle,solution,clues,difficulty\n");
    for (i, p) in puzzles.iter().enumerate() {
        input += &format!(
            "{i},{p},,{},{}.5\n",
            p.bytes().filter(|&b| b != b'.').count(),
            i
        );
    }
    let out = run(&["count"], input.as_bytes());
    let rows = read_csv(&out.stdout);
    assert_eq!(
        rows[0],
        [
            "id",
            "puzzle",
            "solution",
            "clues",
            "difficulty",
            "count",
            "status"
        ]
    );
    assert_eq!(rows[3][4], "2.5");
    assert!(rows[1..].iter().all(|r| r[5] == "1" && r[6] == "ok"));
}

#[test]
fn check_flags_exactly_the_wrong_rows_of_a_sudoku_extreme_style_file() {
    let puzzles = shipped(40);
    let solved = run(&["solve", "-q"], extreme_style(&puzzles).as_bytes());
    let mut rows = read_csv(&solved.stdout);
    // Spoil rows 3, 17 and 30 in different ways: swap two digits, change a given, truncate.
    let wrong = [3usize, 17, 30];
    rows[4][2] = {
        let mut v = rows[4][2].as_bytes().to_vec();
        v.swap(0, 1);
        String::from_utf8(v).unwrap()
    };
    rows[18][2] = {
        let first_given = puzzles[17].bytes().position(|b| b != b'.').unwrap();
        let mut v = rows[18][2].as_bytes().to_vec();
        // Relabel two digits everywhere: still a valid grid, but a given changes.
        let (a, b) = (
            v[first_given],
            if v[first_given] == b'1' { b'2' } else { b'1' },
        );
        for d in v.iter_mut() {
            *d = if *d == a {
                b
            } else if *d == b {
                a
            } else {
                *d
            };
        }
        String::from_utf8(v).unwrap()
    };
    rows[31][2].truncate(80);
    let mut table = csv::Writer::from_writer(Vec::new());
    for row in &rows {
        table.write_record(&row[..4]).unwrap();
    }
    let table = table.into_inner().unwrap();
    let out = run(&["check"], &table);
    assert_eq!(out.status.code(), Some(1));
    let checked = read_csv(&out.stdout);
    assert_eq!(
        checked[0],
        ["source", "question", "answer", "rating", "status"]
    );
    for (i, row) in checked[1..].iter().enumerate() {
        if wrong.contains(&i) {
            assert!(row[4].starts_with("wrong: "), "row {i}: {row:?}");
        } else {
            assert_eq!(row[4], "ok", "row {i}: {row:?}");
        }
    }
    let stderr = text(&out.stderr);
    let flagged: Vec<&str> = stderr.lines().filter(|l| l.contains(": wrong: ")).collect();
    assert_eq!(flagged.len(), 3, "{stderr}");
    for (line, i) in flagged.iter().zip(wrong) {
        assert!(line.contains(&format!(":{}: wrong: ", i + 2)), "{line}");
    }
    // The same answers under another column name, named with --solution-column.
    let renamed = text(&table).replacen("answer", "mine", 1);
    let out = run(&["check", "--solution-column", "mine"], renamed.as_bytes());
    let again = read_csv(&out.stdout);
    assert_eq!(again[1..].iter().filter(|r| r[4] != "ok").count(), 3);
    let out = run(&["check"], renamed.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--solution-column"));
}

#[test]
fn csv_pass_through_with_quotes_embedded_newlines_and_a_bom() {
    let puzzles = shipped(3);
    let input = format!(
        "\u{feff}id,note,puzzle\r\n1,\"two\nlines\",{}\r\n2,\"say \"\"hi\"\"\",{}\r\n3,,\"{}\"\r\n",
        puzzles[0], puzzles[1], puzzles[2]
    );
    let out = run(&["canon", "-j", "3"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = read_csv(&out.stdout);
    assert_eq!(rows[0], ["id", "note", "puzzle", "canonical", "status"]);
    assert_eq!(rows[1][..3], ["1", "two\nlines", puzzles[0].as_str()]);
    assert_eq!(rows[2][1], "say \"hi\"");
    assert!(rows[1..].iter().all(|r| r[3].len() == 81 && r[4] == "ok"));
}

#[test]
fn csv_with_lone_cr_line_ends_loses_no_row() {
    let puzzles = shipped(3);
    // A comment before the header ends at a lone CR too.
    let input = format!(
        "# a \"comment\rid,puzzle\r1,{}\r2,{}\r3,{}\r",
        puzzles[0], puzzles[1], puzzles[2]
    );
    let out = run(&["solve", "-j", "3"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = read_csv(&out.stdout);
    assert_eq!(rows.len(), 4);
    assert!(rows[1..].iter().all(|r| r[3] == "solved"), "{rows:?}");
    // After the header, a row whose first field starts with `#` is a row like any other.
    let input = format!("id,puzzle\n\"#1\",{}\n", puzzles[0]);
    let out = run(&["solve"], input.as_bytes());
    assert!(text(&out.stdout).contains("\n#1,"), "{}", text(&out.stdout));
    // A first row holding a puzzle is no header, even with --format csv.
    let out = run(&["solve", "--format", "csv"], puzzles.join("\n").as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no header row"));
}

#[test]
fn long_rows_and_clashing_names_keep_the_columns_in_line() {
    let p = &shipped(1)[0];
    let input = format!("id,puzzle,rating,status\n1,{p},3,x\n2,{p},3,x,extra\n");
    let out = run(&["rate", "--samples", "1"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let rows = read_csv(&out.stdout);
    assert_eq!(
        rows[0],
        ["id", "puzzle", "rating", "status", "rating_2", "singles", "status_2"]
    );
    assert_eq!(rows[1][2..4], ["3", "x"]);
    assert_eq!(rows[1][6], "ok");
    assert!(rows[2]
        .last()
        .unwrap()
        .contains("the row has 5 fields, the header 4"));
    let input = format!("id,puzzle\n1,{p}\n");
    let out = run(&["solve", "--solution-column", "puzzle"], input.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("names the puzzle column"));
}

// ---- canon ------------------------------------------------------------------------------------

#[test]
fn canon_is_the_same_for_isomorphs_and_differs_across_classes() {
    let puzzles = shipped(300);
    let mut rng = Rng(7);
    let moved: Vec<String> = puzzles.iter().map(|p| isomorph(p, &mut rng)).collect();
    let canon = |lines: &[String]| {
        let out = run(&["canon", "-j", "4"], lines.join("\n").as_bytes());
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
            .lines()
            .map(String::from)
            .collect::<Vec<_>>()
    };
    let (a, b) = (canon(&puzzles), canon(&moved));
    assert_eq!(a.len(), 300);
    assert_eq!(a, b);
    // Generated puzzles of one seed are distinct classes (a collision would be a miracle).
    let distinct: std::collections::HashSet<&String> = a.iter().collect();
    assert_eq!(distinct.len(), 300);
    // The form is itself a member of the class: it has the puzzle's givens count and solves.
    for (form, p) in a.iter().zip(&puzzles) {
        let givens = |s: &str| s.bytes().filter(|&b| b != b'.' && b != b'0').count();
        assert_eq!(givens(form), givens(p));
        assert!(form.bytes().all(|b| b.is_ascii_digit()));
    }
    let solved = run(&["count", "-q"], a.join("\n").as_bytes());
    assert!(
        text(&solved.stdout).lines().all(|l| l == "1"),
        "each form is a unique puzzle"
    );
}

#[test]
fn canon_reports_bad_records_in_place() {
    let p = &shipped(1)[0];
    let clash = format!("11{}", &p[2..]);
    let input = format!("{p}\nnot a puzzle\n{clash}\n{p}\n");
    let out = run(&["canon"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], lines[3]);
    assert!(lines[1].starts_with("invalid: expected 81 cells"));
    assert!(lines[2].starts_with("invalid: givens clash"));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(":2: invalid") && stderr.contains(":3: invalid"),
        "{stderr}"
    );
}

// ---- dedupe -----------------------------------------------------------------------------------

#[test]
fn dedupe_keeps_the_first_of_each_class_in_order_as_it_came() {
    let puzzles = shipped(60);
    let mut rng = Rng(11);
    // Each original, then later an isomorph of every third one, an exact copy of every fifth
    // with a trailing field, and a bad line: all in an interleaved order.
    let mut lines = Vec::new();
    let mut expected = Vec::new();
    for (i, p) in puzzles.iter().enumerate() {
        lines.push(format!("{p} keep{i}"));
        expected.push(format!("{p} keep{i}"));
        if i >= 10 && i % 3 == 0 {
            lines.push(isomorph(&puzzles[i - 10], &mut rng));
        }
        if i % 5 == 0 {
            lines.push(format!("{p},copy"));
        }
        if i == 30 {
            lines.push("bad line".into());
            expected.push("bad line".into());
        }
    }
    let input = lines.join("\r\n");
    let out = run(&["dedupe", "-j", "5"], input.as_bytes());
    assert_eq!(out.status.code(), Some(1), "the bad line is reported");
    assert_eq!(text(&out.stdout), expected.join("\n") + "\n");
    let stderr = text(&out.stderr);
    let bad_line = lines.iter().position(|l| l == "bad line").unwrap() + 1;
    assert!(
        stderr.contains(&format!(":{bad_line}: invalid")),
        "{stderr}"
    );
    assert!(stderr.contains("kept 61, duplicates"), "{stderr}");
    // --exact drops only the copies (same cells), not the isomorphs.
    let out = run(&["dedupe", "--exact"], input.as_bytes());
    let kept = text(&out.stdout);
    assert_eq!(kept.lines().count(), lines.len() - 12);
    assert!(!kept.contains(",copy"));
}

#[test]
fn dedupe_against_another_file_drops_leaked_records() {
    let puzzles = shipped(40);
    let mut rng = Rng(5);
    let dir = tempfile::tempdir().unwrap();
    let train = dir.path().join("train.txt");
    let test = dir.path().join("test.csv");
    std::fs::write(&train, puzzles[..20].join("\n")).unwrap();
    // The test split: ten new puzzles and ten isomorphs of training puzzles, as CSV.
    let mut csv_text = String::from("id,question\n");
    for i in 0..20 {
        let q = if i % 2 == 0 {
            puzzles[20 + i].clone()
        } else {
            isomorph(&puzzles[i], &mut rng)
        };
        csv_text += &format!("\"t{i}\",{q}\n");
    }
    std::fs::write(&test, &csv_text).unwrap();
    let out = bin()
        .args(["dedupe", "--against"])
        .arg(&train)
        .arg(&test)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rows = read_csv(&out.stdout);
    assert_eq!(rows[0], ["id", "question"]);
    let ids: Vec<&str> = rows[1..].iter().map(|r| r[0].as_str()).collect();
    let want: Vec<String> = (0..20).step_by(2).map(|i| format!("t{i}")).collect();
    assert_eq!(ids, want);
    assert!(
        text(&out.stdout).contains("\"t0\","),
        "rows as they came, quotes kept"
    );
}

const HARD: &str =
    "100007090030020008009600500005300900010080002600004000300000010040000007007000300";

#[test]
fn dedupe_writes_csv_rows_byte_for_byte() {
    let p = shipped(3);
    let input = format!(
        "# a \"comment\nid,puzzle,note\n1,{},x\n #2,{},\"a\nb\"\n3,\"{}\",y\n1,{},x",
        p[0], p[1], p[2], p[0]
    );
    let out = run(&["dedupe", "--exact"], input.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        format!(
            "id,puzzle,note\n1,{},x\n #2,{},\"a\nb\"\n3,\"{}\",y\n",
            p[0], p[1], p[2]
        )
    );
}

#[test]
fn dedupe_against_a_file_with_bad_records_says_so() {
    let p = shipped(5);
    let dir = tempfile::tempdir().unwrap();
    let against = dir.path().join("against.csv");
    // Its own layout (a CSV whose first row is malformed), detected on its own.
    std::fs::write(&against, format!("id,q\n1,x\n2,{}\n", p[0])).unwrap();
    let input = dir.path().join("train.txt");
    std::fs::write(&input, p.join("\n")).unwrap();
    let out = bin()
        .args(["dedupe", "--format", "line", "--against"])
        .arg(&against)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "a bad record in the other file");
    assert_eq!(text(&out.stdout), p[1..].join("\n") + "\n");
    // The message names the other file and the line.
    let says = format!(
        "--against: 1 malformed record not compared; the first: {}:2: invalid",
        against.display()
    );
    assert!(text(&out.stderr).contains(&says), "{}", text(&out.stderr));
}

/// The other file's puzzle column, found by its data, is named before the run as the input's is,
/// and in the JSON summary.
#[test]
fn dedupe_against_says_which_column_its_data_chose() {
    let p = shipped(3);
    let dir = tempfile::tempdir().unwrap();
    let against = dir.path().join("split.csv");
    std::fs::write(&against, format!("id,a,b\n1,{},x\n", p[0])).unwrap();
    let input = dir.path().join("train.txt");
    std::fs::write(&input, p.join("\n")).unwrap();
    let out = bin()
        .args(["dedupe", "--stats", "json", "--against"])
        .arg(&against)
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), p[1..].join("\n") + "\n");
    let stderr = text(&out.stderr);
    let note =
        "format: csv (the header names no puzzle column, but column \"a\" holds 81-cell puzzles)";
    let says = format!("--against {}: {note}", against.display());
    assert!(stderr.lines().any(|l| l == says), "{stderr}");
    let json = stderr
        .lines()
        .find(|l| l.starts_with('{'))
        .expect("a JSON summary");
    let summary: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(summary["against_note"], note, "{json}");
}

/// `--against-column` names the other file's puzzle column, where `--column` names the input's.
#[test]
fn dedupe_against_names_the_other_files_column() {
    let p = shipped(4);
    let dir = tempfile::tempdir().unwrap();
    // Two columns of 81 characters: the first holds puzzles but is not the one meant.
    let against = dir.path().join("split.csv");
    let rows: String = (0..2).map(|i| format!("{},{}\n", p[3 - i], p[i])).collect();
    std::fs::write(&against, format!("old,new\n{rows}")).unwrap();
    let input = dir.path().join("train.csv");
    let rows: String = p
        .iter()
        .enumerate()
        .map(|(i, q)| format!("{i},{q}\n"))
        .collect();
    std::fs::write(&input, format!("id,quiz\n{rows}")).unwrap();
    let dedupe = |extra: &[&str]| {
        bin()
            .arg("dedupe")
            .arg(&input)
            .arg("--against")
            .arg(&against)
            .args(extra)
            .output()
            .unwrap()
    };
    // By its data, the other file's first column (p[3], p[2]) is taken.
    let out = dedupe(&[]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!("id,quiz\n0,{}\n1,{}\n", p[0], p[1])
    );
    // Named: its second (p[0], p[1]).
    let out = dedupe(&["--against-column", "new"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        text(&out.stdout),
        format!("id,quiz\n2,{}\n3,{}\n", p[2], p[3])
    );
    // A name the other file does not have.
    let out = dedupe(&["--against-column", "quiz"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no column named \"quiz\""),
        "{}",
        text(&out.stderr)
    );
    // Only with --against.
    let out = bin()
        .arg("dedupe")
        .arg(&input)
        .args(["--against-column", "new"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // Against a line file, which has no columns: the message names the flag given.
    let lines = dir.path().join("split.txt");
    std::fs::write(&lines, format!("{}\n", p[0])).unwrap();
    let out = bin()
        .arg("dedupe")
        .arg(&input)
        .arg("--against")
        .arg(&lines)
        .args(["--against-column", "new"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("--against-column is about a column, but a line input has no columns"),
        "{stderr}"
    );
}

#[test]
fn dedupe_refuses_grids_and_shards() {
    let grid = "530070000\n".repeat(9);
    let out = run(&["dedupe"], grid.as_bytes());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("dedupe needs records on lines"));
    let out = run(
        &["dedupe", "--shard", "1/2"],
        shipped(4).join("\n").as_bytes(),
    );
    // `--shard` is not a flag of dedupe (the library refuses a sharded dedupe too).
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("sudoku-batch: error: unexpected argument '--shard'"),
        "{}",
        text(&out.stderr)
    );
}

// ---- rate -------------------------------------------------------------------------------------

#[test]
fn rate_is_the_same_at_any_thread_count_and_for_isomorphs() {
    let mut puzzles = shipped(40);
    puzzles.extend(
        common::puzzle_texts(&common::shipped("generated_minimal_2000.txt"))
            .into_iter()
            .take(39),
    );
    // A well-known hard one ("AI Escargot"), so that some figures are surely not zero.
    puzzles.push(HARD.into());
    let input = puzzles.join("\n");
    let rate = |args: &[&str], input: &[u8]| {
        let out = run(args, input);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        text(&out.stdout)
    };
    let one = rate(&["rate", "-j", "1", "--samples", "4"], input.as_bytes());
    let many = rate(&["rate", "-j", "7", "--samples", "4"], input.as_bytes());
    assert_eq!(one, many);
    let figures: Vec<f64> = one.lines().map(|l| l.parse().unwrap()).collect();
    assert_eq!(figures.len(), 80);
    assert!(figures.iter().any(|&f| f > 0.0), "{one}");
    let mut rng = Rng(3);
    let moved: Vec<String> = puzzles.iter().map(|p| isomorph(p, &mut rng)).collect();
    let other = rate(&["rate", "--samples", "4"], moved.join("\n").as_bytes());
    assert_eq!(one, other, "a rating belongs to the class");
    let reseeded = rate(&["rate", "--samples", "4", "--seed", "9"], input.as_bytes());
    assert_ne!(one, reseeded, "another seed, other isomorphs");
    // CSV: rating and singles columns; the easy set is solved by singles alone.
    let easy = common::puzzle_texts(&common::shipped("generated_easy_2000.txt"));
    let table = format!("puzzle\n{}\n{HARD}\n", easy[0]);
    let rows = read_csv(rate(&["rate"], table.as_bytes()).as_bytes());
    assert_eq!(rows[0], ["puzzle", "rating", "singles", "status"]);
    assert_eq!(rows[1][1..], ["0.00", "true", "ok"]);
    assert_eq!(rows[2][2], "false");
}
