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

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser};
use sudoku_batch::generate::{self, GenerateConfig};
use sudoku_batch::{bench, BatchError, Input, Output};

use cli::args as flags;
use cli::console::{self, Console};

/// Why a command failed: every failure is printed once, as `sudoku-batch: error: ...`, and ends
/// the process with `code` (2 for usage and I/O errors, 1 for a benchmark whose validation
/// failed).
struct Failure {
    message: String,
    code: u8,
}

impl Failure {
    fn usage(message: impl std::fmt::Display) -> Failure {
        Failure {
            message: message.to_string(),
            code: 2,
        }
    }
}

/// Whether standard input and output were closed when the tool started (`<&-`, `>&-`). Rust's
/// runtime opens `/dev/null` on a closed standard descriptor before `main`, so a run would read
/// an empty input, or write every answer there, and report success; the descriptors are looked
/// at before that, while the program loads.
static STDIN_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

#[cfg(target_os = "linux")]
#[used]
#[link_section = ".init_array"]
static LOOK_AT_STDIO: extern "C" fn() = {
    extern "C" fn look() {
        // SAFETY: F_GETFD only reads a descriptor's flags; -1 means there is no such descriptor.
        let closed = |fd| unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1;
        STDIN_CLOSED.store(closed(0), std::sync::atomic::Ordering::Relaxed);
        STDOUT_CLOSED.store(closed(1), std::sync::atomic::Ordering::Relaxed);
    }
    look
};

/// An error if the output is standard output and it was closed.
fn require_stdout() -> Result<(), Failure> {
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Failure::usage(
            "standard output is closed: nothing could be written (give a file with -o)",
        ));
    }
    Ok(())
}

/// An error if an input is standard input and it was closed.
fn require_stdin() -> Result<(), Failure> {
    if STDIN_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Failure::usage(
            "standard input is closed: there is nothing to read (give an input file)",
        ));
    }
    Ok(())
}

/// Whether `path` is a name of standard output itself (a closed one would be `/dev/null` by now).
fn names_stdout(path: &std::path::Path) -> bool {
    ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
        .iter()
        .any(|name| path == std::path::Path::new(name))
}

/// Whether the answers would be written straight into the regular file `input` describes, as
/// `cat x >> x` would append to its own input: standard output, or a path written directly (a
/// descriptor's name), that is that file. An output file that is replaced whole is not.
#[cfg(unix)]
fn output_is_input(input: &std::fs::Metadata, output: &Output<'_>) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let output = match output {
        Output::Path(path) if sudoku_batch::output_written_directly(path) => {
            std::fs::metadata(path)
        }
        Output::Path(_) => return false,
        _ => fd_metadata(std::io::stdout().as_fd()),
    };
    output.is_ok_and(|out| {
        input.is_file() && out.is_file() && (out.dev(), out.ino()) == (input.dev(), input.ino())
    })
}

#[cfg(not(unix))]
fn output_is_input(_input: &std::fs::Metadata, _output: &Output<'_>) -> bool {
    false
}

/// What standard input is (`< file` makes it that file).
#[cfg(unix)]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    use std::os::fd::AsFd;
    fd_metadata(std::io::stdin().as_fd()).ok()
}

#[cfg(not(unix))]
fn stdin_metadata() -> Option<std::fs::Metadata> {
    None
}

#[cfg(unix)]
fn fd_metadata(fd: std::os::fd::BorrowedFd<'_>) -> std::io::Result<std::fs::Metadata> {
    fd.try_clone_to_owned()
        .and_then(|fd| std::fs::File::from(fd).metadata())
}

/// Whether `path` reads standard input: `-` or one of its names.
fn names_stdin(path: &std::path::Path) -> bool {
    ["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]
        .iter()
        .any(|name| path == std::path::Path::new(name))
}

fn main() -> ExitCode {
    let cli = match flags::Cli::try_parse() {
        Ok(cli) => Ok(cli),
        // --help, --version: stdout, exit 0; clap colours them on a terminal.
        Err(e) if !e.use_stderr() && std::io::stdout().is_terminal() => e.exit(),
        // Elsewhere as any output, so a full disk is an error, not a silent success.
        Err(e) if !e.use_stderr() => Err(print_generated(|out| write!(out, "{}", e.render()))),
        Err(e) => {
            // clap's message starts `error: `: one style for every error.
            let _ = write!(std::io::stderr(), "sudoku-batch: {}", e.render());
            return ExitCode::from(2);
        }
    };
    let result = match cli {
        Err(printed) => printed,
        Ok(cli) => {
            cli::signals::install();
            run(cli)
        }
    };
    match result {
        Ok(code) => code,
        Err(Failure { message, code }) => {
            say!("sudoku-batch: error: {message}");
            ExitCode::from(code)
        }
    }
}

/// The command `cli` asks for.
fn run(cli: flags::Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        flags::Command::Generate(args) => run_generate(args),
        flags::Command::Bench(args) => run_bench(args),
        flags::Command::Completions { shell } => print_generated(|out| {
            clap_complete::generate(shell, &mut flags::Cli::command(), "sudoku-batch", out);
            Ok(())
        }),
        flags::Command::Man => print_generated(|out| cli::man(out)),
        ref command => run_batch(command),
    }
}

