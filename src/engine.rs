//! The in-memory engine: a worker pool that answers batches of records held in memory, for
//! embedders (the Python package, `bench`, `generate`) and for the batch pipeline, which runs
//! its blocks on it.
//!
//! ```
//! use sudoku_batch::{Engine, Outcome, Record, Task};
//!
//! let engine = Engine::new(2)?;
//! let records = [
//!     Record::parse(b"53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79"),
//!     Record::parse(b"not a puzzle"),
//! ];
//! let outcomes = engine.answer(Task::default(), &records);
//! assert!(matches!(outcomes[0], Outcome::Solved(_)));
//! assert_eq!(outcomes[1].status(), "invalid: expected 81 cells, found 12");
//! # Ok::<(), sudoku_batch::EngineError>(())
//! ```

use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use crate::batch::MAX_THREADS;
use crate::formats::line::LineFormat;
use crate::formats::TextFormat;
use crate::records::BlockOut;
use crate::task::{Outcome, Record, Task};

/// Why an engine could not be made, or a job not run on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
#[allow(missing_docs)] // each variant's message says what it is
pub enum EngineError {
    #[error("{0} threads asked for; at most {MAX_THREADS}")]
    TooManyThreads(usize),
    #[error("cannot start the worker threads: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// A filtering task needs the whole input in one place, in order.
    #[error("{0} keeps the first record of each class in the whole input, which a piece of it does not see")]
    NeedsWholeInput(Task),
}

/// A pool of worker threads that answers records.
pub struct Engine {
    pool: rayon::ThreadPool,
    threads: usize,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("threads", &self.threads)
            .finish()
    }
}

/// Records per rayon task: small enough to balance hard puzzles across threads.
const MIN_RECORDS_PER_TASK: usize = 16;

