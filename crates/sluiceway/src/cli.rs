//! The command line.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// Sluiceway keeps one GitHub issue, the dashboard, that shows which infrastructure
/// stacks have changes waiting, and deploys a stack when a person ticks its box.
///
/// `check`, `init`, `dashboard` and `schema` work on a checkout alone: no token, no tool,
/// no network. `scan` runs each stack's own tool; `run` is the GitHub Action's entry.
#[derive(Debug, Parser)]
#[command(name = "sluiceway", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check a repository's setup: the configuration, every stack found, what `ignore`
    /// leaves out, and the files no stack claims.
    ///
    /// Exits 0 when the setup is understood, 1 when `sluiceway.yaml` or discovery has a
    /// problem, 2 on a usage error. It reads files only; it cannot prove that previews
    /// will work.
    Check {
        /// The repository's root directory.
        #[arg(long, value_name = "DIR", default_value = ".")]
        repo: PathBuf,
        /// Print one JSON document (see docs/formats/check-json.md) instead of the report.
        #[arg(long)]
        json: bool,
        /// Also ask each Pulumi project's backend which of its stacks it holds
        /// (`pulumi stack ls`, read-only), with the tools and credentials of this machine.
        #[arg(long)]
        backend: bool,
    },
    /// Write a starter workflow (.github/workflows/deploy-dashboard.yml) and, when there
    /// is none, a first sluiceway.yaml read from the repository's files.
    ///
    /// Never overwrites a file unless --force is given (and then only the workflow), and
    /// commits nothing. It lists what it could not know.
    Init {
        /// The repository's root directory; it must be a git checkout.
        #[arg(long, value_name = "DIR", default_value = ".")]
        repo: PathBuf,
        /// Replace an existing .github/workflows/deploy-dashboard.yml.
        #[arg(long)]
        force: bool,
        /// Add only .github/workflows/sluiceway-check.yml: the action's files-only check
        /// on every pull request.
        #[arg(long)]
        check: bool,
        /// Write the sharded workflow instead: each scan a plan, a matrix of this many
        /// shards (4 when no number is given) and a join (docs/sharded-scan.md).
        #[arg(long, value_name = "SHARDS", num_args = 0..=1, default_missing_value = "4", value_parser = clap::value_parser!(u32).range(1..=256), conflicts_with = "check")]
        sharded: Option<u32>,
    },
    /// Preview every stack with its own tool and write the dashboard.
    ///
    /// In a GitHub Actions job it writes the dashboard issue. With --local it needs no
    /// GitHub: it writes dashboard.md (the body a scan would write), dashboard.html,
    /// summary.md and sluiceway-scan-result.json into --out, and prints the page's path.
    /// Exits 0 when the dashboard was written truthfully, 1 otherwise.
    Scan {
        /// Write into a folder instead of GitHub, with the tools and credentials at hand.
        #[arg(long)]
        local: bool,
        /// The repository's root directory (with --local; a job scans its checkout).
        #[arg(long, value_name = "DIR", default_value = ".", requires = "local")]
        repo: PathBuf,
        /// Where --local writes its files.
        #[arg(
            long,
            value_name = "DIR",
            default_value = "sluiceway-scan",
            requires = "local"
        )]
        out: PathBuf,
    },
    /// The GitHub Action's entry: read the `mode` input (default `auto`) and every other
    /// input from the job's environment, and run that mode.
    Run,
    /// Look at a dashboard body without GitHub: what its markers say, or how it renders.
    #[command(subcommand)]
    Dashboard(DashboardCommand),
    /// Sign in to a console with a personal token made on it. The token is read from a
    /// prompt that does not echo (or from standard input), checked with the console, and
    /// kept in ~/.config/sluiceway/tokens.json (mode 0600), never from the environment.
    Login {
        /// The console's address: https://…, or http:// to this machine.
        #[arg(long, value_name = "URL")]
        app: String,
    },
    /// Forget the token kept for a console on this machine.
    Logout {
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
    },
    /// Every stack of the org (or of one repository) in the console's five states, those
    /// that need a person first.
    ///
    /// Exits 0 done, 1 failed, 2 usage, 3 not signed in or the token no longer works, 4
    /// not found, 5 refused, 6 try again later.
    Status {
        /// A repository of the token's org: its name, or org/name.
        repo: Option<String>,
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
        /// Print the console's answer as it came.
        #[arg(long)]
        json: bool,
    },
    /// One stack's facts: its state, counts, what it deletes or replaces, its drift, its
    /// box. Exit codes as for status.
    Stack {
        /// A repository of the token's org: its name, or org/name.
        repo: String,
        /// The stack id, as its row names it.
        id: String,
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
        /// Print the console's answer as it came.
        #[arg(long)]
        json: bool,
    },
    /// One stack's full preview, as its preview page on GitHub lists it.
    ///
    /// The console reads the page when asked and keeps nothing of it: every change with
    /// its type, name and property paths. Exit codes as for status.
    Preview {
        /// A repository of the token's org: its name, or org/name.
        repo: String,
        /// The stack id, as its row names it.
        id: String,
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
        /// Print the console's answer as it came.
        #[arg(long)]
        json: bool,
    },
    /// Tick a stack through a console, as the signed-in person.
    ///
    /// The console judges the tick by the stack's tick rule and opens its deployment
    /// record; the dashboard's workflow deploys it only if a fresh preview matches the
    /// row. A stack that deletes or replaces resources needs --yes. Exit codes as for
    /// status; 5 when the console refused the tick or it must be made on the dashboard.
    Tick {
        /// A repository of the token's org: its name, or org/name.
        repo: String,
        /// The stack id, as its row names it.
        id: String,
        /// Tick a stack that deletes or replaces resources, as its row stands.
        #[arg(long)]
        yes: bool,
        /// How many seconds to follow the record once it is open (60 at most; 0 not at
        /// all).
        #[arg(long, value_name = "SECONDS", default_value_t = 60)]
        wait: u64,
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
        /// Print the console's answer as it came.
        #[arg(long)]
        json: bool,
    },
    /// Ask a console for a full scan of a repository, as the signed-in person.
    ///
    /// Write access is needed; nothing is asked while a run of the dashboard's workflow is
    /// queued or under way. Exit codes as for status.
    Rescan {
        /// A repository of the token's org: its name, or org/name.
        repo: String,
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
        /// Print the console's answer as it came.
        #[arg(long)]
        json: bool,
    },
    /// A repository's settings, or a pull request that changes some.
    ///
    /// The settings are the keys of sluiceway.yaml the console changes. Without `set`, every key the console changes with the value the file gives it.
    /// `set key=value …` asks the console to open one pull request on the branch
    /// sluiceway/dashboard that changes only those keys, every other line of the file
    /// kept; a value is read as YAML (`drift.enabled=false`, `tickers=[alice, bob]`), and
    /// `null` puts the action's default back. Write access is needed; a person merges the
    /// pull request. Exit codes as for status.
    Settings {
        /// A repository of the token's org: its name, or org/name.
        repo: String,
        #[command(subcommand)]
        change: Option<SettingsChange>,
        /// The console, when signed in to more than one.
        #[arg(long, value_name = "URL")]
        app: Option<String>,
        /// Print the console's answer as it came.
        #[arg(long)]
        json: bool,
    },
    /// The console: an org-wide view of every repository's dashboard, as a service a team
    /// runs itself (one binary; SQLite in its data folder, or PostgreSQL for more than one
    /// instance).
    #[command(subcommand)]
    Console(Box<ConsoleCommand>),
    /// Print the JSON Schema of sluiceway.yaml, for editors.
    ///
    /// Point yaml-language-server at it with a first line such as
    /// `# yaml-language-server: $schema=sluiceway.schema.json`.
    Schema {
        /// Print the schema of the scan's result file instead
        /// (docs/formats/scan-result.schema.json).
        #[arg(long, group = "format")]
        result_file: bool,
        /// Print the schema of apply's result file instead
        /// (docs/formats/apply-result.schema.json).
        #[arg(long, group = "format")]
        apply_result_file: bool,
        /// Print the schema of the document the webhook channel receives instead
        /// (docs/formats/notification.schema.json).
        #[arg(long, group = "format")]
        notification: bool,
        /// Print the schema of a sharded scan's plan instead
        /// (docs/formats/shard-plan.schema.json).
        #[arg(long, group = "format")]
        shard_plan: bool,
        /// Print the schema of a shard's partial result instead
        /// (docs/formats/partial-result.schema.json).
        #[arg(long, group = "format")]
        partial_result: bool,
        /// Print the schema of the preview times a sharded scan keeps instead
        /// (docs/formats/timings.schema.json).
        #[arg(long, group = "format")]
        timings: bool,
    },
}

