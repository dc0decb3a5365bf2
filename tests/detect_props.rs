//! Detection is a function of the input's bytes alone: wherever a reader stops waiting (at a
//! prefix that [`decided`] says settles the format, or at the whole sample), the choice is the
//! one the whole sample gives. Inputs are built from the pieces real files hold: puzzle lines
//! with and without trailing fields, damaged puzzles, grid rows (plain and boxed) and rules,
//! comments, blank lines, CSV headers and rows, and words.

use proptest::prelude::*;
use sudoku_batch::{decided, detect, FormatChoice};

const P: &str = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(P.to_string()),
        Just(format!("{P},1.5")),
        Just(format!("x{}", &P[1..])),
        Just(format!("{},2.5", &P[..60])),
        (0..9usize).prop_map(|r| P[9 * r..9 * r + 9].to_string()),
        // A boxed grid's rows and rules.
        (0..9usize).prop_map(|r| {
            let row = &P[9 * r..9 * r + 9];
            format!("|{}|{}|{}|", &row[..3], &row[3..6], &row[6..])
        }),
        Just("------+-------+------".to_string()),
        Just("*-----------*".to_string()),
        // A whole boxed grid (`\u{1}` stands for the input's line end).
        Just(boxed_grid()),
        Just(String::new()),
        Just("# a comment".to_string()),
        Just("id,puzzle".to_string()),
        Just("source,q,a".to_string()),
        Just(format!("7,{P}")),
        Just(format!("gen,{P},")),
        "[a-z]{1,12}",
    ]
}

fn boxed_grid() -> String {
    let rows = (0..9).map(|r| {
        let row = &P[9 * r..9 * r + 9];
        let rule = if r == 3 || r == 6 {
            "---+---+---\u{1}"
        } else {
            ""
        };
        format!("{rule}{} {} {}", &row[..3], &row[3..6], &row[6..])
    });
    rows.collect::<Vec<_>>().join("\u{1}")
}

fn input() -> impl Strategy<Value = Vec<u8>> {
    (
        proptest::collection::vec(piece(), 0..40),
        proptest::sample::select(vec!["\n", "\r\n", "\r"]),
        any::<bool>(),
    )
        .prop_map(|(pieces, end, bom)| {
            let mut text = if bom {
                "\u{feff}".to_string()
            } else {
                String::new()
            };
            for piece in pieces {
                text += &piece.replace('\u{1}', end);
                text += end;
            }
            text.into_bytes()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn every_prefix_that_settles_the_format_agrees_with_the_whole_sample(input in input()) {
        let whole = detect(&input, None);
        for choice in [FormatChoice::Auto, FormatChoice::Line, FormatChoice::Grid] {
            for k in 0..=input.len() {
                let Some(end) = decided(&input[..k], choice, None) else {
                    continue;
                };
                prop_assert!(end <= k);
                // A longer prefix settles it at the same place.
                prop_assert_eq!(decided(&input, choice, None), Some(end));
                if choice == FormatChoice::Auto {
                    prop_assert_eq!(&detect(&input[..k], None), &whole, "cut at {}", k);
                    prop_assert_eq!(&detect(&input[..end], None), &whole, "window {}", end);
                }
            }
        }
    }
}
