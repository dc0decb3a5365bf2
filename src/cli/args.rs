//! Command-line flags only: clap types live here and are turned into the engine's [`Config`],
//! [`Input`] and [`Output`] by [`Command::batch`]. The engine never sees clap.

use std::path::PathBuf;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Parser, Subcommand, ValueEnum};

use sudoku_batch::generate::Mode;
use sudoku_batch::{Config, FormatChoice, Input, Output, OutputFormat, Shard, Task, MAX_THREADS};

#[derive(Debug, Parser)]
#[command(
    name = "sudoku-batch",
    version,
    long_version = super::version::long(),
    about = "Fast batch Sudoku solver: every core, input order, nothing lost",
    after_help = exit_status_help()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Solve every puzzle in INPUT; one answer per record, in input order.
    Solve {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArg,
        #[command(flatten)]
        solution: SolutionColumn,
        /// Give the lexicographically smallest solution (row-major, digits ascending).
        #[arg(long)]
        lexmin: bool,
        /// CSV, Parquet, Arrow: keep the input's solution column as it came and add the answers
        /// as a new `solution` column (`solution_2` if that name is taken), instead of filling
        /// it in place.
        #[arg(long)]
        keep_solution_column: bool,
    },
    /// Count the solutions of every puzzle up to a limit (`N+` when reached): the uniqueness check.
    Count {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArg,
        /// Stop counting at N solutions.
        #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
    },
    /// Verify the solutions that INPUT carries (CSV with a solution column, or `puzzle,solution` lines).
    Check {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArg,
        #[command(flatten)]
        solution: SolutionColumn,
        /// Also require each puzzle to have only that one solution.
        #[arg(long)]
        unique: bool,
    },
    /// Write the canonical form of every puzzle: the same 81 digits for every puzzle of one
    /// equivalence class (grid symmetries times digit relabellings), different across classes.
    ///
    /// The form is minlex: the lexicographically smallest 81-digit string (`0` for blanks) of the
    /// class. CSV input gets a `canonical` column.
    Canon {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArg,
    },
    /// Rate the difficulty of every puzzle: the mean number of guesses of the engine's search over
    /// K random isomorphs (seeded, so the same at any -j and on any machine).
    ///
    /// Line output: the figure (`12.38`; `0.00` when no guess is needed). CSV output adds
    /// `rating` and `singles` (whether naked and hidden singles alone solve it) columns.
    Rate {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArg,
        /// Isomorphs searched per puzzle (K).
        #[arg(long, value_name = "K", default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=4096))]
        samples: u32,
        /// Seed of the isomorphs.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Grade every puzzle as a person would solve it: the hardest technique needed and a score on
    /// the Sudoku Explainer scale (docs/grading.md).
    ///
    /// A logical solver applies a fixed ladder of techniques, always the easiest that makes
    /// progress. Line output: `SE band hardest` (`4.2 hard XY-Wing`). CSV, Parquet and Arrow
    /// output add `grade` (the band), `se_estimate`, `hardest`, `steps`, `se_pearl` and
    /// `se_diamond` columns (SE's ER, EP and ED: the whole path, up to the first placement, the
    /// first step).
    Grade {
        #[command(flatten)]
        common: Common,
        #[command(flatten)]
        shard: ShardArg,
        /// Print each puzzle's path instead of its grade line: the puzzle, one line per step as a
        /// hint system shows it, the grade, and a blank line (line or grid input).
        #[arg(long)]
        explain: bool,
        /// Where trial of depth 1 finds nothing, assume each candidate and follow it with more
        /// inside the assumption (chains, then forcing chains, then trial of depth 1), scored
        /// by the easiest contradiction, instead of stopping at `Trial depth 2+` (10.5): ranks
        /// the hardest puzzles among themselves, at up to a second or two for each one that needs
        /// it.
        #[arg(long)]
        nested: bool,
    },
    /// Keep the first record of each equivalence class, in input order, each record as it came.
    Dedupe {
        #[command(flatten)]
        common: Common,
        /// Drop only records whose 81 cells equal an earlier record's (`.` and `0` are both blank).
        #[arg(long)]
        exact: bool,
        /// Also drop records equivalent to any record of FILE (for example a test split).
        #[arg(long, value_name = "FILE")]
        against: Option<PathBuf>,
        /// The puzzle column of the --against file (CSV, Parquet, Arrow), when no usual name
        /// says which it is; --column names the input's.
        #[arg(long, value_name = "NAME", requires = "against")]
        against_column: Option<String>,
    },
    /// Generate puzzles with exactly one solution each, reproducibly from a seed.
    ///
    /// Output: one 81-character line per puzzle, `.` for blanks, in index order. The same seed and
    /// options give the same file at any thread count.
    Generate(GenerateArgs),
    /// Benchmark the solver: puzzles/s, guesses and thread scaling, per file and mode.
    ///
    /// With no FILES, runs on the sets shipped in `data/`.
    Bench(BenchArgs),
    /// Print a shell completion script for SHELL to stdout.
    ///
    /// For example `sudoku-batch completions bash > ~/.local/share/bash-completion/completions/sudoku-batch`.
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff) to stdout: `sudoku-batch man > sudoku-batch.1`.
    Man,
}

