//! The `sluiceway` command: wiring, output and exit codes around the pure core.

pub mod base;
pub mod cli;
pub mod commands;
pub mod modes;
mod wiring;

use std::process::ExitCode;

pub use base::Outcome;
use base::printer::Printer;
use cli::{Cli, Command, ConsoleCommand, DashboardCommand};
use commands::{check, console, dashboard, init};

pub fn run(cli: Cli, printer: &mut Printer) -> ExitCode {
    let outcome = match cli.command {
        Command::Check {
            repo,
            json,
            backend,
        } => check::run(
            &repo,
            check::Voice::Terminal { json },
            backend,
            jiff::Timestamp::now(),
            printer,
        ),
        Command::Init {
            repo,
            force,
            check: true,
            ..
        } => init::add_check(&repo, force, printer),
        Command::Init {
            repo,
            force,
            sharded,
            ..
        } => init::run(&repo, force, sharded, printer),
        Command::Dashboard(DashboardCommand::Read { file, json }) => {
            dashboard::read(&file, json, printer)
        }
        Command::Dashboard(DashboardCommand::Html { file }) => dashboard::html(&file, printer),
        Command::Dashboard(DashboardCommand::Pictures { dir }) => {
            dashboard::write_pictures(&dir, printer)
        }
        Command::Scan {
            local: true,
            repo,
            out,
        } => wiring::local_scan(&repo, &out, printer),
        Command::Scan { local: false, .. } => {
            wiring::action(Some(modes::inputs::Mode::Scan), printer)
        }
        Command::Run => wiring::action(None, printer),
        Command::Login { app } => console::asks::login(&app, printer),
        Command::Logout { app } => console::asks::logout(app.as_deref(), printer),
        Command::Status { repo, app, json } => {
            console::asks::status(app.as_deref(), repo.as_deref(), json, printer)
        }
        Command::Stack {
            repo,
            id,
            app,
            json,
        } => console::asks::stack(app.as_deref(), &repo, &id, json, printer),
        Command::Preview {
            repo,
            id,
            app,
            json,
        } => console::asks::preview(app.as_deref(), &repo, &id, json, printer),
        Command::Tick {
            repo,
            id,
            yes,
            wait,
            app,
            json,
        } => console::asks::tick(app.as_deref(), &repo, &id, yes, wait, json, printer),
        Command::Rescan { repo, app, json } => {
            console::asks::rescan(app.as_deref(), &repo, json, printer)
        }
        Command::Settings {
            repo,
            change,
            app,
            json,
        } => {
            let pairs = change.map(|cli::SettingsChange::Set { pairs }| pairs);
            console::asks::settings(app.as_deref(), &repo, pairs.as_deref(), json, printer)
        }
        Command::Console(command) => console_command(*command, printer),
        Command::Schema {
            result_file,
            apply_result_file,
            notification,
            shard_plan,
            partial_result,
            timings,
        } => {
            use modes::scan::sharded::{partial, split};
            let schema = if result_file {
                modes::scan::result_file::schema()
            } else if apply_result_file {
                modes::apply::result_schema()
            } else if notification {
                modes::notify::message::webhook_schema()
            } else if shard_plan {
                split::plan_schema()
            } else if partial_result {
                partial::schema()
            } else if timings {
                split::timings_schema()
            } else {
                sluiceway_core::config::json_schema()
            };
            printer.result(&format!(
                "{}\n",
                serde_json::to_string_pretty(&schema).unwrap_or_default()
            ));
            Outcome::Done
        }
    };
    outcome.into()
}

/// Where the command line says a console keeps its facts.
fn console_place(place: cli::ConsolePlace) -> console::Place {
    console::Place {
        data: place.data,
        database_url: place.database_url,
    }
}

/// `sluiceway console …`: the service, and its operator's tokens.
fn console_command(command: ConsoleCommand, printer: &mut Printer) -> Outcome {
    match command {
        ConsoleCommand::Serve {
            place,
            listen,
            public_url,
            webhook_secret_file,
            github_api_url,
            app_id,
            app_key_file,
            catch_up_every,
            client_id,
            client_secret_file,
            github_url,
        } => console::serve(
            sluiceway_console::Given {
                listen,
                public_url,
                data: place.data,
                database_url: place.database_url,
                webhook_secret: std::env::var("SLUICEWAY_CONSOLE_WEBHOOK_SECRET").ok(),
                webhook_secret_file,
                github_api_url,
                app_id,
                app_key: std::env::var("SLUICEWAY_CONSOLE_APP_KEY").ok(),
                app_key_file,
                catch_up_every,
                github_url,
                client_id,
                client_secret: std::env::var("SLUICEWAY_CONSOLE_CLIENT_SECRET").ok(),
                client_secret_file,
            },
            printer,
        ),
        ConsoleCommand::Revoke { place, token } => console::revoke(
            console_place(place),
            &token.org,
            &token.login,
            &token.name,
            printer,
        ),
        ConsoleCommand::Token { place, token, days } => console::token(
            console_place(place),
            &token.org,
            &token.login,
            &token.name,
            days,
            printer,
        ),
    }
}
