#![no_main]
//! The line format on any bytes: never panics; one answer line per record, each a valid
//! solution of its puzzle or a status; cutting at a block or shard boundary changes nothing.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::fuzzing::{lines, parse_line, Format};
use sudoku_batch::{Grid, Task};

#[path = "common.rs"]
mod common;

fuzz_target!(|input: (u16, &[u8])| {
    let (at, data) = input;
    common::check_format(&Format::line(), data, usize::from(at));
    let out = common::answer(&Format::line(), data, Task::Solve { lexmin: false });
    let records: Vec<&[u8]> = lines(data).filter(|l| parse_line(l).is_some()).collect();
    let answers: Vec<&[u8]> = out
        .bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(records.len(), answers.len());
    for (record, answer) in records.iter().zip(&answers) {
        match Grid::parse(answer) {
            Ok(solution) => {
                let puzzle = parse_line(record).unwrap().expect("a solved record parses");
                assert!(solution.solves(&puzzle));
            }
            Err(_) => assert!(answer[0].is_ascii_alphabetic()),
        }
    }
});
