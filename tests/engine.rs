//! The batch engine in-process, through its library API: input from any `Read` or a mapped file,
//! output to any `Write`, messages and progress through an `Observer`. Order and line numbers are
//! checked across many blocks and thread counts.

mod common;

use std::io::Cursor;
use std::path::Path;

use sudoku_batch::{
    run, BatchError, Config, FormatError, Input, Message, Observer, Output, Progress, Silent,
    Summary, Task, Work,
};

/// Records everything the engine reports.
#[derive(Default)]
struct Collect {
    started: Vec<Work>,
    messages: Vec<(u64, String)>,
    progress: Vec<(u64, u64)>,
}

impl Observer for Collect {
    fn start(&mut self, work: Work, _note: Option<&str>) {
        self.started.push(work);
    }
    fn message(&mut self, m: &Message) {
        self.messages.push((m.line, m.problem.to_string()));
    }
    fn progress(&mut self, progress: Progress) {
        self.progress.push((progress.bytes, progress.records));
    }
}

fn config(task: Task, threads: usize) -> Config {
    Config::new(task).threads(threads).max_messages(1000)
}

const SOLVE: Task = Task::Solve { lexmin: false };

/// Runs the engine on `input`; returns the output, the summary and what was seen.
fn run_input(config: &Config, input: Input<'_>) -> (Vec<u8>, Summary, Collect) {
    let mut out = Vec::new();
    let mut seen = Collect::default();
    let output = Output::writer("memory", &mut out);
    let summary = run(config, input, output, &mut seen).expect("the run succeeds");
    (out, summary, seen)
}

/// The engine on `input` held in memory (streamed).
fn run_in_memory(config: &Config, input: &[u8]) -> (Vec<u8>, Summary, Collect) {
    let reader = Box::new(Cursor::new(input));
    run_input(
        config,
        Input::Reader {
            name: "memory".into(),
            reader,
        },
    )
}

/// The engine on a file (mapped).
fn run_on_file(config: &Config, path: &Path) -> (Vec<u8>, Summary, Collect) {
    run_input(config, Input::Path(path.to_owned()))
}

/// About 5 MB of line records (several blocks at any thread count), with a bad record every
/// 7,919 lines; returns the text and the line numbers of the bad records.
fn many_records() -> (String, Vec<u64>) {
    let puzzles =
        common::puzzle_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt"));
    let mut text = String::from("# made for the test\n\n");
    let mut bad = Vec::new();
    for i in 0..60_000u64 {
        let line = i + 3;
        if i % 7919 == 5 {
            text += "not a puzzle\n";
            bad.push(line);
        } else {
            text += &puzzles[i as usize % puzzles.len()];
            text += if i % 2 == 0 { "\n" } else { "\r\n" };
        }
    }
    (text, bad)
}

#[test]
fn order_and_line_numbers_hold_across_blocks_and_thread_counts() {
    let (text, bad) = many_records();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.txt");
    std::fs::write(&path, &text).unwrap();
    let (reference, summary, seen) = run_in_memory(&config(SOLVE, 1), text.as_bytes());
    let checked =
        common::check_output(text.as_bytes(), std::str::from_utf8(&reference).unwrap(), 0);
    assert_eq!(checked.records, 60_000);
    assert_eq!(checked.not_solved, bad.len());
    assert_eq!(summary.tally.records, 60_000);
    assert_eq!(summary.tally.invalid, bad.len() as u64);
    let expected: Vec<(u64, String)> = bad
        .iter()
        .map(|&l| (l, "invalid: expected 81 cells, found 3".to_string()))
        .collect();
    assert_eq!(seen.messages, expected);
    assert!(
        seen.progress.len() > 3,
        "several blocks: {:?}",
        seen.progress
    );
    for threads in [2, 3, 8, 16] {
        let (out, summary, seen) = run_in_memory(&config(SOLVE, threads), text.as_bytes());
        assert!(
            out == reference,
            "{threads} threads from memory: order differs"
        );
        assert_eq!(seen.messages, expected, "{threads} threads from memory");
        assert_eq!(summary.threads, threads);
        let (out, _, seen) = run_on_file(&config(SOLVE, threads), &path);
        assert!(
            out == reference,
            "{threads} threads from a mapped file: order differs"
        );
        assert_eq!(
            seen.messages, expected,
            "{threads} threads from a mapped file"
        );
        // Progress counts the bytes from the first record: the lines before it are skipped
        // before the run starts.
        let records = (text.len() - "# made for the test\n\n".len()) as u64;
        assert_eq!(seen.started, [Work::Bytes(records)]);
        assert_eq!(seen.progress.last(), Some(&(records, 60_000)));
        assert!(seen
            .progress
            .windows(2)
            .all(|w| w[0].0 < w[1].0 && w[0].1 <= w[1].1));
    }
}

