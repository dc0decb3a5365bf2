//! Command-line flags only: clap types live here and are turned into an engine [`Config`] by
//! [`Cli::into_config`]. The engine never sees clap.

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

use sudoku_batch::batch::{Config, Input, Output};
use sudoku_batch::formats::{FormatChoice, Task};

#[derive(Debug, Parser)]
#[command(
    name = "sudoku-batch",
    version,
    about = "Fast batch Sudoku solver: every core, input order, nothing lost"
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
        /// Give the lexicographically smallest solution (row-major, digits ascending).
        #[arg(long)]
        lexmin: bool,
    },
    /// Count the solutions of every puzzle up to a limit (`N+` when reached): the uniqueness check.
    Count {
        #[command(flatten)]
        common: Common,
        /// Stop counting at N solutions.
        #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..))]
        limit: u32,
    },
    /// Verify the solutions that INPUT carries (CSV with a solution column, or `puzzle,solution` lines).
    Check {
        #[command(flatten)]
        common: Common,
        /// Also require each puzzle to have only that one solution.
        #[arg(long)]
        unique: bool,
    },
}

#[derive(Debug, clap::Args)]
pub struct Common {
    /// Input file, or `-` for stdin.
    pub input: Option<PathBuf>,
    /// Output file (default: stdout); written under a temporary name, renamed into place on success.
    #[arg(short, long, value_name = "OUTPUT")]
    pub output: Option<PathBuf>,
    /// Worker threads (0: one per core).
    #[arg(short = 'j', long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Input format (auto: detected from the first record).
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// CSV: the header name of the puzzle column.
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Auto,
    Line,
    Grid,
    Csv,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StatsArg {
    Json,
}

impl Command {
    pub fn name(&self) -> &'static str {
        match self {
            Command::Solve { .. } => "solve",
            Command::Count { .. } => "count",
            Command::Check { .. } => "check",
        }
    }

    pub fn common(&self) -> &Common {
        match self {
            Command::Solve { common, .. }
            | Command::Count { common, .. }
            | Command::Check { common, .. } => common,
        }
    }

    /// The engine configuration; `progress` says whether a progress bar may be drawn.
    pub fn to_config(&self, progress: bool) -> Config {
        let common = self.common();
        let task = match *self {
            Command::Solve { lexmin, .. } => Task::Solve { lexmin },
            Command::Count { limit, .. } => Task::Count { limit },
            Command::Check { unique, .. } => Task::Check { unique },
        };
        let input = match &common.input {
            Some(p) if p.as_os_str() != "-" => Input::Path(p.clone()),
            _ => Input::Stdin,
        };
        let output = match &common.output {
            Some(p) if p.as_os_str() != "-" => Output::Path(p.clone()),
            _ => Output::Stdout,
        };
        Config {
            input,
            output,
            threads: common.threads,
            task,
            format: match common.format {
                FormatArg::Auto => FormatChoice::Auto,
                FormatArg::Line => FormatChoice::Line,
                FormatArg::Grid => FormatChoice::Grid,
                FormatArg::Csv => FormatChoice::Csv,
            },
            column: common.column.clone(),
            progress: progress && !common.quiet,
            message_cap: if common.quiet { 0 } else { common.max_messages },
        }
    }
}
