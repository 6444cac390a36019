//! The console: an org-wide view of every repository's dashboard, as a service a team runs
//! itself (ADR 0047). It learns from GitHub's webhook deliveries, reading each dashboard's
//! markers with the action's own reader, keeps stack-level facts only, and answers the
//! API the reference's command line and a team's agents use. It never previews and never
//! deploys.

pub mod api;
pub mod catch_up;
pub mod config;
pub mod config_pull_request;
pub mod facts;
pub mod github_app;
mod hooks;
mod log;
mod pages;
pub mod pick_up;
pub mod preview;
pub mod rescan;
pub mod settings;
mod signin;
pub mod store;
#[cfg(test)]
mod testing;
pub mod tick;
pub mod tokens;
pub mod view;
pub mod webhook;
mod workflow;

use std::sync::Arc;

use axum::Router;
use jiff::Timestamp;

pub use settings::{Given, Settings, SettingsError};
pub use store::{Store, StoreError};

/// The console's clock, injected so tests can hold time still.
pub type Clock = Arc<dyn Fn() -> Timestamp + Send + Sync>;

/// What every request shares: the settings, the store, the rate limits and the clock.
#[derive(Clone)]
pub struct Console {
    settings: Arc<Settings>,
    store: Store,
    limits: Arc<api::Limits>,
    members: Arc<api::Members>,
    org_views: Arc<api::OrgViews>,
    kept_repos: Arc<pages::KeptRepos>,
    reached: Arc<pages::Reached>,
    app: Arc<github_app::GitHubApp>,
    clock: Clock,
}

impl Console {
    pub fn new(settings: Settings, store: Store, clock: Clock) -> Console {
        let app = github_app::GitHubApp::new(settings.app.clone(), settings.github.clone());
        Console {
            app: Arc::new(app),
            settings: Arc::new(settings),
            store,
            limits: Arc::default(),
            members: Arc::default(),
            org_views: Arc::default(),
            kept_repos: Arc::default(),
            reached: Arc::default(),
            clock,
        }
    }

    /// Every route the console answers.
    pub fn router(self) -> Router {
        Router::new()
            .nest(
                "/api/v1",
                api::routes().fallback(|| async { api::ApiError::NotFound }),
            )
            .merge(hooks::routes())
            .merge(signin::routes())
            .merge(pages::routes())
            .with_state(self)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the data folder could not be made: {0}")]
    Data(std::io::ErrorKind),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the console could not listen on {address}: {reason}")]
    Listen {
        address: std::net::SocketAddr,
        reason: std::io::ErrorKind,
    },
    #[error("the console stopped answering: {0}")]
    Serve(std::io::ErrorKind),
}

/// Opens the store and answers until `stop` resolves.
pub async fn serve(
    settings: Settings,
    stop: impl std::future::Future<Output = ()> + Send + 'static,
    listening: impl FnOnce(std::net::SocketAddr),
) -> Result<(), ServeError> {
    if settings.database_url.starts_with("sqlite:") {
        std::fs::create_dir_all(&settings.data).map_err(|e| ServeError::Data(e.kind()))?;
    }
    let store = Store::open(&settings.database_url).await?;
    let address = settings.listen;
    let listener =
        tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| ServeError::Listen {
                address,
                reason: e.kind(),
            })?;
    let bound = listener.local_addr().map_err(|e| ServeError::Listen {
        address,
        reason: e.kind(),
    })?;
    listening(bound);
    let mut settings = settings;
    if settings.public_url_follows_listen {
        settings.public_url = format!("http://{bound}");
    }
    let catch_up_every = settings.catch_up_every;
    let console = Console::new(settings, store, Arc::new(Timestamp::now));
    tokio::spawn(catch_up::every(console.clone(), catch_up_every));
    axum::serve(listener, console.router())
        .with_graceful_shutdown(stop)
        .await
        .map_err(|e| ServeError::Serve(e.kind()))
}