/// A change of settings asked of a console.
#[derive(Debug, Subcommand)]
pub enum SettingsChange {
    /// Open a pull request that sets each key to its value.
    Set {
        /// `key=value`, as the settings list names the key.
        #[arg(required = true, value_name = "KEY=VALUE")]
        pairs: Vec<String>,
    },
}

#[derive(Debug, Subcommand)]
pub enum ConsoleCommand {
    /// Answer the API and take GitHub's webhook deliveries until stopped (Ctrl-C or
    /// SIGTERM).
    ///
    /// The console is a GitHub App: --app-id and the app's private key, read from
    /// SLUICEWAY_CONSOLE_APP_KEY or from the file --app-key-file names. The webhook secret
    /// is read from SLUICEWAY_CONSOLE_WEBHOOK_SECRET or from the file
    /// --webhook-secret-file names. Secrets are never flags. A missing or bad setting
    /// stops the console before it listens, naming the setting and never its value.
    Serve {
        #[command(flatten)]
        place: ConsolePlace,
        /// The address and port to listen on.
        #[arg(long, value_name = "ADDRESS", env = "SLUICEWAY_CONSOLE_LISTEN")]
        listen: Option<String>,
        /// Where people and the command line reach the console (default: http:// and the
        /// listening address); every page address in an answer starts with it.
        #[arg(long, value_name = "URL", env = "SLUICEWAY_CONSOLE_PUBLIC_URL")]
        public_url: Option<String>,
        /// A file holding the webhook secret the GitHub App signs its deliveries with.
        #[arg(
            long,
            value_name = "FILE",
            env = "SLUICEWAY_CONSOLE_WEBHOOK_SECRET_FILE"
        )]
        webhook_secret_file: Option<PathBuf>,
        /// GitHub's REST API: GitHub.com's unless given (an Enterprise Server's ends
        /// /api/v3).
        #[arg(long, value_name = "URL", env = "SLUICEWAY_CONSOLE_GITHUB_API_URL")]
        github_api_url: Option<String>,
        /// The GitHub App's id, as its page on GitHub shows it.
        #[arg(long, value_name = "NUMBER", env = "SLUICEWAY_CONSOLE_APP_ID")]
        app_id: Option<String>,
        /// A file holding the GitHub App's private key, in PEM as GitHub gave it.
        #[arg(long, value_name = "FILE", env = "SLUICEWAY_CONSOLE_APP_KEY_FILE")]
        app_key_file: Option<PathBuf>,
        /// How often, in seconds, every kept dashboard is read again from GitHub, for a
        /// delivery lost or sent while the console was down (default 300).
        #[arg(long, value_name = "SECONDS", env = "SLUICEWAY_CONSOLE_CATCH_UP_EVERY")]
        catch_up_every: Option<String>,
        /// The GitHub App's client id, for signing in with GitHub (its client secret from
        /// SLUICEWAY_CONSOLE_CLIENT_SECRET or --client-secret-file). Without it nobody
        /// signs in, and tokens are made with `sluiceway console token`.
        #[arg(long, value_name = "ID", env = "SLUICEWAY_CONSOLE_CLIENT_ID")]
        client_id: Option<String>,
        /// A file holding the GitHub App's client secret.
        #[arg(
            long,
            value_name = "FILE",
            env = "SLUICEWAY_CONSOLE_CLIENT_SECRET_FILE"
        )]
        client_secret_file: Option<PathBuf>,
        /// GitHub's pages, where a person approves signing in (default GitHub.com's).
        #[arg(long, value_name = "URL", env = "SLUICEWAY_CONSOLE_GITHUB_URL")]
        github_url: Option<String>,
    },
    /// Make a personal token for a person of an org, and print it once: the console keeps
    /// only its hash. For the console's operator, until people sign in with GitHub.
    Token {
        #[command(flatten)]
        place: ConsolePlace,
        #[command(flatten)]
        token: TokenName,
        /// How long it lives: 30, 90 or 365 days.
        #[arg(long, default_value_t = 90)]
        days: u16,
    },
    /// Revoke a person's tokens of an org by name: every call with them is refused from
    /// then on.
    Revoke {
        #[command(flatten)]
        place: ConsolePlace,
        #[command(flatten)]
        token: TokenName,
    },
}

