#![no_main]
//! CSV rows on any bytes (after a fixed header, its fields separated by a comma, a tab or a
//! semicolon): never panics; cutting at a block or shard boundary changes nothing; the row
//! scanner that places cuts and numbers lines sees exactly the records csv-core reads.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::fuzzing::{Event, Format, RowScan};
use sudoku_batch::Task;

#[path = "common.rs"]
mod common;

fuzz_target!(|input: (u16, &[u8])| {
    let (at, data) = input;
    let task = Task::Solve { lexmin: false };
    let delimiter = [b',', b'\t', b';'][usize::from(at) % 3];
    let header: Vec<u8> = [&b"id"[..], b"puzzle", b"solution"]
        .join(&delimiter)
        .into_iter()
        .chain(*b"\n")
        .collect();
    let format = Format::csv(&header, task);
    common::check_format(&format, data, usize::from(at));
    // csv-core's records (blank-looking ones included) against the scanner's rows. After the
    // header every row is data: no comment character, and a byte-order mark that starts a row
    // is its data (csv-core drops one only at the start of what it reads: so a row of our own
    // goes first, and is not counted).
    let input = [&b"x\n"[..], data].concat();
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(&input[..]);
    let mut record = csv::ByteRecord::new();
    let mut records = 0;
    while reader.read_byte_record(&mut record).unwrap_or(false) {
        records += 1;
    }
    let records = records - 1;
    let rows = RowScan::with_delimiter(data, delimiter)
        .filter(|e| matches!(e, Event::Row(_)))
        .count();
    assert_eq!(rows, records, "scanner rows vs csv-core records");
});
