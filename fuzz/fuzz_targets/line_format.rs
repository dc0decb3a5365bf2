#![no_main]
//! The line format on any bytes: never panics; one answer line per record, each a valid
//! solution of its puzzle or a status; cutting at a block or shard boundary changes nothing.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::formats::{line, lines, Format, Task};
use sudoku_batch::Grid;

#[path = "common.rs"]
mod common;

fuzz_target!(|input: (u16, &[u8])| {
    let (at, data) = input;
    common::check_format(&Format::Line, data, usize::from(at), b"");
    let out = common::answer(&Format::Line, data, Task::Solve { lexmin: false });
    let records: Vec<&[u8]> = lines(data)
        .filter(|l| line::parse_line(l).is_some())
        .collect();
    let answers: Vec<&[u8]> = out
        .bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(records.len(), answers.len());
    for (record, answer) in records.iter().zip(&answers) {
        match Grid::parse(answer) {
            Ok(solution) => {
                let puzzle = line::parse_line(record)
                    .unwrap()
                    .expect("a solved record parses");
                assert!(solution.solves(&puzzle));
            }
            Err(_) => assert!(answer[0].is_ascii_alphabetic()),
        }
    }
});
