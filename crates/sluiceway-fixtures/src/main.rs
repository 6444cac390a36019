use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sluiceway_fixtures::replay::{self, Tool};

/// Sluiceway's fixtures: recordings of real tool runs, and what Sluiceway reads from them.
#[derive(Debug, Parser)]
#[command(name = "sluiceway-fixtures", version, about, max_term_width = 100)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run an adapter against a recorded scenario and print what it made of it.
    ///
    /// Works on any scenario directory in the recording format. Exits 1 when the scenario
    /// cannot be replayed (an unreadable recording, a call the recording does not hold, a
    /// recorded command the adapter never asked for).
    Replay {
        #[arg(long, value_enum)]
        tool: Tool,
        /// The example project the scenario was recorded from, as it was then.
        #[arg(long, value_name = "PROJECT-DIR")]
        example: PathBuf,
        /// The scenario directory (it holds recording.json).
        scenario: PathBuf,
        /// Print one JSON document.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Replay {
            tool,
            example,
            scenario,
            json,
        } => match replay::replay(tool, &example, &scenario) {
            Ok(report) => {
                let text = if json {
                    format!(
                        "{}\n",
                        serde_json::to_string_pretty(&report).unwrap_or_default()
                    )
                } else {
                    replay::text(&report)
                };
                print(&text);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprint(&format!("error: {e}\n"));
                ExitCode::from(1)
            }
        },
    }
}

fn print(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

fn eprint(text: &str) {
    use std::io::Write;
    let _ = std::io::stderr().write_all(text.as_bytes());
}
