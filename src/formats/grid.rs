//! The grid format: nine lines of nine cells per puzzle (`0` or `.` for blanks), the cells either
//! separated by single spaces (`0 3 5 4 6 9 2 7 8`) or not at all (`035469278`). Grids are
//! separated by blank lines; `#` lines are ignored. A record is a run of non-blank lines, so a
//! malformed grid never swallows the next one.
//!
//! Output keeps the style of each input grid: nine lines, spaced if the input was; grids are
//! separated by a blank line. A grid that is not answered gets one status line instead.

use super::answer::{answer, Invalid, Outcome, Task};
use super::block::{line_end_before, lines, BlockOut};
use crate::grid::{Grid, CELLS};

/// Parses one row: nine cells, unseparated or separated by single spaces. Returns the values
/// (`0` blank) and whether the row was spaced.
pub fn parse_row(text: &[u8]) -> Option<([u8; 9], bool)> {
    let (spaced, step) = match text.len() {
        9 => (false, 1),
        17 => (true, 2),
        _ => return None,
    };
    if spaced && (1..17).step_by(2).any(|i| text[i] != b' ') {
        return None;
    }
    let mut row = [0u8; 9];
    for (k, cell) in row.iter_mut().enumerate() {
        *cell = match text[k * step] {
            b @ b'1'..=b'9' => b - b'0',
            b'0' | b'.' => 0,
            _ => return None,
        };
    }
    Some((row, spaced))
}

/// Offset just past the last blank line of `buf` that has its line end (a grid boundary).
pub fn last_boundary(buf: &[u8]) -> Option<usize> {
    let mut limit = buf.len();
    loop {
        let cut = line_end_before(buf, limit)?;
        // The line this end closes runs from the previous line end to its terminator.
        let crlf = cut >= 2 && buf[cut - 1] == b'\n' && buf[cut - 2] == b'\r';
        let terminator = cut - 1 - usize::from(crlf);
        let start = line_end_before(buf, terminator).unwrap_or(0);
        if buf[start..terminator].trim_ascii().is_empty() {
            return Some(cut);
        }
        if start == 0 {
            return None;
        }
        limit = start;
    }
}

struct Pending {
    first_line: u64,
    rows: usize,
    cells: [u8; CELLS],
    spaced: bool,
    /// The first problem, and the line it is on.
    error: Option<(u64, Invalid)>,
}

/// Parses and answers every grid of `block`.
pub fn process(block: &[u8], task: Task, out: &mut BlockOut) {
    let mut pending: Option<Pending> = None;
    for (i, line) in lines(block).enumerate() {
        let line_no = i as u64 + 1;
        let line = line.trim_ascii();
        if line.is_empty() {
            if let Some(p) = pending.take() {
                finish(p, task, out);
            }
            continue;
        }
        if line[0] == b'#' {
            continue;
        }
        let p = pending.get_or_insert(Pending {
            first_line: line_no,
            rows: 0,
            cells: [0; CELLS],
            spaced: false,
            error: None,
        });
        p.rows += 1;
        if p.rows > 9 || p.error.is_some() {
            continue;
        }
        match parse_row(line) {
            Some((row, spaced)) => {
                if p.rows == 1 {
                    p.spaced = spaced;
                }
                p.cells[(p.rows - 1) * 9..p.rows * 9].copy_from_slice(&row);
            }
            None => p.error = Some((line_no, Invalid::GridRow(p.rows))),
        }
    }
    if let Some(p) = pending.take() {
        finish(p, task, out);
    }
}

fn finish(p: Pending, task: Task, out: &mut BlockOut) {
    if !out.bytes.is_empty() {
        out.bytes.push(b'\n');
    }
    let (line, outcome) = match p.error {
        Some((line, invalid)) => (line, Outcome::Invalid(invalid)),
        None if p.rows != 9 => (p.first_line, Outcome::Invalid(Invalid::GridRows(p.rows))),
        None => {
            let puzzle = Grid::from_cells(p.cells).expect("cells are 0..=9");
            // A grid carries no solution: `open` refuses `check` on grids.
            (p.first_line, answer(task, &puzzle, None))
        }
    };
    out.count(&outcome, || line);
    match outcome {
        Outcome::Solved(s) => push_grid(&mut out.bytes, &s, p.spaced),
        other => other.write_line(&mut out.bytes),
    }
}

/// Appends nine lines of nine digits, spaced or not.
pub fn push_grid(bytes: &mut Vec<u8>, grid: &Grid, spaced: bool) {
    for row in grid.cells().chunks_exact(9) {
        for (k, &v) in row.iter().enumerate() {
            if spaced && k > 0 {
                bytes.push(b' ');
            }
            bytes.push(b'0' + v);
        }
        bytes.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_parse_in_both_styles() {
        assert_eq!(
            parse_row(b"0 3 5 4 6 9 2 7 8"),
            Some(([0, 3, 5, 4, 6, 9, 2, 7, 8], true))
        );
        assert_eq!(
            parse_row(b"10300050."),
            Some(([1, 0, 3, 0, 0, 0, 5, 0, 0], false))
        );
        assert_eq!(parse_row(b"0 3 5 4 6 9 2 7  "), None);
        assert_eq!(parse_row(b"0  3 5 4 6 9 2 7 8"), None);
        assert_eq!(parse_row(b"12345678x"), None);
    }

    #[test]
    fn boundary_is_after_the_last_blank_line() {
        assert_eq!(last_boundary(b"123\n\n456\n"), Some(5));
        assert_eq!(last_boundary(b"123\r\n \r\n456"), Some(8));
        assert_eq!(last_boundary(b"123\n456\n"), None);
        assert_eq!(last_boundary(b"\n123"), Some(1));
        assert_eq!(last_boundary(b"123\r\r456\r"), Some(5));
        assert_eq!(last_boundary(b"123\r\n\r\n456\r\n"), Some(7));
    }
}
