#![no_main]
//! Grid parsing on any bytes: never panics; a parsed grid prints back to an equal grid; an
//! error names a real position.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::{Grid, ParseError};

fuzz_target!(|data: &[u8]| {
    match Grid::parse(data) {
        Ok(g) => assert_eq!(Grid::parse(g.to_line().as_bytes()), Ok(g)),
        Err(ParseError::Length { found }) => assert_eq!(found, data.len()),
        Err(ParseError::BadByte { position, byte }) => assert_eq!(data[position - 1], byte),
        Err(other) => panic!("an error of a new kind: {other:?}"),
    }
});