/// `solve`, `count`, `check`, `canon`, `rate`, `grade` and `dedupe`: the batch engine over a
/// whole input.
fn run_batch(command: &flags::Command) -> Result<ExitCode, Failure> {
    let (Some(common), Some((config, input, output))) = (command.common(), command.batch()) else {
        unreachable!("run_batch is only called for batch commands");
    };
    if let flags::Command::Dedupe {
        against: Some(against),
        ..
    } = command
    {
        if against.as_os_str() == "-" && matches!(input, Input::Stdin) {
            return Err(Failure::usage(
                "--against - reads stdin, which is already the input: give the input or the \
                 other file by name",
            ));
        }
    }
    let against_stdin =
        matches!(command, flags::Command::Dedupe { against: Some(a), .. } if names_stdin(a));
    match &input {
        Input::Path(path) if !names_stdin(path) && !against_stdin => {}
        _ => require_stdin()?,
    }
    if matches!(input, Input::Stdin) && std::io::stdin().is_terminal() {
        let mut cmd = flags::Cli::command();
        cmd.build();
        if let Some(sub) = cmd.find_subcommand_mut(command.name()) {
            let _ = write!(std::io::stderr(), "{}", sub.render_help());
        }
        return Ok(ExitCode::from(2));
    }
    match &output {
        Output::Path(path) if !names_stdout(path) => {}
        _ => require_stdout()?,
    }
    let input_file = match &input {
        Input::Path(path) => std::fs::metadata(path).ok(),
        _ => stdin_metadata(),
    };
    if input_file.is_some_and(|input_file| output_is_input(&input_file, &output)) {
        return Err(Failure::usage(format!(
            "{}: the input file is also the output (the answers would be written into it as it \
             is read); write them to another file",
            input.name()
        )));
    }
    // stdout, a path to a device or pipe, or the file stdout already is, is written directly,
    // not renamed into place.
    let stream = match &output {
        Output::Path(path) => sudoku_batch::output_written_directly(path),
        _ => true,
    };
    cli::signals::output_is_stream(stream);
    let progress = !common.quiet && std::io::stderr().is_terminal();
    let mut console = Console::new(input.name(), progress, common.quiet);
    let result = sudoku_batch::run(&config, input, output, &mut console);
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
            Ok(ExitCode::from(if failed { 1 } else { 0 }))
        }
        Err(BatchError::OutputClosed) => Ok(ExitCode::SUCCESS),
        // A stream cannot be taken back (a file is not moved into place): once answers may have
        // gone to it, say that what it holds is not the whole answer, as a signal's message does
        // (a write error: a stream that fails, or a value the output format cannot hold).
        Err(e @ (BatchError::Read { .. } | BatchError::Write { .. }))
            if stream && console.started() =>
        {
            Err(Failure::usage(format!(
                "{e}; the output written so far is incomplete"
            )))
        }
        // The engine's messages already name their cause; print the top one only.
        Err(e) => Err(Failure::usage(e)),
    }
}

