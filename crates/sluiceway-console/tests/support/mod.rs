//! What the console's tests share: a real PostgreSQL of their own, started from Debian's
//! packages in a temporary folder and stopped when dropped.
#![allow(dead_code)] // each test binary uses its own part

use std::path::PathBuf;
use std::process::Command;

pub(crate) struct Postgres {
    folder: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    as_postgres: bool,
}

/// The newest PostgreSQL server installed from Debian's packages.
fn server_bin() -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists())
        .collect();
    found.sort();
    found.pop()
}

impl Postgres {
    /// A fresh server, or `None` when none is installed here; under CI a missing server
    /// fails the test instead.
    #[allow(
        clippy::print_stderr,
        reason = "a PostgreSQL half not run is announced on stderr"
    )]
    pub(crate) fn start() -> Option<Postgres> {
        let Some(bin) = server_bin() else {
            assert!(
                std::env::var_os("CI").is_none(),
                "PostgreSQL is not installed (/usr/lib/postgresql/*/bin/initdb); CI installs it"
            );
            eprintln!("notice: PostgreSQL is not installed here; the PostgreSQL half was not run");
            return None;
        };
        let folder = tempfile::tempdir().unwrap();
        // initdb refuses to run as root: root hands the folder to the postgres user.
        let as_postgres =
            String::from_utf8_lossy(&Command::new("id").arg("-u").output().unwrap().stdout).trim()
                == "0";
        if as_postgres {
            run(Command::new("chown")
                .args(["-R", "postgres:"])
                .arg(folder.path()));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let postgres = Postgres {
            folder,
            bin,
            port,
            as_postgres,
        };
        let data = postgres.data();
        run(postgres
            .command("initdb")
            .args([
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(&data));
        run(postgres
            .command("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(postgres.folder.path().join("log"))
            .arg("-o")
            .arg(format!(
                "-p {port} -h 127.0.0.1 -k {} -c fsync=off -c synchronous_commit=off",
                postgres.folder.path().display()
            ))
            .args(["-w", "start"]));
        Some(postgres)
    }

    fn data(&self) -> PathBuf {
        self.folder.path().join("data")
    }

    fn command(&self, program: &str) -> Command {
        if self.as_postgres {
            let mut command = Command::new("runuser");
            command
                .args(["-u", "postgres", "--"])
                .arg(self.bin.join(program));
            command
        } else {
            Command::new(self.bin.join(program))
        }
    }

    /// A client program of the server's, pointed at it as its superuser.
    fn client(&self, program: &str) -> Command {
        let mut command = self.command(program);
        command.args([
            "-h",
            "127.0.0.1",
            "-p",
            &self.port.to_string(),
            "-U",
            "postgres",
        ]);
        command
    }

    /// A new database of the server's, by its URL.
    pub(crate) fn database(&self, name: &str) -> String {
        run(self.client("createdb").arg(name));
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Everything a database holds, as `pg_dump` writes it.
    pub(crate) fn dump(&self, name: &str) -> String {
        let out = self.client("pg_dump").arg(name).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .arg("-D")
            .arg(self.data())
            .args(["-m", "immediate", "stop"])
            .output();
    }
}

fn run(command: &mut Command) {
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{command:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