#[derive(Debug, clap::Args)]
pub struct Common {
    /// Input file, or `-` for stdin.
    pub input: Option<PathBuf>,
    /// Output file (default: stdout); written under a temporary name, renamed into place on success.
    #[arg(short, long, value_name = "OUTPUT")]
    pub output: Option<PathBuf>,
    /// Worker threads, 0 to 1024 (0: one per core).
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=MAX_THREADS as i64))]
    pub threads: u16,
    /// Input format (auto: detected from a sample of the input).
    #[arg(long, default_value_t = FormatChoice::Auto, value_parser = format_choice())]
    pub format: FormatChoice,
    /// Output format (auto: a text input's own format; a Parquet or Arrow input's output follows
    /// the output file's name: .parquet or .pq, .arrow, .feather or .ipc, .csv, else one answer
    /// per line).
    #[arg(long, default_value_t = OutputFormat::Auto, value_parser = output_format())]
    pub output_format: OutputFormat,
    /// CSV, Parquet, Arrow: the name of the puzzle column.
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
    /// No summary, no progress bar, no messages about bad records.
    #[arg(short, long)]
    pub quiet: bool,
    /// Also print the summary as one JSON object on stderr.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub stats: Option<StatsArg>,
    /// Print at most N messages about bad records, then a count.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_messages: usize,
    /// Exit 0 even when some records are unsolvable, invalid or wrong (each still gets its
    /// status line and message): for use as a filter, as under Spark's `rdd.pipe(..., checkCode=True)`.
    #[arg(long)]
    pub exit_zero: bool,
}

/// `--solution-column`: for the commands that read or fill the solution column.
#[derive(Debug, clap::Args)]
pub struct SolutionColumn {
    /// CSV, Parquet, Arrow: the name of the solution column, which `check` verifies and `solve`
    /// fills (default: `solution`, `solutions` or `answer`).
    #[arg(long, value_name = "NAME")]
    pub solution_column: Option<String>,
}

/// `--shard`: for every batch command but `dedupe`, whose classes span the whole input.
#[derive(Debug, clap::Args)]
pub struct ShardArg {
    /// Answer only part K of N of a file (1 <= K <= N): the records whose first byte lies in the
    /// K-th of N equal byte ranges. The N outputs, concatenated in order, are the unsharded
    /// output; a CSV header is written by shard 1 only; line numbers are the whole file's.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
}

/// `--format`: the library's format names.
fn format_choice() -> impl TypedValueParser<Value = FormatChoice> {
    PossibleValuesParser::new(FormatChoice::names())
        .map(|name| name.parse().expect("a name the library listed"))
}

/// `--output-format`: the library's output format names.
fn output_format() -> impl TypedValueParser<Value = OutputFormat> {
    PossibleValuesParser::new(OutputFormat::NAMES)
        .map(|name| name.parse().expect("a name the library listed"))
}

