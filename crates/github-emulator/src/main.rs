//! `sluiceway-github-emulator`: GitHub's stand-in as a process, for trying Sluiceway by
//! hand. It prints its address, then serves until stopped.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Parser;
use github_emulator::world::{AccountKind, Role};
use github_emulator::{Act, Descriptions, Emulator, Layout, Options, World};

/// A stateful stand-in for GitHub's REST and GraphQL APIs.
#[derive(Parser)]
#[command(version)]
struct Cli {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Keep the state in this JSON file: read at start when it exists, written after
    /// every change.
    #[arg(long)]
    state: Option<PathBuf>,
    /// Hold traffic to GitHub's published descriptions in this directory (see
    /// scripts/install-github-descriptions.sh); violations are listed at
    /// /_emulator/violations.
    #[arg(long)]
    check_against: Option<PathBuf>,
    /// Serve GitHub Enterprise Server's layout: REST under /api/v3, GraphQL at
    /// /api/graphql.
    #[arg(long)]
    enterprise: bool,
}

/// The first world of a new state: one repository, two people, a workflow, a token.
fn seed() -> anyhow::Result<World> {
    let mut world = World::new("2026-01-01T00:00:00Z".parse()?);
    let repo = "octo/infra";
    let acts = [
        Act::AddRepo {
            repo: repo.into(),
            default_branch: "main".into(),
        },
        Act::AddCollaborator {
            repo: repo.into(),
            login: "alice".into(),
            role: Role::Write,
        },
        Act::AddCollaborator {
            repo: repo.into(),
            login: "bob".into(),
            role: Role::Admin,
        },
        Act::AddAccount {
            login: "carol".into(),
            kind: AccountKind::User,
        },
        Act::AddWorkflow {
            repo: repo.into(),
            file: "sluiceway.yml".into(),
        },
        Act::AddToken {
            token: "emulator-token".into(),
            login: "github-actions[bot]".into(),
            permissions: None,
        },
        Act::CreateIssue {
            repo: repo.into(),
            author: "github-actions[bot]".into(),
            title: "Sluiceway".into(),
            body: "<!-- sluiceway:dashboard -->\n- [ ] **apps/web**".into(),
            labels: vec!["sluiceway".into()],
        },
    ];
    for act in acts {
        act.apply(&mut world)
            .map_err(|refusal| anyhow::anyhow!("seeding the world: {refusal}"))?;
    }
    Ok(world)
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let world = match &cli.state {
        Some(path) if path.exists() => {
            let text =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            serde_json::from_slice(&text)
                .with_context(|| format!("{} is not an emulator state", path.display()))?
        }
        _ => seed()?,
    };
    let descriptions = match &cli.check_against {
        Some(dir) => Some(Arc::new(Descriptions::load(dir)?)),
        None => None,
    };
    let emulator = Emulator::start(
        world,
        Options {
            address: Some(SocketAddr::from(([127, 0, 0, 1], cli.port))),
            layout: if cli.enterprise {
                Layout::EnterpriseServer
            } else {
                Layout::GitHubCom
            },
            descriptions,
            save_to: cli.state.clone(),
        },
    )?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "listening on {} (GITHUB_API_URL={}; a new state's token is emulator-token)",
        emulator.base_url(),
        emulator.api_url()
    )?;
    out.flush()?;
    drop(out);
    emulator.wait();
    Ok(())
}
