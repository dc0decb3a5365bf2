mod cli;

use clap::Parser;

fn main() {
    let cli = cli::Cli::parse();
    match cli.command {
        cli::Command::Solve(_) => {
            eprintln!("sudoku-batch: solve is not implemented yet");
            std::process::exit(2);
        }
    }
}
