#![no_main]
//! CSV rows on any bytes (after a fixed header): never panics; cutting at a block or shard
//! boundary changes nothing; the row scanner that places cuts and numbers lines sees exactly
//! the records csv-core reads.
use libfuzzer_sys::fuzz_target;
use sudoku_batch::fuzzing::{comments_end_at_cr, Event, Format, RowScan};
use sudoku_batch::Task;

#[path = "common.rs"]
mod common;

fuzz_target!(|input: (u16, &[u8])| {
    let (at, data) = input;
    let task = Task::Solve { lexmin: false };
    let format = Format::csv(b"id,puzzle,solution\n", task);
    common::check_format(&format, data, usize::from(at));
    // csv-core's records (blank-looking ones included) against the scanner's rows, on the bytes
    // csv-core is given (comments ended at a lone CR).
    let fed = comments_end_at_cr(data);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .comment(Some(b'#'))
        .from_reader(&*fed);
    let mut record = csv::ByteRecord::new();
    let (mut records, mut last_is_empty) = (0, false);
    while reader.read_byte_record(&mut record).unwrap_or(false) {
        records += 1;
        last_is_empty = record.len() == 1 && record[0].is_empty();
    }
    let rows = RowScan::new(data)
        .filter(|e| matches!(e, Event::Row(_)))
        .count();
    // csv-core reports an input that ends inside a comment as one last empty record, which the
    // engine skips as blank; it is the last, so no line number depends on it.
    let phantom = usize::from(last_is_empty && rows + 1 == records);
    assert_eq!(rows + phantom, records, "scanner rows vs csv-core records");
});
