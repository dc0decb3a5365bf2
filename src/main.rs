mod cli;

use std::io::{BufWriter, IsTerminal, Write};
use std::path::Path;
use std::process::exit;
use std::time::Duration;

use clap::Parser;
use sudoku_batch::{bench, generate};

fn main() {
    let cli = cli::Cli::parse();
    match cli.command {
        cli::Command::Solve(_) => {
            eprintln!("sudoku-batch: solve is not implemented yet");
            std::process::exit(2);
        }
        cli::Command::Generate(args) => run_generate(args),
        cli::Command::Bench(args) => run_bench(args),
    }
}

/// Prints `message` and exits with code 2 (usage or I/O error).
fn fail(message: impl std::fmt::Display) -> ! {
    eprintln!("sudoku-batch: {message}");
    exit(2)
}

fn run_generate(args: cli::GenerateArgs) {
    let mode = match args.mode {
        cli::GenerateMode::Easy => generate::Mode::Easy,
        cli::GenerateMode::Unique => generate::Mode::Unique,
        cli::GenerateMode::Minimal => generate::Mode::Minimal,
    };
    if mode == generate::Mode::Minimal && args.clues.is_some() {
        fail("--clues applies to --mode easy and --mode unique, not minimal");
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
    let progress = |done| bar.set_position(done);
    let summary = match &args.output {
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            generate::generate(&config, &mut out, progress)
                .unwrap_or_else(|e| fail(format!("writing stdout: {e}")))
        }
        Some(path) => write_atomically(path, |out| generate::generate(&config, out, progress)),
    };
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
}

/// Writes through a temporary file next to `path` and renames it over `path` when `write`
/// succeeds; removes the temporary file and exits with code 2 otherwise.
fn write_atomically<T>(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> std::io::Result<T>,
) -> T {
    let name = path.file_name().unwrap_or_else(|| {
        fail(format!("{}: not a file name", path.display()));
    });
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = std::fs::File::create(&tmp).and_then(|file| {
        let mut out = BufWriter::new(file);
        let value = write(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(value)
    });
    result.unwrap_or_else(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(format!("{}: {e}", path.display()))
    })
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