#[test]
fn csv_messages_count_the_header_and_what_precedes_it() {
    let puzzles =
        common::puzzle_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt"));
    let mut text = String::from("# comment\n\nid,puzzle\n");
    for i in 0..30_000 {
        if i % 10_007 == 1 {
            text += &format!("{i},\"multi\nline\"\n");
        } else {
            text += &format!("{i},{}\n", puzzles[i % puzzles.len()]);
        }
    }
    let (out, summary, seen) = run_in_memory(&config(SOLVE, 4), text.as_bytes());
    assert_eq!(summary.format, "csv");
    assert_eq!(summary.tally.records, 30_000);
    // Row i is on line i + 4 up to the first quoted line feed, then one line further per record.
    let lines: Vec<u64> = seen.messages.iter().map(|m| m.0).collect();
    assert_eq!(lines, [5, 10_007 + 1 + 4 + 1, 2 * 10_007 + 1 + 4 + 2]);
    let out = String::from_utf8(out).unwrap();
    assert!(out.starts_with("id,puzzle,solution,status\n"));
    assert_eq!(
        out.lines().count(),
        30_001 + 3,
        "quoted line feeds are kept"
    );
}

#[test]
fn messages_beyond_the_cap_are_counted_not_delivered() {
    let text = "bad\n".repeat(5000);
    let mut cfg = config(SOLVE, 2);
    cfg.max_messages = 7;
    let (out, summary, seen) = run_in_memory(&cfg, text.as_bytes());
    assert_eq!(
        out.len(),
        "invalid: expected 81 cells, found 3\n".len() * 5000
    );
    assert_eq!(seen.messages.len(), 7);
    assert_eq!(seen.messages[6].0, 7);
    assert_eq!(summary.messages_not_shown, 5000 - 7);
    assert_eq!(summary.tally.invalid, 5000);
}

#[test]
fn a_task_that_does_not_suit_the_format_stops_before_any_record() {
    let grid = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/classic_spaces.txt"))
        .unwrap();
    let mut out = Vec::new();
    let result = run(
        &config(Task::Check { unique: false }, 2),
        Input::reader("grid", Cursor::new(grid)),
        Output::writer("memory", &mut out),
        &mut Collect::default(),
    );
    match result {
        Err(BatchError::Format { name, source }) => {
            assert_eq!(name, "grid");
            assert_eq!(source, FormatError::CheckNeedsSolutions);
        }
        other => panic!("expected a format error, got {other:?}"),
    }
    assert!(out.is_empty());
}

#[test]
fn a_failing_writer_stops_the_run_with_a_write_error() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "disk full",
            ))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let (text, _) = many_records();
    let result = run(
        &config(SOLVE, 2),
        Input::Reader {
            name: "memory".into(),
            reader: Box::new(Cursor::new(text.as_bytes())),
        },
        Output::writer("full", Full),
        &mut Silent,
    );
    match result {
        Err(e @ BatchError::Write { .. }) => {
            assert!(e.to_string().starts_with("full: write error"))
        }
        other => panic!("expected a write error, got {other:?}"),
    }
}

#[test]
fn an_observer_can_stop_the_run_and_no_output_file_is_left() {
    struct StopAfter(u32);
    impl Observer for StopAfter {
        fn should_stop(&mut self) -> bool {
            self.0 = self.0.saturating_sub(1);
            self.0 == 0
        }
    }
    let (text, _) = many_records();
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.txt");
    std::fs::write(&input, &text).unwrap();
    let output = dir.path().join("out.txt");
    let result = run(
        &config(SOLVE, 2),
        Input::Path(input),
        Output::Path(output.clone()),
        &mut StopAfter(2),
    );
    assert!(matches!(result, Err(BatchError::Stopped)), "{result:?}");
    assert!(!output.exists());
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temporary file left"
    );
}

/// Once the run has opened its input, either writes the same bytes into it in place or puts a
/// new file in its place by a rename.
struct Rewrite {
    input: std::path::PathBuf,
    in_place: bool,
}

