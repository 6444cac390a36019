//! A real, local Kubernetes control plane for recording kubectl fixtures.
//!
//! etcd, kube-apiserver and kube-controller-manager (built from the Go module proxy by
//! `scripts/build-control-plane.sh <version>`) run on loopback only, on free ports, with token
//! authentication, RBAC, and service-account keys made for this run. The controller
//! manager is there so Deployments really get ReplicaSets and status writes, which is what
//! makes a diff race (decision 0090). Every process is stopped when the guard is dropped,
//! on every way out.

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use thiserror::Error;

/// The kubeconfig context the recorder accepts besides `kind-*` ones.
pub const CONTEXT: &str = "sluiceway-fixtures";

/// The server versions we build, one for each kubectl version we record: kubectl is
/// recorded against a server of its own minor version, as a user's cluster pairs them.
pub const SERVERS: [&str; 2] = ["v1.34.4", "v1.37.2"];

/// The server of a kubectl version's minor (`v1.34.5` → `v1.34.4`), if we build one.
pub fn server_for(kubectl: &str) -> Option<&'static str> {
    let minor = |v: &str| -> Option<String> {
        let mut parts = v.trim_start_matches('v').split('.');
        Some(format!("{}.{}", parts.next()?, parts.next()?))
    };
    let want = minor(kubectl)?;
    SERVERS
        .into_iter()
        .find(|s| minor(s).as_deref() == Some(want.as_str()))
}

/// How long the API server gets to become ready.
const READY_WITHIN: Duration = Duration::from_secs(90);

#[derive(Debug, Error)]
pub enum ControlPlaneError {
    #[error(
        "the control plane's {0} is missing; run scripts/build-control-plane.sh <version> first"
    )]
    Missing(PathBuf),
    #[error("the control plane could not be set up: {what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
    #[error("{what} failed; its output:\n{output}")]
    Failed { what: String, output: String },
    #[error("the API server did not become ready within {} seconds; its last words:\n{log}", READY_WITHIN.as_secs())]
    NotReady { log: String },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> ControlPlaneError {
    let what = what.into();
    move |source| ControlPlaneError::Io { what, source }
}

/// Where the built binaries are.
#[derive(Debug, Clone)]
pub struct Binaries {
    pub etcd: PathBuf,
    pub kube_apiserver: PathBuf,
    pub kube_controller_manager: PathBuf,
}

impl Binaries {
    /// The binaries in a directory, as the build script leaves them.
    pub fn in_dir(dir: &Path) -> Result<Binaries, ControlPlaneError> {
        let binary = |name: &str| {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(ControlPlaneError::Missing(path))
            }
        };
        Ok(Binaries {
            etcd: binary("etcd")?,
            kube_apiserver: binary("kube-apiserver")?,
            kube_controller_manager: binary("kube-controller-manager")?,
        })
    }

    /// `$SLUICEWAY_CACHE/control-plane/<server>/bin`, or under `~/.cache/sluiceway`.
    pub fn cached(server: &str) -> Result<Binaries, ControlPlaneError> {
        Binaries::in_dir(&cache().join("control-plane").join(server).join("bin"))
    }
}

/// The cache the scripts fill: `$SLUICEWAY_CACHE`, or `~/.cache/sluiceway`.
fn cache() -> PathBuf {
    std::env::var_os("SLUICEWAY_CACHE")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache/sluiceway"))
        })
        .unwrap_or_else(|| PathBuf::from(".cache/sluiceway"))
}

/// A cached kubectl of `version` and the built server of its minor version: what a test
/// against a real control plane needs. `None` until the scripts have filled the cache.
pub fn cached_pair(version: &str) -> Option<(PathBuf, Binaries)> {
    let kubectl = cache().join("kubectl").join(version).join("kubectl");
    let binaries = Binaries::cached(server_for(version)?).ok()?;
    kubectl.is_file().then_some((kubectl, binaries))
}

/// A tool the scripts installed into the cache (`install-helm.sh v3.19.0` makes
/// `helm/v3.19.0/helm`); `None` until they have.
pub fn cached_tool(tool: &str, version: &str) -> Option<PathBuf> {
    let binary = cache().join(tool).join(version).join(tool);
    binary.is_file().then_some(binary)
}

/// A running control plane; dropping it stops every process it started.
pub struct ControlPlane {
    dir: tempfile::TempDir,
    children: Vec<(String, Child)>,
    kubeconfig: PathBuf,
}

fn free_port() -> Result<u16, ControlPlaneError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(io("a free loopback port"))?;
    Ok(listener
        .local_addr()
        .map_err(io("a free loopback port"))?
        .port())
}

fn run(what: &str, command: &mut Command) -> Result<Vec<u8>, ControlPlaneError> {
    let output = command.output().map_err(io(what))?;
    if output.status.success() {
        Ok(output.stdout)
    } else {
        let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&output.stderr));
        Err(ControlPlaneError::Failed {
            what: what.to_owned(),
            output: text,
        })
    }
}