/// `--mode`: the library's mode names, with what each does.
fn mode() -> impl TypedValueParser<Value = Mode> {
    let help = |mode| {
        match mode {
        Mode::Easy => {
            "Kaggle-like: removals that leave a naked or hidden single only; default 36 clues. Fast"
        }
        Mode::Unique => {
            "Removals checked by the solver's uniqueness count, down to the clue target (default 26)"
        }
        Mode::Minimal => "Every given is tried once: no given of the result can be removed",
    }
    };
    PossibleValuesParser::new(Mode::ALL.map(|m| PossibleValue::new(m.name()).help(help(m))))
        .map(|name| name.parse().expect("a name the library listed"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsArg {
    Json,
}

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::Generate(_) => "generate",
            Command::Bench(_) => "bench",
            Command::Completions { .. } => "completions",
            Command::Man => "man",
            // The subcommand, with or without `--explain`.
            Command::Grade { .. } => "grade",
            batch => batch.task().expect("a batch command has a task").name(),
        }
    }

    /// The task of a batch command.
    pub fn task(&self) -> Option<Task> {
        Some(match *self {
            Command::Solve { lexmin, .. } => Task::Solve { lexmin },
            Command::Count { limit, .. } => Task::Count { limit },
            Command::Check { unique, .. } => Task::Check { unique },
            Command::Canon { .. } => Task::Canon,
            Command::Rate { samples, seed, .. } => Task::Rate { samples, seed },
            Command::Grade {
                explain: false,
                nested,
                ..
            } => Task::Grade { nested },
            Command::Grade {
                explain: true,
                nested,
                ..
            } => Task::Explain { nested },
            Command::Dedupe { exact, .. } => Task::Dedupe { exact },
            Command::Generate(_)
            | Command::Bench(_)
            | Command::Completions { .. }
            | Command::Man => return None,
        })
    }

    /// The shared flags of the batch commands.
    pub fn common(&self) -> Option<&Common> {
        match self {
            Command::Solve { common, .. }
            | Command::Count { common, .. }
            | Command::Check { common, .. }
            | Command::Canon { common, .. }
            | Command::Rate { common, .. }
            | Command::Grade { common, .. }
            | Command::Dedupe { common, .. } => Some(common),
            Command::Generate(_)
            | Command::Bench(_)
            | Command::Completions { .. }
            | Command::Man => None,
        }
    }

    /// `--solution-column`, for the commands that have it.
    fn solution_column(&self) -> Option<String> {
        match self {
            Command::Solve { solution, .. } | Command::Check { solution, .. } => {
                solution.solution_column.clone()
            }
            _ => None,
        }
    }

    /// `--shard`, for the commands that have it.
    fn shard(&self) -> Option<Shard> {
        match self {
            Command::Solve { shard, .. }
            | Command::Count { shard, .. }
            | Command::Check { shard, .. }
            | Command::Canon { shard, .. }
            | Command::Rate { shard, .. }
            | Command::Grade { shard, .. } => shard.shard,
            _ => None,
        }
    }

    /// The batch engine's configuration, input and output (`None` for the other commands).
    pub fn batch(&self) -> Option<(Config, Input<'static>, Output<'static>)> {
        let common = self.common()?;
        let input = match &common.input {
            Some(p) if p.as_os_str() != "-" => Input::Path(p.clone()),
            _ => Input::Stdin,
        };
        let output = match &common.output {
            Some(p) if p.as_os_str() != "-" => Output::Path(p.clone()),
            _ => Output::writer("<stdout>", std::io::stdout()),
        };
        let config = Config::new(self.task()?)
            .format(common.format)
            .output_format(common.output_format)
            .column(common.column.clone())
            .solution_column(self.solution_column())
            .against(match self {
                Command::Dedupe { against, .. } => against.clone(),
                _ => None,
            })
            .against_column(match self {
                Command::Dedupe { against_column, .. } => against_column.clone(),
                _ => None,
            })
            .threads(usize::from(common.threads))
            .max_messages(if common.quiet { 0 } else { common.max_messages })
            .shard(self.shard())
            .keep_solution_column(matches!(
                self,
                Command::Solve {
                    keep_solution_column: true,
                    ..
                }
            ));
        Some((config, input, output))
    }
}

