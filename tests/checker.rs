//! The tests' own independent checker (tests/common) catches every kind of wrong answer: a test
//! that trusts it must be able to fail.

mod common;

use common::check_output;

#[test]
fn the_checker_catches_wrong_answers() {
    const PUZZLE: &str =
        "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
    const SOLUTION: &str =
        "534678912672195348198342567859761423426853791713924856961537284287419635345286179";
    let input = format!("# c\n{PUZZLE}\n\nbad\n");
    let ok = check_output(input.as_bytes(), &format!("{SOLUTION}\ninvalid: x\n"), 10);
    assert_eq!((ok.records, ok.solved, ok.not_solved), (2, 1, 1));
    let attempts = [
        format!("{SOLUTION}\n"), // a record without an answer
        format!("{}\ninvalid: x\n", SOLUTION.replace('5', "1")), // not a valid grid
        format!("{}\ninvalid: x\n", "123456789".repeat(9)), // invalid rows and columns
        "unsolvable\ninvalid: x\n".to_string(), // a false "unsolvable"
        format!("{SOLUTION}\n{SOLUTION}\n"), // a solution for a malformed record
        format!("{SOLUTION}\n0\n"), // a status that is a number
    ];
    for output in attempts {
        let caught = std::panic::catch_unwind(|| check_output(input.as_bytes(), &output, 10));
        assert!(caught.is_err(), "not caught: {output:?}");
    }
    // A valid grid that changes the givens: the solution with digits 1 and 2 swapped.
    let relabeled: String = SOLUTION
        .chars()
        .map(|c| match c {
            '1' => '2',
            '2' => '1',
            c => c,
        })
        .collect();
    let kept = check_output(SOLUTION.as_bytes(), SOLUTION, 0);
    assert_eq!(kept.solved, 1);
    let changed = std::panic::catch_unwind(|| check_output(PUZZLE.as_bytes(), &relabeled, 0));
    assert!(changed.is_err(), "a changed given is not caught");
}
