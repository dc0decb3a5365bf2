//! `sudoku-batch`: the command-line front end. Flags and printing only; the engine is the
//! `sudoku_batch` library.

/// `eprintln!` that never panics: with stderr closed or full there is nowhere to report to, and
/// the exit code still tells.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod cli;

use std::io::{BufWriter, IsTerminal, Write};
use std::process::{exit, ExitCode};
use std::time::Duration;

use anyhow::Context as _;
use clap::{CommandFactory, Parser};
use sudoku_batch::batch::output::Sink;
use sudoku_batch::batch::{self, BatchError, Input};
use sudoku_batch::{bench, generate};

use cli::args as flags;
use cli::console::{self, Console};

fn main() -> ExitCode {
    let cli = flags::Cli::parse();
    cli::signals::install();
    match cli.command {
        flags::Command::Generate(args) => match run_generate(args) {
            Ok(()) => ExitCode::SUCCESS,
            // A closed output pipe (`generate ... | head`) ends the run quietly, as for solve.
            Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
            Err(e) => {
                say!("sudoku-batch: error: {e:#}");
                ExitCode::from(2)
            }
        },
        flags::Command::Bench(args) => {
            run_bench(args);
            ExitCode::SUCCESS
        }
        ref command => run_batch(command),
    }
}

/// `solve`, `count`, `check`, `canon`, `rate` and `dedupe`: the batch engine over a whole input.
fn run_batch(command: &flags::Command) -> ExitCode {
    let (Some(common), Some((config, input, output))) = (command.common(), command.batch()) else {
        unreachable!("run_batch is only called for batch commands");
    };
    if matches!(input, Input::Reader { .. }) && std::io::stdin().is_terminal() {
        let mut cmd = flags::Cli::command();
        cmd.build();
        if let Some(sub) = cmd.find_subcommand_mut(command.name()) {
            let _ = write!(std::io::stderr(), "{}", sub.render_help());
        }
        return ExitCode::from(2);
    }
    let name = match &input {
        Input::Path(p) => p.display().to_string(),
        Input::Reader { name, .. } => name.clone(),
    };
    let progress = !common.quiet && std::io::stderr().is_terminal();
    let mut console = Console::new(name, progress, common.quiet);
    let result = batch::run(&config, input, output, &mut console);
    console.finish();
    match result {
        Ok(summary) => {
            console::report(
                command.name(),
                &summary,
                common.quiet,
                common.stats.is_some(),
            );
            let failed = summary.failed() && !common.exit_zero;
            ExitCode::from(if failed { 1 } else { 0 })
        }
        Err(BatchError::OutputClosed) => ExitCode::SUCCESS,
        Err(e) => {
            // The engine's messages already name their cause; print the top one only.
            say!("sudoku-batch: error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run_generate(args: flags::GenerateArgs) -> anyhow::Result<()> {
    let mode = match args.mode {
        flags::GenerateMode::Easy => generate::Mode::Easy,
        flags::GenerateMode::Unique => generate::Mode::Unique,
        flags::GenerateMode::Minimal => generate::Mode::Minimal,
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
        None => Sink::Writer(Box::new(std::io::stdout())),
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
    say!(
        "sudoku-batch: generated {} puzzles in {secs:.2} s ({:.0} puzzles/s); clues min {} mean {mean:.2} max {}",
        summary.puzzles,
        summary.puzzles as f64 / secs.max(1e-9),
        summary.min_clues,
        summary.max_clues,
    );
    if summary.missed_target > 0 {
        say!(
            "sudoku-batch: {} puzzles kept more givens than the clue target after {} grids each",
            summary.missed_target,
            generate::ATTEMPTS
        );
    }
    Ok(())
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints `message` and exits with code 2 (usage or I/O error).
fn fail(message: impl std::fmt::Display) -> ! {
    say!("sudoku-batch: {message}");
    exit(2)
}

fn seconds(flag: &str, value: f64) -> Duration {
    Duration::try_from_secs_f64(value)
        .unwrap_or_else(|_| fail(format!("{flag} must be a non-negative number of seconds")))
}

fn run_bench(args: flags::BenchArgs) {
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
    let report = bench::run(&config, |line| say!("{line}")).unwrap_or_else(|e| {
        say!("sudoku-batch: {e}");
        exit(if matches!(e, bench::BenchError::Wrong { .. }) {
            1
        } else {
            2
        })
    });
    for f in &report.files {
        for s in f.skipped.iter().take(10) {
            say!("{}: line {}: skipped: {}", f.file, s.line, s.reason);
        }
        if !f.skipped.is_empty() {
            say!("{}: {} lines skipped", f.file, f.skipped.len());
        }
    }
    let text = if args.json {
        serde_json::to_string_pretty(&report).expect("the report serializes") + "\n"
    } else {
        cli::bench_report::to_markdown(&report)
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit(0),
        Err(e) => fail(format!("writing stdout: {e}")),
        Ok(()) => {}
    }
    if let Some(path) = &args.plot {
        if let Err(e) = cli::bench_report::plot(&report, path) {
            fail(format!("writing plot {}: {e}", path.display()));
        }
        say!("sudoku-batch: plot written to {}", path.display());
    }
}
