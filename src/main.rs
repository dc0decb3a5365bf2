mod cli;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};
use sudoku_batch::batch::{self, BatchError, Summary};

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    let common = cli.command.common();
    if common.input.is_none() && std::io::stdin().is_terminal() {
        let mut cmd = cli::Cli::command();
        cmd.build();
        if let Some(sub) = cmd.find_subcommand_mut(cli.command.name()) {
            let _ = write!(std::io::stderr(), "{}", sub.render_help());
        }
        return ExitCode::from(2);
    }
    let config = cli.command.to_config(std::io::stderr().is_terminal());
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
