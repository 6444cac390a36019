//! A stateful stand-in for GitHub: the REST and GraphQL endpoints Sluiceway's port
//! uses, over real HTTP, with real state (issues and their edit histories, deployment
//! records, check runs, workflow runs, commits, pull requests, people and their
//! permissions). Tests act as people through [`Emulator::act`], arm faults through
//! [`Emulator::arm`], and, when the emulator holds GitHub's published descriptions,
//! read every violation of them through [`Emulator::violations`].

mod admin;
pub mod apps;
pub mod description;
mod faults;
mod graphql;
pub mod hooks;
mod oauth;
mod rest;
mod server;
mod shapes;
pub mod world;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

pub use admin::Act;
pub use description::{DescriptionError, Descriptions};
pub use faults::{Fault, FaultKind};
pub use server::{Layout, Shared};
pub use world::{Refusal, World};

/// The emulator's GraphQL schema in SDL, for the test that holds it to GitHub's.
pub fn graphql_sdl() -> String {
    graphql::schema().sdl()
}

#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("could not listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("could not start the emulator's runtime: {0}")]
    Runtime(std::io::Error),
}

/// How to start one.
#[derive(Default)]
pub struct Options {
    pub address: Option<SocketAddr>,
    pub layout: Layout,
    pub descriptions: Option<Arc<Descriptions>>,
    pub save_to: Option<PathBuf>,
}

/// A running emulator on its own thread; dropping it stops it.
pub struct Emulator {
    shared: Shared,
    address: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Emulator {
    pub fn start(world: World, options: Options) -> Result<Emulator, StartError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(StartError::Runtime)?;
        let address = options
            .address
            .unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 0)));
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(address))
            .map_err(|source| StartError::Listen { address, source })?;
        let address = listener
            .local_addr()
            .map_err(|source| StartError::Listen { address, source })?;
        let shared = Shared::new(options.layout, world, options.descriptions, options.save_to);
        shared.set_origin(&format!("http://{address}"));
        let app = server::app(shared.clone());
        let (deliveries, queue) = tokio::sync::mpsc::unbounded_channel();
        shared.start_deliveries(deliveries);
        runtime.spawn(hooks::deliver(queue, shared.clone()));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        Ok(Emulator {
            shared,
            address,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>`: on GitHub.com's layout both `GITHUB_API_URL` and,
    /// with `/graphql`, `GITHUB_GRAPHQL_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// What the runner would set as `GITHUB_API_URL`.
    pub fn api_url(&self) -> String {
        self.shared.site().api.clone()
    }

    pub fn act(&self, act: Act) -> Result<serde_json::Value, Refusal> {
        self.shared.change(|w| act.apply(w))
    }

    /// Reads the world as it is now.
    pub fn world(&self) -> World {
        self.shared.read().clone()
    }

    pub fn arm(&self, fault: Fault) {
        self.shared.faults().arm(fault);
    }

    /// Arms a fault for the next webhook delivery not yet made.
    pub fn arm_delivery(&self, fault: hooks::DeliveryFault) {
        self.shared.arm_delivery(fault);
    }

    /// Every webhook delivery made so far, oldest first.
    pub fn deliveries(&self) -> Vec<hooks::Made> {
        self.shared.deliveries()
    }

    /// Every departure from GitHub's descriptions seen so far.
    pub fn violations(&self) -> Vec<String> {
        self.shared.violations()
    }

    /// Every request so far, as `METHOD /path/{template}` or `graphql Operation`.
    pub fn traffic(&self) -> Vec<String> {
        self.shared.traffic()
    }

    /// Serves until the process is stopped (the binary's way).
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Emulator {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
