//! Shared checks of the format targets: any bytes, any cut.
use sudoku_batch::fuzzing::{Block, Format};
use sudoku_batch::Task;

/// Answers `data` in one block, and again in two blocks cut where the format says a block may
/// end (and where a shard may start): the outputs and counts must agree. Every answer line is a
/// valid solution of 81 digits or a status that starts with a letter.
pub fn check_format(format: &Format, data: &[u8], at: usize) {
    let task = Task::Solve { lexmin: false };
    let whole = answer(format, data, task);
    for cut in [
        format.last_boundary(data),
        Some(format.record_start_at_or_after(data, at % (data.len() + 1))),
    ]
    .into_iter()
    .flatten()
    {
        assert!(cut <= data.len());
        let (a, b) = (
            answer(format, &data[..cut], task),
            answer(format, &data[cut..], task),
        );
        assert_eq!(a.records + b.records, whole.records, "records at cut {cut}");
        let mut joined = a.bytes.clone();
        if !a.bytes.is_empty() && !b.bytes.is_empty() {
            joined.extend_from_slice(format.separator());
        }
        joined.extend_from_slice(&b.bytes);
        assert!(joined == whole.bytes, "output differs when cut at {cut}");
        assert_eq!(a.lines + b.lines, whole.lines, "lines at cut {cut}");
    }
}

pub fn answer(format: &Format, data: &[u8], task: Task) -> Block {
    let out = format.answer(data, task);
    for &line in &out.message_lines {
        assert!(
            line >= 1 && line <= out.lines + 1,
            "message line {line} of {}",
            out.lines
        );
    }
    out
}
