use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = sluiceway::cli::Cli::parse();
    let mut printer = sluiceway::base::printer::Printer::stdio();
    sluiceway::run(cli, &mut printer)
}