/// A personal token's org, person and name.
#[derive(Debug, clap::Args)]
pub struct TokenName {
    /// The org the token is for.
    #[arg(long)]
    pub org: String,
    /// The person it acts as, by GitHub login.
    #[arg(long)]
    pub login: String,
    /// The name that says where the token is used.
    #[arg(long)]
    pub name: String,
}

/// Where a console keeps its facts.
#[derive(Debug, clap::Args)]
pub struct ConsolePlace {
    /// The folder the SQLite database is kept in (default: the console's folder under
    /// XDG_DATA_HOME, or ~/.local/share).
    #[arg(long, value_name = "DIR", env = "SLUICEWAY_CONSOLE_DATA")]
    pub data: Option<PathBuf>,
    /// A sqlite: or postgres: URL; PostgreSQL for more than one instance (default: a
    /// SQLite file in the data folder).
    #[arg(
        long,
        value_name = "URL",
        env = "SLUICEWAY_CONSOLE_DATABASE_URL",
        hide_env_values = true
    )]
    pub database_url: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum DashboardCommand {
    /// Print what a reader finds in a body: the root facts, each row with its marker facts
    /// and whether its box is ticked, and the rescan box. The text inside a row is never
    /// read.
    Read {
        /// A file holding the issue body.
        file: PathBuf,
        /// Print one JSON document (see docs/formats/dashboard-read-json.md).
        #[arg(long)]
        json: bool,
    },
    /// Write a self-contained HTML page that renders the body as GitHub-flavoured Markdown.
    Html {
        /// A file holding the issue body.
        file: PathBuf,
    },
    /// Write the header pictures (SVG, light and dark) into a directory.
    Pictures {
        /// Where to write them (the repository keeps them in assets/header).
        dir: PathBuf,
    },
}
