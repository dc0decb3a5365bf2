mod cli;

use std::io::{BufWriter, IsTerminal, Write};
use std::process::{exit, ExitCode};
use std::time::Duration;

use anyhow::Context as _;
use clap::{CommandFactory, Parser};
use sudoku_batch::batch::writer::Sink;
use sudoku_batch::batch::{self, BatchError, Summary};
use sudoku_batch::{bench, generate};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli.command {
        cli::Command::Generate(args) => match run_generate(args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("sudoku-batch: error: {e:#}");
                ExitCode::from(2)
            }
        },
        cli::Command::Bench(args) => {
            run_bench(args);
            ExitCode::SUCCESS
        }
        ref command => run_batch(command),
    }
}

/// `solve`, `count` and `check`: the batch engine over a whole input.
fn run_batch(command: &cli::Command) -> ExitCode {
    let (Some(common), Some(config)) = (
        command.common(),
        command.to_config(std::io::stderr().is_terminal()),
    ) else {
        unreachable!("run_batch is only called for batch commands");
    };
    if common.input.is_none() && std::io::stdin().is_terminal() {
        let mut cmd = cli::Cli::command();
        cmd.build();
        if let Some(sub) = cmd.find_subcommand_mut(command.name()) {
            let _ = write!(std::io::stderr(), "{}", sub.render_help());
        }
        return ExitCode::from(2);
    }
    match batch::run(&config) {
        Ok(summary) => {
            report(&summary, common.quiet, common.stats.is_some());
            ExitCode::from(if summary.tally.failed() > 0 { 1 } else { 0 })
        }
        Err(BatchError::OutputClosed) => ExitCode::SUCCESS,
        Err(e) => {
            // The engine's messages already name their cause; print the top one only.
            let e = anyhow::Error::from(e);
            eprintln!("sudoku-batch: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn report(s: &Summary, quiet: bool, json: bool) {
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
        let mut line = format!(
            "sudoku-batch: records {}, solved {}, unsolvable {}, invalid {}",
            t.records, t.solved, t.unsolvable, t.invalid
        );
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
    }
    if json {
        let _ = writeln!(
            err,
            "{}",
            serde_json::to_string(s).expect("summary serializes")
        );
    }
}

fn run_generate(args: cli::GenerateArgs) -> anyhow::Result<()> {
    let mode = match args.mode {
        cli::GenerateMode::Easy => generate::Mode::Easy,
        cli::GenerateMode::Unique => generate::Mode::Unique,
        cli::GenerateMode::Minimal => generate::Mode::Minimal,
    };
    if mode == generate::Mode::Minimal && args.clues.is_some() {
        anyhow::bail!("--clues applies to --mode easy and --mode unique, not minimal");
    }
    let config = generate::GenerateConfig {
        count: args.count,
        seed: args.seed,
        mode,
        clues: args.clues.map(usize::from),
        threads: args.threads.map(usize::from),
    };
    // A progress bar only for a person watching a terminal.
    let bar = if std::io::stderr().is_terminal() {
        indicatif::ProgressBar::new(config.count)
    } else {
        indicatif::ProgressBar::hidden()
    };
    // The same sink as `solve`: a file is written under a temporary name and renamed into place
    // only when complete; on an error the temporary file is removed.
    let mut sink = match &args.output {
        None => Sink::Stdout,
        Some(path) => Sink::file(path.clone())
            .with_context(|| format!("cannot create an output file beside {}", path.display()))?,
    };
    let where_to = args
        .output
        .as_ref()
        .map_or("stdout".to_string(), |p| p.display().to_string());
    let summary = {
        let mut out = BufWriter::new(&mut sink);
        let summary = generate::generate(&config, &mut out, |done| bar.set_position(done))
            .and_then(|s| out.flush().map(|()| s))
            .with_context(|| format!("writing {where_to}"))?;
        summary
    };
    sink.finish()
        .with_context(|| format!("writing {where_to}"))?;
    bar.finish_and_clear();
    let mean = summary.total_clues as f64 / summary.puzzles.max(1) as f64;
    let secs = summary.elapsed.as_secs_f64();
    eprintln!(
        "sudoku-batch: generated {} puzzles in {secs:.2} s ({:.0} puzzles/s); clues min {} mean {mean:.2} max {}",
        summary.puzzles,
        summary.puzzles as f64 / secs.max(1e-9),
        summary.min_clues,
        summary.max_clues,
    );
    if summary.missed_target > 0 {
        eprintln!(
            "sudoku-batch: {} puzzles kept more givens than the clue target after {} grids each",
            summary.missed_target,
            generate::ATTEMPTS
        );
    }
    Ok(())
}

/// Prints `message` and exits with code 2 (usage or I/O error).
fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("sudoku-batch: {message}");
    exit(2)
}

fn seconds(flag: &str, value: f64) -> Duration {
    Duration::try_from_secs_f64(value)
        .unwrap_or_else(|_| fail(format!("{flag} must be a non-negative number of seconds")))
}

fn run_bench(args: cli::BenchArgs) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let files = if args.files.is_empty() {
        bench::shipped_sets().unwrap_or_else(|e| fail(e))
    } else {
        args.files
    };
    let config = bench::BenchConfig {
        files,
        warmup: seconds("--warmup", args.warmup),
        min_time: seconds("--min-time", args.min_time),
        threads: args.threads.map_or_else(
            || bench::default_threads(cores),
            |t| t.into_iter().map(usize::from).collect(),
        ),
    };
    let report = bench::run(&config, |line| eprintln!("{line}")).unwrap_or_else(|e| {
        eprintln!("sudoku-batch: {e}");
        exit(if matches!(e, bench::BenchError::Wrong { .. }) {
            1
        } else {
            2
        })
    });
    for f in &report.files {
        for s in f.skipped.iter().take(10) {
            eprintln!("{}: line {}: skipped: {}", f.file, s.line, s.reason);
        }
        if !f.skipped.is_empty() {
            eprintln!("{}: {} lines skipped", f.file, f.skipped.len());
        }
    }
    let text = if args.json {
        serde_json::to_string_pretty(&report).expect("the report serializes") + "\n"
    } else {
        bench::to_markdown(&report)
    };
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        fail(format!("writing stdout: {e}"));
    }
    if let Some(path) = &args.plot {
        if let Err(e) = bench::plot(&report, path) {
            fail(format!("writing plot {}: {e}", path.display()));
        }
        eprintln!("sudoku-batch: plot written to {}", path.display());
    }
}
