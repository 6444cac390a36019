use std::process::ExitCode;

use clap::Parser;

/// mimalloc, not the system's allocator: reading a tool's output builds many small
/// values on several threads at once, where it is about half as quick again (ADR 0041).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = sluiceway::cli::Cli::parse();
    let mut printer = sluiceway::base::printer::Printer::stdio();
    sluiceway::run(cli, &mut printer)
}