impl Observer for Rewrite {
    fn start(&mut self, _work: Work, _note: Option<&str>) {
        let bytes = std::fs::read(&self.input).unwrap();
        if self.in_place {
            use std::io::Write;
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .open(&self.input)
                .unwrap();
            file.write_all(&bytes).unwrap();
        } else {
            let new = self.input.with_extension("new");
            std::fs::write(&new, &bytes).unwrap();
            std::fs::rename(&new, &self.input).unwrap();
        }
    }
}

#[test]
fn an_input_written_in_place_during_the_run_leaves_no_output_but_one_replaced_does() {
    let (text, _) = many_records();
    let (expected, _, _) = run_in_memory(&config(SOLVE, 1), text.as_bytes());
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.txt");
    let output = dir.path().join("out.txt");
    for in_place in [true, false] {
        std::fs::write(&input, &text).unwrap();
        common::backdate(&input);
        let result = run(
            &config(SOLVE, 2),
            Input::Path(input.clone()),
            Output::Path(output.clone()),
            &mut Rewrite {
                input: input.clone(),
                in_place,
            },
        );
        if in_place {
            match result {
                Err(e @ BatchError::InputChanged { .. }) => assert_eq!(
                    e.to_string(),
                    format!(
                        "{}: the input file changed while it was read (written in place?); no \
                         output was written",
                        input.display()
                    )
                ),
                other => panic!("expected the input to be found changed, got {other:?}"),
            }
            assert!(!output.exists());
            assert_eq!(
                common::entries(dir.path()),
                ["many.txt"],
                "no temporary file left"
            );
        } else {
            result.expect("a file replaced by a rename is no change to the one being read");
            assert!(
                std::fs::read(&output).unwrap() == expected,
                "answers differ"
            );
        }
    }
}

#[test]
fn runs_can_share_one_engine() {
    let engine = std::sync::Arc::new(sudoku_batch::Engine::new(3).unwrap());
    let (text, _) = many_records();
    let mine = config(SOLVE, 1).engine(std::sync::Arc::clone(&engine));
    let (shared, summary, _) = run_in_memory(&mine, text.as_bytes());
    assert_eq!(summary.threads, 3, "the engine's threads, not the config's");
    let (own, _, _) = run_in_memory(&config(SOLVE, 2), text.as_bytes());
    assert_eq!(shared, own);
    assert_eq!(
        Config::default().max_messages,
        Config::new(SOLVE).max_messages
    );
}

#[test]
fn a_sharded_dedupe_is_refused_by_the_library() {
    // The CLI has no `--shard` for dedupe; an embedder that asks is refused before any work.
    let config = Config::new(Task::Dedupe { exact: false })
        .shard(Some(sudoku_batch::Shard::new(1, 2).unwrap()));
    let input = Input::Reader {
        name: "memory".into(),
        reader: Box::new(Cursor::new(Vec::new())),
    };
    let output = Output::writer("memory", std::io::sink());
    let result = run(&config, input, output, &mut Silent);
    assert!(
        matches!(result, Err(BatchError::DedupeSharded)),
        "{result:?}"
    );
}

