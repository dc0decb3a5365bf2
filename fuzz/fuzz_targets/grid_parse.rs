#![no_main]
//! Grid parsing on any bytes: never panics; a parsed grid prints back to an equal grid; an
//! error names a real position.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::{Grid, ParseError};

fuzz_target!(|data: &[u8]| {
    match Grid::parse(data) {
        Ok(g) => assert_eq!(Grid::parse(g.to_line().as_bytes()), Ok(g)),
        Err(ParseError::Length { found }) => {
            // Characters where the text is UTF-8, else bytes.
            let length = std::str::from_utf8(data).map_or(data.len(), |t| t.chars().count());
            assert_eq!(found, length);
            assert_ne!(found, 81);
        }
        Err(ParseError::BadByte { position, byte }) => assert_eq!(data[position - 1], byte),
        Err(ParseError::BadChar { position, ch }) => {
            let text = std::str::from_utf8(data).expect("named characters are of UTF-8 text");
            assert_eq!(text.chars().count(), 81);
            assert_eq!(text.chars().nth(position - 1), Some(ch));
            assert!(!ch.is_ascii());
        }
        Err(other) => panic!("an error of a new kind: {other:?}"),
    }
});
