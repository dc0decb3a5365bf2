//! What a person sees on stderr during a batch run: one line per bad record (`input:line: problem`),
//! a progress bar on a terminal, and the closing summary.

use std::io::Write;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sudoku_batch::{Message, Observer, Progress, Summary, Work};

/// The CLI's [`Observer`] for every command: messages and status lines to stderr, progress to a
/// bar (when `progress` is set).
pub struct Console {
    /// The input's name, the prefix of every message.
    input: String,
    progress: bool,
    quiet: bool,
    bar: Option<ProgressBar>,
    /// What the bar counts.
    unit: Unit,
    /// Whether the run got as far as answering (the input opened, its format settled).
    started: bool,
}

enum Unit {
    Bytes,
    Records,
}

impl Console {
    pub fn new(input: String, progress: bool, quiet: bool) -> Console {
        Console {
            input,
            progress,
            quiet,
            bar: None,
            unit: Unit::Bytes,
            started: false,
        }
    }

    /// Whether the run started answering: only then can anything have been written.
    pub fn started(&self) -> bool {
        self.started
    }

    /// Clears the progress bar.
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Console {
    fn start(&mut self, work: Work, note: Option<&str>) {
        self.started = true;
        if matches!(work, Work::Records(_)) {
            self.unit = Unit::Records;
        }
        if let Some(note) = note.filter(|_| !self.quiet) {
            let _ = writeln!(std::io::stderr().lock(), "{}: {note}", self.input);
        }
        if !self.progress {
            return;
        }
        let draw = ProgressDrawTarget::stderr();
        let bar = match work {
            Work::Bytes(n) | Work::Records(n) => ProgressBar::with_draw_target(Some(n), draw)
                .with_style(
                    ProgressStyle::with_template(
                        "{bar:40} {percent:>3}% {msg} {elapsed} (eta {eta})",
                    )
                    .expect("valid template"),
                ),
            _ => ProgressBar::with_draw_target(None, draw).with_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("valid template"),
            ),
        };
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        self.bar = Some(bar);
    }

    fn message(&mut self, message: &Message) {
        let print = || {
            let _ = writeln!(
                std::io::stderr().lock(),
                "{}:{}: {}",
                self.input,
                message.line,
                message.problem
            );
        };
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    fn progress(&mut self, progress: Progress) {
        if let Some(bar) = &self.bar {
            match self.unit {
                Unit::Bytes => bar.set_position(progress.bytes),
                Unit::Records => bar.set_position(progress.records),
            }
            bar.set_message(format!("{} records", progress.records));
        }
    }

    fn status(&mut self, line: &str) {
        if !self.quiet {
            let print = || {
                let _ = writeln!(std::io::stderr().lock(), "{line}");
            };
            match &self.bar {
                Some(bar) => bar.suspend(print),
                None => print(),
            }
        }
    }
}

/// Prints the closing summary of `command` (unless `quiet`), and the JSON summary line (with
/// `json`).
pub fn report(command: &str, s: &Summary, quiet: bool, json: bool) {
    let mut err = std::io::stderr().lock();
    if !quiet {
        if s.messages_not_shown > 0 {
            let _ = writeln!(
                err,
                "sudoku-batch: {} more bad records not shown (--max-messages)",
                s.messages_not_shown
            );
        }
        let t = &s.tally;
        let mut line = match command {
            "canon" | "rate" | "grade" => format!(
                "sudoku-batch: records {}, answered {}, unsolvable {}, invalid {}",
                t.records, t.solved, t.unsolvable, t.invalid
            ),
            "dedupe" => format!(
                "sudoku-batch: records {}, kept {}, duplicates {}, invalid {} (kept as they came)",
                t.records,
                t.records - t.duplicates,
                t.duplicates,
                t.invalid
            ),
            _ => format!(
                "sudoku-batch: records {}, solved {}, unsolvable {}, invalid {}",
                t.records, t.solved, t.unsolvable, t.invalid
            ),
        };
        if t.wrong > 0 {
            line += &format!(", wrong {}", t.wrong);
        }
        if t.unique + t.multiple > 0 {
            line += &format!(", unique {}, multiple {}", t.unique, t.multiple);
        }
        let _ = writeln!(
            err,
            "{line}; {:.3} s, {:.0} puzzles/s",
            s.seconds, s.puzzles_per_second
        );
        if let (Some(column), replaced @ 1..) = (&s.filled_column, t.replaced) {
            let _ = writeln!(
                err,
                "sudoku-batch: column {column:?} filled in place: {replaced} of its values were \
                 replaced by the answers (--keep-solution-column keeps them and adds a new column)"
            );
        }
        if let Some(unread) = s.against_unread.filter(|&n| n > 0) {
            let records = if unread == 1 { "record" } else { "records" };
            let mut line =
                format!("sudoku-batch: --against: {unread} malformed {records} not compared");
            if let Some(first) = &s.against_first {
                line += &format!("; the first: {first}");
            }
            let _ = writeln!(err, "{line}");
        }
    }
    if json {
        let mut json = serde_json::to_value(s).expect("summary serializes");
        if let (Some(fields), "dedupe") = (json.as_object_mut(), command) {
            // Dedupe answers nothing: what it did is keep and drop records.
            fields.remove("solved");
            fields.insert("kept".into(), (s.tally.records - s.tally.duplicates).into());
        }
        let _ = writeln!(err, "{json}");
    }
}
