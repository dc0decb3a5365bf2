//! Parsing never panics, whatever the bytes, and its errors point at the real problem.

use proptest::prelude::*;
use sudoku_batch::{Grid, ParseError};

proptest! {
    #[test]
    fn parse_never_panics_and_errors_name_the_byte(bytes in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        // Exactly 81 bytes, mostly valid, so the bad-byte branch is exercised.
        proptest::collection::vec(
            prop_oneof![20 => proptest::sample::select(b"0123456789.".to_vec()), 1 => any::<u8>()],
            81,
        ),
        // 81 characters, mostly valid, some outside ASCII: the bad-character branch.
        proptest::collection::vec(
            prop_oneof![20 => proptest::sample::select(vec!['1', '.', '0']), 1 => any::<char>()],
            81,
        ).prop_map(|chars| chars.into_iter().collect::<String>().into_bytes()),
        // About 81 characters, some outside ASCII: lengths are counted in characters.
        proptest::collection::vec(
            prop_oneof![20 => proptest::sample::select(vec!['1', '.', '0']), 1 => any::<char>()],
            76..86,
        ).prop_map(|chars| chars.into_iter().collect::<String>().into_bytes()),
    ]) {
        match Grid::parse(&bytes) {
            Ok(g) => {
                prop_assert_eq!(bytes.len(), 81);
                let line = g.to_line();
                for (b, c) in bytes.iter().zip(line.bytes()) {
                    prop_assert_eq!(if *b == b'.' { b'0' } else { *b }, c);
                }
            }
            Err(ParseError::Length { found }) => {
                // In characters where the text is UTF-8, else in bytes; never 81.
                let expected = std::str::from_utf8(&bytes).map_or(bytes.len(), |t| t.chars().count());
                prop_assert!(found == expected && found != 81, "{found} for {bytes:?}");
            }
            Err(ParseError::BadByte { position, byte }) => {
                // 81 bytes, ASCII or not UTF-8; or 81 characters some of which (after this
                // one) take more.
                let chars = std::str::from_utf8(&bytes).map(|t| t.chars().count());
                prop_assert!(bytes.len() == 81 && (bytes.is_ascii() || chars.is_err()) || chars == Ok(81));
                prop_assert_eq!(bytes[position - 1], byte);
                prop_assert!(!matches!(byte, b'0'..=b'9' | b'.'));
                prop_assert!(bytes[..position - 1].iter().all(|b| matches!(b, b'0'..=b'9' | b'.')));
            }
            Err(ParseError::BadChar { position, ch }) => {
                let text = std::str::from_utf8(&bytes).expect("a named character is UTF-8");
                prop_assert_eq!(text.chars().count(), 81);
                prop_assert!(bytes.len() != 81 && !ch.is_ascii());
                prop_assert_eq!(text.chars().nth(position - 1), Some(ch));
                prop_assert!(text.chars().take(position - 1).all(|c| matches!(c, '0'..='9' | '.')));
            }
            Err(other) => prop_assert!(false, "an error of a new kind: {other:?}"),
        }
    }

    #[test]
    fn digit_lines_round_trip(cells in proptest::collection::vec(0u8..=9, 81)) {
        let line: String = cells.iter().map(|&v| (b'0' + v) as char).collect();
        let g = Grid::parse(line.as_bytes()).unwrap();
        prop_assert_eq!(g.to_line(), line);
        prop_assert_eq!(g.cells().as_slice(), cells.as_slice());
    }
}
