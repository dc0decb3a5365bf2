#![no_main]
//! The grid format on any bytes: never panics; cutting at a block or shard boundary changes
//! nothing.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::fuzzing::Format;

#[path = "common.rs"]
mod common;

fuzz_target!(|input: (u16, &[u8])| {
    let (at, data) = input;
    common::check_format(&Format::grid(), data, usize::from(at));
});
