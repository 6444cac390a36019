//! `sluiceway-book`: draws the book's references from the code, checks its pages, and
//! checks the built book's links. `scripts/build-book.sh` runs all three around mdBook.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use sluiceway_book::{Workspace, links};

#[derive(Parser)]
#[command(about = "The book's references and checks")]
struct Cli {
    /// The repository root.
    #[arg(long, default_value = ".")]
    root: PathBuf,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Write the references the code draws into docs/book/src.
    Generate,
    /// Fail when a drawn reference is not what the code draws today, or a page names a
    /// key that does not exist or shows a YAML example that is no file.
    Check,
    /// Fail when a link of the book built into DEST leads nowhere.
    Links { dest: PathBuf },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            say(&format!("error: {e:#}"));
            ExitCode::from(1)
        }
    }
}

fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Whether all went well; what did not is said on stderr.
fn run(cli: Cli) -> anyhow::Result<bool> {
    let workspace = Workspace::new(&cli.root);
    match cli.command {
        Command::Generate => {
            let drawn = workspace.drawn()?;
            for stale in workspace.stale(&drawn) {
                std::fs::remove_file(workspace.src().join(&stale))
                    .with_context(|| stale.display().to_string())?;
            }
            for (page, text) in &drawn {
                let path = workspace.src().join(page);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(&path, text).with_context(|| path.display().to_string())?;
            }
            say(&format!("{} pages drawn", drawn.len()));
            Ok(true)
        }
        Command::Check => {
            let problems = workspace.problems()?;
            for problem in &problems {
                say(problem);
            }
            Ok(problems.is_empty())
        }
        Command::Links { dest } => {
            let broken = links::check(&dest)?;
            for link in &broken {
                say(&format!("broken link: {link}"));
            }
            Ok(broken.is_empty())
        }
    }
}