fn run_generate(args: flags::GenerateArgs) -> Result<ExitCode, Failure> {
    if args.mode == generate::Mode::Minimal && args.clues.is_some() {
        return Err(Failure::usage(
            "--clues applies to --mode easy and --mode unique, not minimal",
        ));
    }
    // `-o -` is stdout, as for every other command.
    let output_path = args.output.as_ref().filter(|p| p.as_os_str() != "-");
    if let Some(path) = output_path {
        if !matches!(
            sudoku_batch::OutputFormat::from_path(path),
            sudoku_batch::OutputFormat::Line | sudoku_batch::OutputFormat::Csv
        ) {
            return Err(Failure::usage(format!(
                "{}: generate writes lines or CSV; write a .csv and convert it",
                sudoku_batch::path_label(path)
            )));
        }
    }
    let config = GenerateConfig::new(args.count)
        .seed(args.seed)
        .mode(args.mode)
        .clues(args.clues.map(usize::from))
        .threads((args.threads > 0).then_some(usize::from(args.threads)))
        .with_solution(args.with_solution)
        .rating(args.rating)
        .csv(match args.output_format.as_str() {
            "csv" => true,
            "line" => false,
            _ => output_path
                .is_some_and(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv"))),
        });
    // A file is written atomically: a signal leaves nothing behind, as for the batch commands.
    cli::signals::output_is_stream(
        output_path.is_none_or(|path| sudoku_batch::output_written_directly(path)),
    );
    let output = match output_path {
        None => {
            require_stdout()?;
            Output::writer("<stdout>", std::io::stdout())
        }
        Some(path) => {
            if names_stdout(path) {
                require_stdout()?;
            }
            Output::Path(path.clone())
        }
    };
    // A progress bar only for a person watching a terminal.
    let mut console = Console::new(String::new(), std::io::stderr().is_terminal(), false);
    let result = generate::generate(&config, output, &mut console);
    console.finish();
    let summary = match result {
        Ok(summary) => summary,
        // A closed output pipe (`generate ... | head`) ends the run quietly, as for solve.
        Err(BatchError::OutputClosed) => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(Failure::usage(e)),
    };
    let mean = summary.total_clues as f64 / summary.puzzles.max(1) as f64;
    let secs = summary.elapsed.as_secs_f64();
    // No puzzle, no clue figures.
    let clues = match summary.puzzles {
        0 => String::new(),
        _ => format!(
            "; clues min {} mean {mean:.2} max {}",
            summary.min_clues, summary.max_clues
        ),
    };
    say!(
        "sudoku-batch: generated {} {} in {secs:.2} s ({:.0} puzzles/s){clues}",
        summary.puzzles,
        if summary.puzzles == 1 {
            "puzzle"
        } else {
            "puzzles"
        },
        summary.puzzles as f64 / secs.max(1e-9),
    );
    if summary.missed_target > 0 {
        say!(
            "sudoku-batch: {} puzzles kept more givens than the clue target after {} grids each",
            summary.missed_target,
            generate::ATTEMPTS
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The CPU's model name (Linux), for benchmark reports.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
                .map(|(_, name)| name.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".to_string())
}

/// The time now, UTC, as RFC 3339 (`2026-11-24T03:59:01Z`).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// `completions` and `man`: text generated from the flags' definitions, to stdout.
fn print_generated(
    generate: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>,
) -> Result<ExitCode, Failure> {
    // No -o here to point to, unlike `require_stdout`.
    if STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(Failure::usage(
            "standard output is closed: nothing could be written",
        ));
    }
    let mut text = Vec::new();
    generate(&mut text).map_err(|e| Failure::usage(format!("generating: {e}")))?;
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(&text).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure::usage(format!("<stdout>: write error: {e}"))),
        Ok(()) => Ok(ExitCode::SUCCESS),
    }
}

fn seconds(flag: &str, value: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(value).map_err(|_| {
        Failure::usage(if value > 0.0 {
            format!(
                "{flag} is too long: at most {} seconds",
                Duration::MAX.as_secs()
            )
        } else {
            format!("{flag} must be a non-negative number of seconds")
        })
    })
}

fn run_bench(args: flags::BenchArgs) -> Result<ExitCode, Failure> {
    require_stdout()?;
    // A plot that cannot be written fails now, not after the whole benchmark.
    if let Some(path) = &args.plot {
        sudoku_batch::check_output_file(path).map_err(|e| {
            Failure::usage(format!(
                "{}: cannot write the plot: {e}",
                sudoku_batch::path_label(path)
            ))
        })?;
    }
    let files = if args.files.is_empty() {
        bench::shipped_sets().map_err(Failure::usage)?
    } else {
        args.files
    };
    let mut config = bench::BenchConfig::new(files)
        .format(args.format)
        .warmup(seconds("--warmup", args.warmup)?)
        .min_time(seconds("--min-time", args.min_time)?);
    if let Some(threads) = args.threads {
        // 0: one per core, as `-j 0` everywhere else.
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        let threads = threads.into_iter().map(|n| match n {
            0 => cores,
            n => usize::from(n),
        });
        config = config.threads(threads.collect());
    }
    let mut console = Console::new(String::new(), false, false);
    let report = bench::run(&config, &mut console).map_err(|e| Failure {
        code: if matches!(e, bench::BenchError::Wrong { .. }) {
            1
        } else {
            2
        },
        message: e.to_string(),
    })?;
    for f in &report.files {
        for s in f.skipped.iter().take(10) {
            say!("{}: line {}: skipped: {}", f.file, s.line, s.reason);
        }
        if !f.skipped.is_empty() {
            say!("{}: {} lines skipped", f.file, f.skipped.len());
        }
    }
    let text = if args.json {
        let mut json = serde_json::json!({
            "tool": "sudoku-batch",
            "version": env!("CARGO_PKG_VERSION"),
            "commit": env!("SUDOKU_BATCH_COMMIT"),
            "cpu": cpu_model(),
            "date": utc_now(),
            "command": std::env::args().collect::<Vec<_>>(),
        });
        if let (Some(head), serde_json::Value::Object(body)) = (
            json.as_object_mut(),
            serde_json::to_value(&report).expect("the report serializes"),
        ) {
            head.extend(body);
        }
        serde_json::to_string_pretty(&json).expect("the report serializes") + "\n"
    } else {
        cli::bench_report::to_markdown(&report)
    };
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(Failure::usage(format!("<stdout>: write error: {e}"))),
        Ok(()) => {}
    }
    if let Some(path) = &args.plot {
        cli::bench_report::plot(&report, path).map_err(|e| {
            Failure::usage(format!(
                "writing plot {}: {e}",
                sudoku_batch::path_label(path)
            ))
        })?;
        say!(
            "sudoku-batch: plot written to {}",
            sudoku_batch::path_label(path)
        );
    }
    Ok(ExitCode::SUCCESS)
}