fn random_token() -> Result<String, ControlPlaneError> {
    let mut bytes = [0u8; 16];
    fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(io("a random token"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl ControlPlane {
    /// Starts etcd, the API server and the controller manager, writes a kubeconfig with
    /// the context `sluiceway-fixtures`, and waits until `/readyz` answers, using
    /// `kubectl` to ask.
    pub fn start(binaries: &Binaries, kubectl: &Path) -> Result<ControlPlane, ControlPlaneError> {
        let dir = tempfile::Builder::new()
            .prefix("sluiceway-control-plane-")
            .tempdir()
            .map_err(io("a working directory"))?;
        let mut plane = ControlPlane {
            kubeconfig: dir.path().join("kubeconfig"),
            dir,
            children: Vec::new(),
        };
        let root = plane.dir.path().to_owned();
        let (etcd_client, etcd_peer, api) = (free_port()?, free_port()?, free_port()?);

        let key = root.join("service-account.key");
        let public = root.join("service-account.pub");
        run(
            "openssl genrsa",
            Command::new("openssl")
                .args(["genrsa", "-out"])
                .arg(&key)
                .arg("2048"),
        )?;
        run(
            "openssl rsa",
            Command::new("openssl")
                .args(["rsa", "-pubout", "-in"])
                .arg(&key)
                .arg("-out")
                .arg(&public),
        )?;
        let token = random_token()?;
        fs::write(
            root.join("tokens.csv"),
            format!("{token},sluiceway-admin,sluiceway-admin,system:masters\n"),
        )
        .map_err(io("the token file"))?;
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: {CONTEXT}\n  cluster:\n    server: https://127.0.0.1:{api}\n    insecure-skip-tls-verify: true\nusers:\n- name: sluiceway-admin\n  user:\n    token: {token}\ncontexts:\n- name: {CONTEXT}\n  context:\n    cluster: {CONTEXT}\n    user: sluiceway-admin\ncurrent-context: {CONTEXT}\n"
        );
        fs::write(&plane.kubeconfig, kubeconfig).map_err(io("the kubeconfig"))?;

        let etcd_url = format!("http://127.0.0.1:{etcd_client}");
        plane.spawn(
            "etcd",
            Command::new(&binaries.etcd)
                .arg(format!("--data-dir={}", root.join("etcd").display()))
                .arg(format!("--listen-client-urls={etcd_url}"))
                .arg(format!("--advertise-client-urls={etcd_url}"))
                .arg(format!("--listen-peer-urls=http://127.0.0.1:{etcd_peer}"))
                .arg(format!(
                    "--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer}"
                ))
                .arg(format!(
                    "--initial-cluster=default=http://127.0.0.1:{etcd_peer}"
                )),
        )?;
        plane.spawn(
            "kube-apiserver",
            Command::new(&binaries.kube_apiserver)
                .arg(format!("--etcd-servers={etcd_url}"))
                .arg("--bind-address=127.0.0.1")
                .arg("--advertise-address=127.0.0.1")
                // Loopback is no address for the `kubernetes` Service's endpoints (1.37
                // refuses it); nothing here reaches the API through that Service.
                .arg("--endpoint-reconciler-type=none")
                .arg(format!("--secure-port={api}"))
                .arg(format!("--cert-dir={}", root.join("certs").display()))
                .arg(format!(
                    "--token-auth-file={}",
                    root.join("tokens.csv").display()
                ))
                .arg("--authorization-mode=RBAC")
                .arg("--service-account-issuer=https://kubernetes.default.svc.cluster.local")
                .arg(format!("--service-account-key-file={}", public.display()))
                .arg(format!(
                    "--service-account-signing-key-file={}",
                    key.display()
                ))
                .arg("--service-cluster-ip-range=10.96.0.0/24"),
        )?;
        plane.wait_until_ready(kubectl)?;
        plane.spawn(
            "kube-controller-manager",
            Command::new(&binaries.kube_controller_manager)
                .arg(format!("--kubeconfig={}", plane.kubeconfig.display()))
                .arg(format!("--service-account-private-key-file={}", key.display()))
                .arg("--leader-elect=false")
                .arg("--secure-port=0")
                .arg("--controllers=deployment,replicaset,namespace,serviceaccount,serviceaccount-token,garbagecollector"),
        )?;
        Ok(plane)
    }

    pub fn kubeconfig(&self) -> &Path {
        &self.kubeconfig
    }

    /// The process ids of what is running, for tests that check nothing is left behind.
    pub fn pids(&self) -> Vec<u32> {
        self.children.iter().map(|(_, c)| c.id()).collect()
    }

    fn spawn(&mut self, name: &str, command: &mut Command) -> Result<(), ControlPlaneError> {
        let log = fs::File::create(self.dir.path().join(format!("{name}.log")))
            .map_err(io(format!("{name}'s log")))?;
        let err = log.try_clone().map_err(io(format!("{name}'s log")))?;
        let child = command
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            .spawn()
            .map_err(io(format!("starting {name}")))?;
        self.children.push((name.to_owned(), child));
        Ok(())
    }

    fn wait_until_ready(&mut self, kubectl: &Path) -> Result<(), ControlPlaneError> {
        let started = Instant::now();
        while started.elapsed() < READY_WITHIN {
            let ready = Command::new(kubectl)
                .arg(format!("--kubeconfig={}", self.kubeconfig.display()))
                .args(["get", "--raw=/readyz"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return Ok(());
            }
            if self
                .children
                .iter_mut()
                .any(|(_, c)| matches!(c.try_wait(), Ok(Some(_))))
            {
                break;
            }
            thread::sleep(Duration::from_millis(250));
        }
        let log =
            fs::read_to_string(self.dir.path().join("kube-apiserver.log")).unwrap_or_default();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        Err(ControlPlaneError::NotReady {
            log: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
        })
    }
}

impl Drop for ControlPlane {
    /// Stops the processes newest first (the controller manager, the API server, etcd):
    /// SIGTERM, then SIGKILL for what has not stopped after five seconds.
    fn drop(&mut self) {
        for (_, child) in self.children.iter_mut().rev() {
            if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            }
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline && matches!(child.try_wait(), Ok(None)) {
                thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
