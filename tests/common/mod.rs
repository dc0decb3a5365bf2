//! Shared test helpers: where the public data sets are, an independent checker of line-format
//! output written from the rules of Sudoku (it shares no code with the engine), and a run into a
//! closed pipe.
#![allow(dead_code)]

pub mod reference;

use std::path::{Path, PathBuf};

/// The names in `dir`, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Sets the modification time of `path` a year back, so that a write to it during a test surely
/// gives it another.
pub fn backdate(path: &Path) {
    let year_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(365 * 86400);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(year_ago)
        .unwrap();
}

/// A file this project ships in `data/`.
pub fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data")
        .join(name)
}

/// The public data directory. Tests that need it are `#[ignore = "needs SUDOKU_DATA_DIR"]`, so a
/// fresh clone shows them as ignored; `.ci/run` runs them with `--include-ignored` and the
/// variable set. Run without it, they fail loudly rather than pass without checking anything.
pub fn data_dir() -> PathBuf {
    let dir = PathBuf::from(std::env::var_os("SUDOKU_DATA_DIR").expect(
        "this test needs the public data sets: set SUDOKU_DATA_DIR (CI uses ../shared/data)",
    ));
    assert!(
        dir.is_dir(),
        "SUDOKU_DATA_DIR={} is not a directory",
        dir.display()
    );
    dir
}

/// The puzzles of a public data file, as written (see [`puzzle_texts`]).
pub fn data_puzzles(file: &str) -> Vec<String> {
    let puzzles = puzzle_texts(&data_dir().join(file));
    assert!(
        puzzles.len() > 300,
        "{file}: only {} puzzles",
        puzzles.len()
    );
    puzzles
}

/// The puzzle of each record of a line-format file, as written (its first 81 characters). The
/// records are those of the engine's own line reader; every one must parse.
pub fn puzzle_texts(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read puzzle file");
    let lines: Vec<&str> = text.split('\n').collect();
    sudoku_batch::line_puzzles(text.as_bytes())
        .map(|(line, p)| {
            p.unwrap_or_else(|e| panic!("{}:{line}: {e}", path.display()));
            lines[line - 1].trim_start()[..81].to_string()
        })
        .collect()
}

/// What [`check_output`] found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Checked {
    pub records: usize,
    pub solved: usize,
    /// Lines that claim no solution (a status such as `unsolvable` or `invalid: ...`).
    pub not_solved: usize,
}

/// Checks the output of `solve` in line format against its input by the rules of Sudoku alone:
///
/// - LF, CRLF or a lone CR ends a line; a record is a line that is not blank and does not start
///   with `#`; its puzzle is its first 81 characters after leading whitespace;
/// - the output has exactly one line per record, in order;
/// - a line of 81 digits is a claimed solution: every row, column and box holds 1-9 once, and
///   every given of its puzzle is kept;
/// - any other line is a status that starts with a letter; for the first `verify_unsolved` such
///   lines whose puzzle is well formed, the reference solver confirms there is no solution.
///
/// Panics with the record's line number on the first claim that does not hold.
pub fn check_output(input: &[u8], output: &str, verify_unsolved: usize) -> Checked {
    let input = String::from_utf8_lossy(input)
        .replace("\r\n", "\n")
        .replace('\r', "\n");
    let records: Vec<(usize, &str)> = input
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim_start()))
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .collect();
    let answers: Vec<&str> = output.lines().collect();
    assert_eq!(
        answers.len(),
        records.len(),
        "one output line per input record"
    );
    let mut checked = Checked::default();
    let mut verified = 0;
    for (&(line, record), answer) in records.iter().zip(&answers) {
        checked.records += 1;
        let puzzle: Option<reference::Cells> = record.get(..81).and_then(|p| {
            let mut cells = [0u8; 81];
            for (c, b) in cells.iter_mut().zip(p.bytes()) {
                *c = match b {
                    b'1'..=b'9' => b - b'0',
                    b'0' | b'.' => 0,
                    _ => return None,
                };
            }
            Some(cells)
        });
        if answer.len() == 81 && answer.bytes().all(|b| b.is_ascii_digit()) {
            let puzzle =
                puzzle.unwrap_or_else(|| panic!("line {line}: solution for a malformed record"));
            let grid: Vec<u8> = answer.bytes().map(|b| b - b'0').collect();
            for unit in units() {
                let mut seen = 0u16;
                for cell in unit {
                    seen |= 1 << grid[cell];
                }
                assert_eq!(
                    seen, 0b11_1111_1110,
                    "line {line}: not a valid grid: {answer}"
                );
            }
            for cell in 0..81 {
                assert!(
                    puzzle[cell] == 0 || puzzle[cell] == grid[cell],
                    "line {line}: the solution changes the given at cell {}",
                    cell + 1
                );
            }
            checked.solved += 1;
        } else {
            assert!(
                answer.starts_with(|c: char| c.is_ascii_alphabetic()),
                "line {line}: a status must start with a word: {answer:?}"
            );
            checked.not_solved += 1;
            if let Some(p) = puzzle {
                if verified < verify_unsolved && !reference::givens_clash(&p) {
                    verified += 1;
                    assert!(
                        reference::solutions(&p, 1).is_empty(),
                        "line {line}: claimed {answer:?}, but the puzzle has a solution"
                    );
                }
            }
        }
    }
    checked
}

/// The 27 units: rows, columns, boxes, as cell indices.
fn units() -> Vec<Vec<usize>> {
    let rows = (0..9).map(|r| (0..9).map(|c| r * 9 + c).collect());
    let cols = (0..9).map(|c| (0..9).map(|r| r * 9 + c).collect());
    let boxes = (0..9).map(|b| {
        (0..9)
            .map(|i| (b / 3 * 3 + i / 3) * 9 + b % 3 * 3 + i % 3)
            .collect()
    });
    rows.chain(cols).chain(boxes).collect()
}

/// Runs `cmd` with its stdout read for its first 10 bytes and then closed, as `| head -c 10`
/// does: the exit status and stderr once it has ended. A run that finishes before it notices
/// the closed pipe passes too; the tests give it far more than a pipe's buffer to write.
pub fn run_into_a_closed_pipe(cmd: &mut std::process::Command) -> (Option<i32>, String) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 10];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let done = child.wait_with_output().unwrap();
    (
        done.status.code(),
        String::from_utf8_lossy(&done.stderr).into_owned(),
    )
}
