//! How the engine reports while it works: one [`Observer`] convention for every long job (a
//! batch run, `generate`, `bench`, the in-memory engine). The engine never prints; each front
//! end implements the trait (stderr and a progress bar for the CLI, Python objects and Ctrl-C
//! for the package).

use crate::task::Problem;

/// A message about one record that did not get a plain answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Message {
    /// 1-based line number in the input (within the block while a block is being answered).
    pub line: u64,
    /// What is wrong with the record.
    pub problem: Problem,
}

/// How much work a job has, as far as it is known when it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Work {
    /// Input bytes (a mapped file).
    Bytes(u64),
    /// Records (`generate`: the puzzles asked for).
    Records(u64),
    /// Not known (a stream).
    Unknown,
}

/// Work done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Progress {
    /// Input bytes done (0 where the job reads none).
    pub bytes: u64,
    /// Records done.
    pub records: u64,
}

impl Progress {
    /// Progress of `bytes` input bytes and `records` records.
    pub fn new(bytes: u64, records: u64) -> Progress {
        Progress { bytes, records }
    }
}

/// Receives what a job has to report, in order, on one thread at a time.
pub trait Observer: Send {
    /// The job starts. `note` says why the input's format or puzzle column was chosen when
    /// detection weighed one reading against another, or that the output is not in the format
    /// its name suggests.
    fn start(&mut self, _work: Work, _note: Option<&str>) {}
    /// A record that did not get a plain answer (at most the job's message cap); `message.line`
    /// is its 1-based line in the input.
    fn message(&mut self, _message: &Message) {}
    /// More work is done.
    fn progress(&mut self, _progress: Progress) {}
    /// A line saying what the job is doing now (`bench`: which file, mode and thread count).
    fn status(&mut self, _line: &str) {}
    /// Asked after each piece of work written, and every 20 ms while the run waits for one:
    /// `true` stops the job (a batch run then ends with [`crate::BatchError::Stopped`] and
    /// creates no output file; the workers leave the records they have not answered). A front
    /// end sets it on Ctrl-C.
    fn should_stop(&mut self) -> bool {
        false
    }
}

/// An observer that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Observer for Silent {}
