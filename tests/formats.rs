//! End-to-end tests of the record formats through the real binary: grid (both classic cases byte
//! for byte, several grids, a malformed grid among good ones), CSV (both dataset layouts, quoted
//! fields, CRLF), `check`, and `--lexmin` against an independent reference solver.

mod common;

use assert_cmd::Command;
use sudoku_batch::Grid;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sudoku-batch"))
}

/// (puzzle, solution) pairs of the shipped sample, solutions from the binary (checked below).
fn sample_pairs() -> Vec<(String, String)> {
    let run = bin()
        .args(["solve", "-q"])
        .arg(common::shipped("sample.txt"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let puzzles = common::puzzle_texts(&common::shipped("sample.txt"));
    let pairs: Vec<(String, String)> = puzzles
        .into_iter()
        .zip(
            String::from_utf8(run.stdout)
                .unwrap()
                .lines()
                .map(String::from),
        )
        .collect();
    for (p, s) in &pairs {
        let (p, s): (Grid, Grid) = (p.parse().unwrap(), s.parse().unwrap());
        assert!(s.solves(&p));
    }
    pairs
}

fn to_grid_text(line: &str, spaced: bool) -> String {
    let mut out = String::new();
    for row in line.as_bytes().chunks(9) {
        let cells: Vec<String> = row
            .iter()
            .map(|&b| {
                if b == b'.' {
                    "0".into()
                } else {
                    (b as char).to_string()
                }
            })
            .collect();
        out += &cells.join(if spaced { " " } else { "" });
        out += "\n";
    }
    out
}

const CLASSIC_SPACES_OUT: &str = "\
1 3 5 4 6 9 2 7 8
7 8 2 1 3 5 6 4 9
4 6 9 2 7 8 1 3 5
3 2 1 5 4 6 8 9 7
8 7 4 9 1 3 5 2 6
5 9 6 8 2 7 4 1 3
9 1 7 6 5 2 3 8 4
6 4 3 7 8 1 9 5 2
2 5 8 3 9 4 7 6 1
";

const CLASSIC_LEXMIN_OUT: &str = "\
143628579
572139468
986754231
391542786
468917352
725863914
237481695
619275843
854396127
";

#[test]
fn classic_task_with_spaces_byte_for_byte() {
    bin()
        .args(["solve", "-q"])
        .arg(common::shipped("classic_spaces.txt"))
        .assert()
        .code(0)
        .stdout(CLASSIC_SPACES_OUT);
    // Detected without --format, and the same from stdin with the format named.
    bin()
        .args(["solve", "-q", "--format", "grid", "-"])
        .write_stdin(std::fs::read(common::shipped("classic_spaces.txt")).unwrap())
        .assert()
        .code(0)
        .stdout(CLASSIC_SPACES_OUT);
}

#[test]
fn classic_variant_lexmin_byte_for_byte() {
    bin()
        .args(["solve", "-q", "--lexmin"])
        .arg(common::shipped("classic_lexmin.txt"))
        .assert()
        .code(0)
        .stdout(CLASSIC_LEXMIN_OUT);
}

#[test]
fn several_grids_with_a_malformed_one_among_them() {
    let pairs = sample_pairs();
    let mut input = String::new();
    input += &to_grid_text(&pairs[0].0, true); // lines 1-9
    input += "\n"; // 10
    let short = to_grid_text(&pairs[1].0, false);
    input += &short
        .lines()
        .take(8)
        .map(|l| format!("{l}\n"))
        .collect::<String>(); // 11-18
    input += "\r\n"; // 19: a CRLF blank line
    let mut bad = to_grid_text(&pairs[2].0, false);
    bad.replace_range(20..21, "x"); // row 3 of this grid (line 22)
    input += &bad; // 20-28
    input += "\n\n"; // 29-30
    input += "# a comment line\n"; // 31
    input += &to_grid_text(&pairs[3].0, false); // 32-40
    input.pop(); // no final newline
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grids.txt");
    std::fs::write(&path, &input).unwrap();
    let run = bin().arg("solve").arg(&path).output().unwrap();
    assert_eq!(run.status.code(), Some(1));
    let expected = format!(
        "{}\ninvalid: a grid needs 9 rows, this one has 8\n\ninvalid: row 3 is not nine cells (digits, 0 or . for blanks), unseparated, separated by single spaces, or in boxes\n\n{}",
        to_grid_text(&pairs[0].1, true),
        to_grid_text(&pairs[3].1, false)
    );
    assert_eq!(String::from_utf8(run.stdout).unwrap(), expected);
    let stderr = String::from_utf8(run.stderr).unwrap();
    let name = path.display();
    assert!(
        stderr.contains(&format!("{name}:11: invalid: a grid needs 9 rows")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{name}:22: invalid: row 3 ")),
        "{stderr}"
    );
    assert!(
        stderr.contains("records 4, solved 2, unsolvable 0, invalid 2"),
        "{stderr}"
    );
}

#[test]
fn many_grids_cross_block_boundaries_in_order() {
    let pairs = sample_pairs();
    let n = 30_000; // about 2.7 MB: many blocks
    let mut input = String::new();
    let mut expected = String::new();
    for i in 0..n {
        let (p, s) = &pairs[i % pairs.len()];
        if i > 0 {
            input += "\n";
            expected += "\n";
        }
        input += &to_grid_text(p, i % 3 == 0);
        expected += &to_grid_text(s, i % 3 == 0);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("grids.txt");
    std::fs::write(&path, &input).unwrap();
    let run = bin()
        .args(["solve", "-q", "-j", "8"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    assert!(run.stdout == expected.as_bytes(), "grid output differs");
    let piped = bin()
        .args(["solve", "-q", "-j", "3", "--format", "grid"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        piped.stdout == expected.as_bytes(),
        "streamed grid output differs"
    );
}

/// `line`'s cells drawn in boxes, in one of four styles forums and other solvers print (the
/// first and the last with borders): blanks as `.`, or as the solution's digits when `line` is
/// one.
fn to_boxed_text(line: &str, style: usize) -> String {
    // (top, bottom, rule, row's start, between cells of a box, between boxes, row's end)
    let (top, bottom, rule, start, inner, between, end) = match style {
        0 => (
            "*-----------*\n",
            "*-----------*\n",
            "|---+---+---|\n",
            "|",
            "",
            "|",
            "|",
        ),
        1 => ("", "", " ------+-------+------\n", " ", " ", " | ", ""),
        2 => ("", "", "", "", "", " ", ""),
        _ => (
            ".-------.-------.-------.\n",
            "'-------'-------'-------'\n",
            ":-------+-------+-------:\n",
            "| ",
            " ",
            " | ",
            " |",
        ),
    };
    let mut out = top.to_string();
    for (i, row) in line.as_bytes().chunks(9).enumerate() {
        if i == 3 || i == 6 {
            out += rule;
        }
        out += start;
        for (k, &b) in row.iter().enumerate() {
            if k == 3 || k == 6 {
                out += between;
            } else if k > 0 {
                out += inner;
            }
            out.push(if b == b'0' { '.' } else { b as char });
        }
        out += end;
        out += "\n";
    }
    out + bottom
}

#[test]
fn boxed_grids_are_answered_in_their_own_drawing() {
    // Three drawings by turns, enough to cross many block boundaries, auto-detected from a file
    // and from a pipe; one grid with a bad row answered in its place.
    let pairs = sample_pairs();
    let n = 12_000;
    let bad = 4_321;
    let mut input = String::new();
    let mut expected = String::new();
    let mut bad_line = 0;
    for i in 0..n {
        let (p, s) = &pairs[i % pairs.len()];
        if i > 0 {
            input += "\n";
            expected += "\n";
        }
        if i == bad {
            assert_eq!(i % 3, 1, "a drawing whose first line is row 1");
            bad_line = input.lines().count() + 1;
            input += &to_boxed_text(p, i % 3).replacen('.', "x", 1);
            expected += "invalid: row 1 is not nine cells (digits, 0 or . for blanks), unseparated, separated by single spaces, or in boxes\n";
        } else {
            input += &to_boxed_text(p, i % 3);
            expected += &to_boxed_text(s, i % 3);
        }
    }
    assert!(input.contains("|..") && input.contains(". . |") && input.contains("... ..."));
    let message = "invalid: row 1 is not";
    assert_answered_with_one_invalid("boxed.txt", &input, &expected, n, bad_line, message);
}

/// Solves `input` (`n` records) from a file at `-j 8` and from a pipe at `-j 3`: both outputs are
/// `expected`, and the file's one invalid record, on line `line`, is reported first on stderr
/// with `message`, then counted in the summary.
fn assert_answered_with_one_invalid(
    name: &str,
    input: &str,
    expected: &str,
    n: usize,
    line: usize,
    message: &str,
) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, input).unwrap();
    let run = bin()
        .args(["solve", "-j", "8"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout == expected.as_bytes(), "{name}: output differs");
    let stderr = String::from_utf8(run.stderr).unwrap();
    let message = format!("{}:{line}: {message}", path.display());
    assert!(stderr.starts_with(&message), "{stderr}");
    let summary = format!("records {n}, solved {}, unsolvable 0, invalid 1", n - 1);
    assert!(stderr.contains(&summary), "{stderr}");
    let piped = bin()
        .args(["solve", "-q", "-j", "3"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        piped.stdout == expected.as_bytes(),
        "{name}: streamed output differs"
    );
}

#[test]
fn bordered_grids_back_to_back_are_answered_one_by_one() {
    // Grids with top and bottom borders and no blank line between them, as `cat` joins exported
    // grids: each bottom border ends a grid. Two drawings by turns, enough to cross many block
    // boundaries, from a file and from a pipe; one grid short of a row answered in its place.
    let pairs = sample_pairs();
    let n = 12_000;
    let short = 5_001;
    let mut input = String::new();
    let mut expected = String::new();
    let mut short_line = 0;
    for i in 0..n {
        let (p, s) = &pairs[i % pairs.len()];
        let style = if i % 2 == 0 { 0 } else { 3 };
        if i > 0 {
            expected += "\n";
        }
        if i == short {
            short_line = input.lines().count() + 1;
            let drawing = to_boxed_text(p, style);
            let mut rows = drawing.lines().filter(|l| !l.contains('-')).skip(4);
            let fifth = rows.next().unwrap();
            input += &drawing.replacen(&format!("{fifth}\n"), "", 1);
            expected += "invalid: a grid needs 9 rows, this one has 8\n";
        } else {
            input += &to_boxed_text(p, style);
            expected += &to_boxed_text(s, style);
        }
    }
    assert!(!input.contains("\n\n") && input.contains("*\n.---") && input.contains("'\n*---"));
    let message = "invalid: a grid needs 9 rows";
    assert_answered_with_one_invalid("bordered.txt", &input, &expected, n, short_line, message);
}

#[test]
fn titled_grids_without_blank_lines_as_project_euler_writes_them() {
    // `Grid 01` before each grid, no blank lines: each title ends the grid before it. Enough
    // grids to cross many block boundaries, one of them short a row; detected, not named.
    let pairs = sample_pairs();
    let n = 25_000;
    let short = 7;
    let mut input = String::new();
    let mut expected = String::new();
    for i in 0..n {
        let (p, s) = &pairs[i % pairs.len()];
        input += &format!("Grid {:02}\n", i + 1);
        if i > 0 {
            expected += "\n";
        }
        if i == short {
            let rows: Vec<String> = to_grid_text(p, false).lines().map(String::from).collect();
            input += &(rows[..8].join("\n") + "\n");
            expected += "invalid: a grid needs 9 rows, this one has 8\n";
        } else {
            input += &to_grid_text(p, false);
            expected += &to_grid_text(s, false);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p096_sudoku.txt");
    std::fs::write(&path, &input).unwrap();
    let run = bin()
        .args(["solve", "-j", "8"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(
        run.stdout == expected.as_bytes(),
        "titled grid output differs"
    );
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "{}:{}: invalid: a grid needs 9 rows",
            path.display(),
            10 * short + 2
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "records {n}, solved {}, unsolvable 0, invalid 1",
            n - 1
        )),
        "{stderr}"
    );
    let piped = bin()
        .args(["solve", "-q", "-j", "3"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(
        piped.stdout == expected.as_bytes(),
        "streamed titled grid output differs"
    );
    let shards: Vec<u8> = (1..=3)
        .flat_map(|k| {
            bin()
                .args(["solve", "-q", "--shard", &format!("{k}/3")])
                .arg(&path)
                .output()
                .unwrap()
                .stdout
        })
        .collect();
    assert!(
        shards == expected.as_bytes(),
        "sharded titled grid output differs"
    );
    // Shards that hold only a title line: no answer, and no separator before the next one's.
    std::fs::write(
        &path,
        format!("Grid 01\n{}", to_grid_text(&pairs[0].0, false)),
    )
    .unwrap();
    let shards: Vec<u8> = (1..=20)
        .flat_map(|k| {
            bin()
                .args(["solve", "-q", "--shard", &format!("{k}/20")])
                .arg(&path)
                .output()
                .unwrap()
                .stdout
        })
        .collect();
    assert_eq!(
        String::from_utf8(shards).unwrap(),
        to_grid_text(&pairs[0].1, false)
    );
}

fn read_csv(bytes: &[u8]) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(bytes)
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect()
}

#[test]
fn csv_quizzes_solutions_layout() {
    let pairs = sample_pairs();
    let mut input = String::from("quizzes,solutions\r\n");
    for (i, (p, s)) in pairs.iter().take(5).enumerate() {
        let p = p.replace('.', "0");
        if i == 2 {
            input += &format!("\"{p}\",\"{s}\"\r\n");
        } else {
            input += &format!("{p},{s}\r\n");
        }
    }
    input += "0000,bad\r\n";
    input += &pairs[5].0.replace('.', "0"); // no final newline, no solution column
    let run = bin()
        .args(["solve", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let rows = read_csv(&run.stdout);
    // The solutions column takes the answers in place; a row without one keeps its value.
    assert_eq!(rows[0], ["quizzes", "solutions", "status"]);
    assert_eq!(rows.len(), 8);
    for (row, (p, s)) in rows[1..6].iter().zip(&pairs) {
        assert_eq!(row, &[p.replace('.', "0"), s.clone(), "solved".into()]);
    }
    assert_eq!(
        rows[6],
        ["0000", "bad", "invalid: expected 81 cells, found 4"]
    );
    assert_eq!(rows[7][1], pairs[5].1);
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(
        stderr.contains("<stdin>:7: invalid: expected 81 cells, found 4"),
        "{stderr}"
    );
}

#[test]
fn csv_id_puzzle_layout_with_quoted_fields() {
    let pairs = sample_pairs();
    let mut input = String::from("# made for this test\n\nid,puzzle,solution,clues,difficulty\n");
    input += &format!("\"a,1\",{},{},25,\"1.5\"\n", pairs[0].0, pairs[0].1);
    input += &format!("\"multi\nline\",\"{}\",{},24,2\n", pairs[1].0, pairs[1].1);
    input += &format!("\"say \"\"hi\"\"\",{},{},23,3\n", pairs[2].0, pairs[2].1);
    input += "  \n"; // a blank row is skipped
    input += &format!("x9,{},,22,4", "1".repeat(81));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("id.csv");
    std::fs::write(&path, &input).unwrap();
    let out = dir.path().join("out.csv");
    let run = bin()
        .arg("solve")
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let rows = read_csv(&std::fs::read(&out).unwrap());
    // Every column is kept, in order; the solution column is filled in place.
    let header = ["id", "puzzle", "solution", "clues", "difficulty"];
    assert_eq!(rows[0], [&header[..], &["status"]].concat());
    let (p, s) = (
        |i: usize| pairs[i].0.as_str(),
        |i: usize| pairs[i].1.as_str(),
    );
    assert_eq!(rows[1], ["a,1", p(0), s(0), "25", "1.5", "solved"]);
    assert_eq!(rows[2], ["multi\nline", p(1), s(1), "24", "2", "solved"]);
    assert_eq!(rows[3], ["say \"hi\"", p(2), s(2), "23", "3", "solved"]);
    assert_eq!(rows[4][..5], ["x9", &"1".repeat(81), "", "22", "4"]);
    assert!(
        rows[4][5].starts_with("invalid: givens clash"),
        "{:?}",
        rows[4]
    );
    assert_eq!(rows.len(), 5);
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(
        stderr.contains(&format!("{}:9: invalid: givens clash", path.display())),
        "{stderr}"
    );
    // The puzzle column by name, and count through the same layout.
    let counted = bin()
        .args(["count", "-q", "--column", "puzzle"])
        .arg(&path)
        .output()
        .unwrap();
    let rows = read_csv(&counted.stdout);
    assert_eq!(rows[0], [&header[..], &["count", "status"]].concat());
    assert_eq!(rows[1][5], "1");
    bin()
        .args(["solve", "--column", "nope"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no column named \"nope\""));
}

#[test]
fn check_finds_a_deliberately_wrong_solution() {
    let pairs = sample_pairs();
    // Swap the first two digits of a solution: still complete, no longer valid.
    let mut wrong = pairs[1].1.clone().into_bytes();
    wrong.swap(0, 1);
    let wrong = String::from_utf8(wrong).unwrap();
    let mut input = String::from("id,puzzle,solution,clues,difficulty\n");
    input += &format!("1,{},{},25,1\n", pairs[0].0, pairs[0].1);
    input += &format!("2,{},{wrong},25,1\n", pairs[1].0);
    input += &format!("3,{},{},25,1\n", pairs[2].0, pairs[2].1);
    let run = bin()
        .args(["check", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let rows = read_csv(&run.stdout);
    assert_eq!(
        rows[0],
        ["id", "puzzle", "solution", "clues", "difficulty", "status"]
    );
    assert_eq!(rows[1][5], "ok");
    assert!(rows[2][5].starts_with("wrong: "), "{:?}", rows[2]);
    assert_eq!(rows[3][5], "ok");
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(stderr.contains("<stdin>:3: wrong: "), "{stderr}");
    assert!(stderr.contains("wrong 1"), "{stderr}");

    // The line layout `puzzle<sep>solution`, and --unique on a puzzle with two solutions.
    let open = format!("{}{}", ".".repeat(18), &pairs[0].1[18..]);
    let lines = format!("{} {}\n{};{}\n", pairs[0].0, pairs[0].1, open, pairs[0].1);
    bin()
        .args(["check", "-q"])
        .write_stdin(lines.clone())
        .assert()
        .code(0)
        .stdout("ok\nok\n");
    let run = bin()
        .args(["check", "--unique"])
        .write_stdin(lines)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(run.stdout).unwrap(),
        "ok\nwrong: puzzle has more than one solution\n"
    );
    assert!(String::from_utf8(run.stderr)
        .unwrap()
        .contains("<stdin>:2: wrong: "));
    // All passing: exit 0.
    let good = format!("quizzes,solutions\n{},{}\n", pairs[4].0, pairs[4].1);
    bin()
        .args(["check", "-q"])
        .write_stdin(good)
        .assert()
        .code(0);
}

/// Reference for lexmin, sharing no code with the crate: row-major backtracking with digits tried
/// in ascending order; the first solution it reaches is the lexicographically smallest.
fn reference_lexmin(puzzle: &str) -> Option<String> {
    let mut g: Vec<u8> = puzzle
        .bytes()
        .map(|b| if b == b'.' { 0 } else { b - b'0' })
        .collect();
    let fits = |g: &[u8], i: usize, d: u8| {
        let (r, c) = (i / 9, i % 9);
        (0..9).all(|k| {
            let box_cell = (r / 3 * 3 + k / 3) * 9 + c / 3 * 3 + k % 3;
            (r * 9 + k == i || g[r * 9 + k] != d)
                && (k * 9 + c == i || g[k * 9 + c] != d)
                && (box_cell == i || g[box_cell] != d)
        })
    };
    if (0..81).any(|i| g[i] != 0 && !fits(&g, i, g[i])) {
        return None;
    }
    fn go(g: &mut Vec<u8>, i: usize, fits: &dyn Fn(&[u8], usize, u8) -> bool) -> bool {
        if i == 81 {
            return true;
        }
        if g[i] != 0 {
            return go(g, i + 1, fits);
        }
        for d in 1..=9 {
            if fits(g, i, d) {
                g[i] = d;
                if go(g, i + 1, fits) {
                    return true;
                }
            }
        }
        g[i] = 0;
        false
    }
    go(&mut g, 0, &fits).then(|| g.iter().map(|d| (b'0' + d) as char).collect())
}

#[test]
fn lexmin_matches_an_independent_reference_on_multi_solution_puzzles() {
    let pairs = sample_pairs();
    let mut puzzles = vec![".".repeat(81)];
    for (k, (_, s)) in pairs.iter().enumerate() {
        // Two rows of one band emptied: swapping them gives a second solution, so at least two.
        let band = k % 3 * 27;
        let mut p = s.clone().into_bytes();
        for cell in p.iter_mut().skip(band).take(18) {
            *cell = b'.';
        }
        for i in 0..10 {
            p[(k * 13 + i * 31) % 81] = b'.';
        }
        puzzles.push(String::from_utf8(p).unwrap());
    }
    let input = puzzles.join("\n");
    let counts = bin()
        .args(["count", "-q"])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert!(
        String::from_utf8(counts.stdout)
            .unwrap()
            .lines()
            .all(|l| l == "2+"),
        "every test puzzle has several solutions"
    );
    let run = bin()
        .args(["solve", "-q", "--lexmin", "-j", "4"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let got: Vec<String> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got.len(), puzzles.len());
    for (p, g) in puzzles.iter().zip(&got) {
        assert_eq!(Some(g.clone()), reference_lexmin(p), "puzzle {p}");
    }
    assert_eq!(&got[0][..27], "123456789456789123789123456");
}

#[test]
#[ignore = "needs SUDOKU_DATA_DIR"]
fn lexmin_on_the_public_multi_solution_set() {
    let mut puzzles = common::data_puzzles("puzzles7_serg_benchmark");
    puzzles.truncate(300);
    let run = bin()
        .args(["solve", "-q", "--lexmin"])
        .write_stdin(puzzles.join("\n"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(0));
    let out = String::from_utf8(run.stdout).unwrap();
    for (p, g) in puzzles.iter().zip(out.lines()) {
        assert_eq!(Some(g.to_string()), reference_lexmin(p), "puzzle {p}");
    }
    assert_eq!(out.lines().count(), puzzles.len());
}

/// Bare puzzle lines (81 cells and a line end, which the reader takes without a scan for the
/// end) give the same answers, messages and line numbers as the same puzzles with a trailing
/// field (read line by line), across many small blocks (`-j 200`) and every kind of line end,
/// bad records and comments included.
#[test]
fn bare_puzzle_lines_read_like_any_other_line() {
    let puzzles = common::puzzle_texts(&common::shipped("generated_minimal_2000.txt"));
    let ends = ["\n", "\r\n", "\r"];
    let (mut bare, mut fielded) = (String::new(), String::new());
    for (i, p) in puzzles.iter().enumerate() {
        let end = ends[i % 3];
        let p = match i % 97 {
            5 => format!("{}x", &p[..80]), // a bad cell
            11 => "# a comment".to_string(),
            _ => p.clone(),
        };
        bare.push_str(&format!("{p}{end}"));
        let sep = if p.starts_with('#') { "" } else { " f" };
        fielded.push_str(&format!("{p}{sep}{end}"));
    }
    let run = |text: &str, task: &[&str]| {
        let out = bin()
            .args(task)
            .args(["-j", "200", "--max-messages", "100", "-"])
            .write_stdin(text)
            .output()
            .unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        // The summary's timing differs from run to run; everything before it must not.
        let messages: Vec<String> = stderr
            .lines()
            .filter(|l| !l.starts_with("sudoku-batch: records"))
            .map(String::from)
            .collect();
        (out.status.code(), out.stdout, messages)
    };
    for task in [&["solve"][..], &["count"], &["dedupe", "--exact"]] {
        let (code, stdout, messages) = run(&bare, task);
        let (want_code, mut want_stdout, want_messages) = run(&fielded, task);
        if task[0] == "dedupe" {
            // A filter copies each kept record as it came: drop the field it was given.
            want_stdout = String::from_utf8(want_stdout)
                .unwrap()
                .replace(" f\n", "\n")
                .into_bytes();
        }
        assert_eq!(code, want_code, "{task:?}");
        assert!(stdout == want_stdout, "{task:?}: the answers differ");
        assert_eq!(messages, want_messages, "{task:?}");
        assert!(
            messages.iter().any(|m| m.starts_with("<stdin>:6: invalid")),
            "{messages:?}"
        );
    }
}