impl Engine {
    /// An engine with `threads` workers; 0 means one per core.
    pub fn new(threads: usize) -> Result<Engine, EngineError> {
        let threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n if n > MAX_THREADS => return Err(EngineError::TooManyThreads(n)),
            n => n,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("sudoku-batch-{i}"))
            .build()?;
        Ok(Engine { pool, threads })
    }

    /// The engine with `threads` workers (0: one per core) that this process shares: made on
    /// first use and kept, so that callers answering many small batches (the Python package)
    /// start no threads per call. The engines of the four thread counts used last are kept; an
    /// older one is let go (its workers end once no caller holds it), so a caller that tries
    /// many thread counts does not gather thousands of idle threads.
    ///
    /// A process forked from one that made engines (Python's `multiprocessing`, a data loader's
    /// workers) has their memory but none of their threads: it makes engines of its own.
    pub fn shared(threads: usize) -> Result<Arc<Engine>, EngineError> {
        /// The process the engines belong to, and the engines by thread count, the one used
        /// last at the end.
        type Shared = Mutex<(u32, Vec<(usize, Arc<Engine>)>)>;
        static ENGINES: OnceLock<Shared> = OnceLock::new();
        const KEPT: usize = 4;
        // The lock is held only to look up and to insert (not while threads start, nor while
        // an old engine is let go), so that a fork made by another thread meanwhile is
        // unlikely to copy it locked.
        let lock = || {
            let mut shared = ENGINES
                .get_or_init(Default::default)
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let process = std::process::id();
            if shared.0 != process {
                // The parent's engines, copied by a fork: a job sent to one would wait forever
                // for workers that do not exist here. Leaked, not dropped: dropping a pool
                // wakes its workers through locks a parent's thread may have held at the fork.
                std::mem::forget(std::mem::take(&mut shared.1));
                shared.0 = process;
            }
            shared
        };
        let found = {
            let mut shared = lock();
            let engines = &mut shared.1;
            let i = engines.iter().position(|(n, _)| *n == threads);
            i.map(|i| {
                let entry = engines.remove(i);
                let engine = Arc::clone(&entry.1);
                engines.push(entry);
                engine
            })
        };
        if let Some(engine) = found {
            return Ok(engine);
        }
        let made = Arc::new(Engine::new(threads)?);
        let (engine, evicted) = {
            let mut shared = lock();
            let engines = &mut shared.1;
            // Another thread may have made one meanwhile: the first kept is the one shared.
            let engine = match engines.iter().find(|(n, _)| *n == threads) {
                Some((_, engine)) => Arc::clone(engine),
                None => {
                    engines.push((threads, Arc::clone(&made)));
                    made
                }
            };
            let evicted = match engines.len() > KEPT {
                true => Some(engines.remove(0)),
                false => None,
            };
            (engine, evicted)
        };
        drop(evicted); // outside the lock
        Ok(engine)
    }

    /// Its worker threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The fewest records [`Engine::answer`] hands one worker at a time for `task`: a caller
    /// that answers a long list in pieces keeps every worker busy with pieces of at least
    /// `threads() * min_job(task)` records.
    pub fn min_job(&self, task: Task) -> usize {
        task.job_len(MIN_RECORDS_PER_TASK).0
    }

    /// Answers every record for `task`, in parallel; the outcomes are in the records' order.
    /// A filtering task (`dedupe`) gives each record's class: a [`crate::Deduper`] then decides
    /// which are kept.
    pub fn answer(&self, task: Task, records: &[Record<'_>]) -> Vec<Outcome> {
        let (min, max) = task.job_len(MIN_RECORDS_PER_TASK);
        self.pool.install(|| {
            records
                .par_iter()
                .with_min_len(min)
                .with_max_len(max)
                .map(|record| record.answer(task))
                .collect()
        })
    }

    /// Answers the records of line-format `text` as a batch run of line-format input does (same
    /// rules, same output lines; blank and comment lines give none), in parallel over pieces of
    /// whole lines; unlike a run, it does not skip a byte-order mark at the start. Returns the
    /// output bytes.
    pub fn answer_lines(&self, task: Task, text: &[u8]) -> Result<Vec<u8>, EngineError> {
        let piece = task.block_limit().unwrap_or(64 << 10);
        if task.filters() {
            return Err(EngineError::NeedsWholeInput(task));
        }
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            let cut = match rest
                .get(piece..)
                .and_then(|tail| memchr::memchr(b'\n', tail))
            {
                Some(i) => piece + i + 1,
                None => rest.len(),
            };
            pieces.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        let outputs: Vec<Vec<u8>> = self.pool.install(|| {
            pieces
                .par_iter()
                .with_max_len(1) // a job per piece: slow tasks' pieces are few and uneven
                .map(|piece| {
                    let mut out = BlockOut::new(0);
                    LineFormat.answer_block(piece, task, &mut out);
                    out.bytes
                })
                .collect()
        });
        Ok(outputs.concat())
    }

    /// Runs `job` on the engine's pool (rayon's parallel iterators inside it use its workers).
    pub fn install<R: Send>(&self, job: impl FnOnce() -> R + Send) -> R {
        self.pool.install(job)
    }

    /// Starts `job` on the pool and returns at once.
    pub(crate) fn spawn(&self, job: impl FnOnce() + Send + 'static) {
        self.pool.spawn(job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_engines_are_made_once_per_thread_count() {
        let a = Engine::shared(3).unwrap();
        let b = Engine::shared(3).unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        assert_eq!(a.threads(), 3);
        // The four counts used last are kept: 3 is let go after four others, and made again.
        // (Other tests share the process's engines, so only counts no other test uses.)
        let weak = Arc::downgrade(&a);
        drop((a, b));
        for n in [5, 6, 7, 9] {
            Engine::shared(n).unwrap();
            assert!(Arc::ptr_eq(
                &Engine::shared(n).unwrap(),
                &Engine::shared(n).unwrap()
            ));
        }
        assert!(
            weak.upgrade().is_none(),
            "the engine of 3 threads was let go"
        );
        assert_eq!(Engine::shared(3).unwrap().threads(), 3);
        assert!(matches!(
            Engine::new(MAX_THREADS + 1),
            Err(EngineError::TooManyThreads(_))
        ));
    }

    #[test]
    fn answer_lines_matches_the_line_format() {
        let engine = Engine::new(2).unwrap();
        let p = "53..7....6..195....98....6.8...6...34..8.3..17...2...6.6....28....419..5....8..79";
        let text = format!("# c\n{p}\nbad\n").repeat(2000);
        let out = engine.answer_lines(Task::Count { limit: 2 }, text.as_bytes());
        assert_eq!(
            out.unwrap(),
            "1\ninvalid: expected 81 cells, found 3\n"
                .repeat(2000)
                .into_bytes()
        );
        assert!(engine
            .answer_lines(Task::Dedupe { exact: true }, b"")
            .is_err());
    }
}