/// `n` lines: the puzzles of `data/sample.txt`, repeated.
fn sample_lines(n: usize) -> String {
    let puzzles =
        common::puzzle_texts(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/sample.txt"));
    puzzles
        .iter()
        .cycle()
        .take(n)
        .map(|p| format!("{p}\n"))
        .collect()
}

/// A task that spends milliseconds per record is cut into small blocks: a file of a few hundred
/// puzzles is still shared among the threads (each block reports its progress when written),
/// while a fast task reads it in one block.
#[test]
fn slow_tasks_get_small_blocks() {
    let text = sample_lines(400);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("puzzles.txt");
    std::fs::write(&path, &text).unwrap();
    let (graded, summary, seen) = run_on_file(&config(Task::Grade { nested: false }, 2), &path);
    assert_eq!(summary.tally.records, 400);
    assert!(
        seen.progress.len() >= 8,
        "grade read {} blocks of a {}-byte file",
        seen.progress.len(),
        text.len()
    );
    let (one_thread, _, _) = run_on_file(&config(Task::Grade { nested: false }, 1), &path);
    assert_eq!(
        graded, one_thread,
        "the answers do not depend on the blocks"
    );
    let (_, _, seen) = run_on_file(&config(SOLVE, 2), &path);
    assert_eq!(seen.progress.len(), 1, "solve reads the file in one block");
}

/// A large file for a slow task is read in blocks larger than its limit until the end nears
/// (handing a block over costs more than grading fifty easy puzzles), then in shrinking ones;
/// a stream, whose length is unknown, in blocks of the limit throughout. The answers are the
/// same either way.
#[test]
fn slow_tasks_read_a_large_file_in_larger_blocks_until_its_end() {
    let text = sample_lines(20_000);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("puzzles.txt");
    std::fs::write(&path, &text).unwrap();
    let (graded, summary, mapped) = run_on_file(&config(Task::Grade { nested: false }, 2), &path);
    assert_eq!(summary.tally.records, 20_000);
    let (streamed, _, stream) =
        run_in_memory(&config(Task::Grade { nested: false }, 2), text.as_bytes());
    let (mapped, stream) = (mapped.progress.len(), stream.progress.len());
    assert!(
        stream >= text.len() / (5 << 10) && mapped < stream / 2,
        "a {}-byte file was read in {mapped} blocks, as a stream in {stream}",
        text.len()
    );
    assert_eq!(graded, streamed, "the answers do not depend on the blocks");
}

/// `grade` and `rate` spend up to milliseconds per record: the engine answers them in jobs of a
/// few records, so a batch of a few hundred stays spread over every thread to its end (rayon
/// alone splits only as deep as the threads need at the start), and the answers are those of one
/// thread. Fast tasks keep the caller's minimum and no maximum. (The split itself is not
/// observable from here: this checks the sizes asked for and that the answers do not change.)
#[test]
fn slow_tasks_are_answered_in_small_jobs() {
    let rate = Task::Rate {
        samples: 2,
        seed: 0,
    };
    for task in [Task::Grade { nested: false }, rate] {
        let (min, max) = task.job_len(64);
        assert!(min <= max && max <= 8, "{task:?}: jobs of {min} to {max}");
    }
    assert_eq!(SOLVE.job_len(64), (64, usize::MAX));
    let text = sample_lines(300);
    let records: Vec<sudoku_batch::Record> = text
        .lines()
        .map(|l| sudoku_batch::Record::parse(l.as_bytes()))
        .collect();
    let lines = |outcomes: Vec<sudoku_batch::Outcome>| {
        let mut out = Vec::new();
        for o in &outcomes {
            o.write_line(&mut out);
        }
        out
    };
    let (one, two) = (
        sudoku_batch::Engine::new(1).unwrap(),
        sudoku_batch::Engine::new(2).unwrap(),
    );
    for task in [Task::Grade { nested: false }, rate] {
        let answered = lines(two.answer(task, &records));
        assert_eq!(answered, lines(one.answer(task, &records)), "{task:?}");
        assert_eq!(answered.iter().filter(|&&b| b == b'\n').count(), 300);
        let by_lines = two.answer_lines(task, text.as_bytes()).unwrap();
        assert_eq!(by_lines, answered, "{task:?}: answer_lines");
    }
}

#[test]
fn a_stopped_run_leaves_its_pool_free_for_the_next_call() {
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    use sudoku_batch::{Engine, TaskOptions};
    /// Stops the run once it has gone on for a moment.
    struct StopAfter(Instant);
    impl Observer for StopAfter {
        fn should_stop(&mut self) -> bool {
            self.0.elapsed() > Duration::from_millis(300)
        }
    }
    // Counts of 200,000 solutions each (milliseconds a record, minutes a block): the workers
    // must leave their blocks when the run stops, or the pool's next job waits for them.
    let puzzle = format!("123456789{}\n", ".".repeat(72));
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.txt");
    std::fs::write(&input, puzzle.repeat(20_000)).unwrap();
    let engine = Arc::new(Engine::new(2).unwrap());
    let count = Task::named("count", TaskOptions::default().limit(200_000)).unwrap();
    let output = dir.path().join("out.txt");
    let result = run(
        &config(count, 2).engine(Arc::clone(&engine)),
        Input::Path(input),
        Output::Path(output.clone()),
        &mut StopAfter(Instant::now()),
    );
    assert!(matches!(result, Err(BatchError::Stopped)), "{result:?}");
    assert!(!output.exists());
    let waited = Instant::now();
    engine.install(|| ());
    assert!(
        waited.elapsed() < Duration::from_secs(5),
        "the pool's next job waited {:?}",
        waited.elapsed()
    );
}