#[derive(Debug, clap::Args)]
pub struct GenerateArgs {
    /// Number of puzzles.
    #[arg(short = 'n', long = "count")]
    pub count: u64,
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Removal strategy.
    #[arg(long, default_value_t = Mode::Easy, value_parser = mode())]
    pub mode: Mode,
    /// Clue target: stop removing at this many givens (easy and unique modes only). If 16 fresh grids
    /// cannot reach it, the puzzle with the fewest givens is kept and the shortfall reported.
    #[arg(long, value_parser = clap::value_parser!(u8).range(17..=80))]
    pub clues: Option<u8>,
    /// Worker threads, 0 to 1024 (0: one per core). Does not change the output.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u16).range(0..=MAX_THREADS as i64))]
    pub threads: u16,
    /// Output file (written to a temporary name, renamed when complete); stdout if absent.
    #[arg(short = 'o', long)]
    pub output: Option<std::path::PathBuf>,
    /// Also write each puzzle's solution: `puzzle,solution` lines (which `check` reads), or an
    /// `answer` column.
    #[arg(long)]
    pub with_solution: bool,
    /// Also write each puzzle's rating, the figure `sudoku-batch rate` gives with its defaults.
    #[arg(long)]
    pub rating: bool,
    /// Output format: lines, or CSV with a header (`question`, then `answer` and `rating`); auto:
    /// CSV when OUTPUT ends in `.csv`, else lines.
    #[arg(long, value_name = "FORMAT", default_value = "auto", value_parser = ["auto", "line", "csv"])]
    pub output_format: String,
}

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Puzzle files, in any format a run reads (default: the generated sets
    /// data/generated_*.txt).
    pub files: Vec<std::path::PathBuf>,
    /// The files' format (auto: detected from a sample of each, as a run does).
    #[arg(long, default_value_t = FormatChoice::Auto, value_parser = format_choice())]
    pub format: FormatChoice,
    /// Minimum warm-up seconds per run; the first warm-up pass validates every result.
    #[arg(long, default_value_t = 0.3)]
    pub warmup: f64,
    /// Minimum measured seconds per run (file x mode x thread count).
    #[arg(long, default_value_t = 1.0)]
    pub min_time: f64,
    /// Thread counts, e.g. `1,2,4`; 0 is one per core (default: 1, 2, 4, ... up to the cores,
    /// and the core count).
    #[arg(short = 'j', long, value_name = "N,...", value_delimiter = ',',
          value_parser = clap::value_parser!(u16).range(0..=MAX_THREADS as i64))]
    pub threads: Option<Vec<u16>>,
    /// Print the results as JSON instead of Markdown tables.
    #[arg(long)]
    pub json: bool,
    /// Also write an SVG plot of puzzles/s against threads to FILE.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<std::path::PathBuf>,
}

/// The exit codes, as `--help` and the manual page state them (docs/formats.md has the table).
pub const EXIT_STATUS: [(&str, &str); 4] = [
    ("0", "every record answered (also an empty input, a closed output pipe, and bad records under --exit-zero)"),
    ("1", "some record unsolvable, invalid or (check) wrong, each still answered in its place; dedupe: a malformed record of the input or of --against; bench: a wrong answer"),
    ("2", "usage or I/O error, said on stderr; an output file (not stdout, even by name) is never left half written"),
    ("128+N", "stopped by signal N (130: Ctrl-C); an output file (not stdout, even by name) is never left half written"),
];

fn exit_status_help() -> String {
    let mut text = String::from("Exit status:");
    for (code, when) in EXIT_STATUS {
        text += &format!("\n  {code:<6} {when}");
    }
    text
}
