//! The console's store: SQLite in a file by default, PostgreSQL when the database URL
//! says so, through one schema and one set of migrations (ADR 0047). Every change a
//! delivery makes is written in the transaction that records the delivery, so a delivery
//! seen twice, by one instance or by two sharing a database, changes nothing the second
//! time.

use std::borrow::Cow;
use std::str::FromStr;

use jiff::Timestamp;
use sluiceway_dashboard::facts::RowState;
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Row, SqlSafeStr};

use crate::facts::{Dashboard, DeployFacts, Ended, Scan, StackFacts, StatusFacts};

/// The schema's migrations, oldest first, embedded in the binary.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "facts", include_str!("../migrations/0001_facts.sql")),
    (2, "deploys", include_str!("../migrations/0002_deploys.sql")),
    (
        3,
        "versions",
        include_str!("../migrations/0003_versions.sql"),
    ),
    (
        4,
        "sessions",
        include_str!("../migrations/0004_sessions.sql"),
    ),
    (5, "asked", include_str!("../migrations/0005_asked.sql")),
    (
        6,
        "record_writers",
        include_str!("../migrations/0006_record_writers.sql"),
    ),
];

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the database could not be opened: {0}")]
    Open(#[source] sqlx::Error),
    #[error("the database's schema could not be brought up to date: {0}")]
    Migrate(#[source] sqlx::migrate::MigrateError),
    #[error("the database did not answer: {0}")]
    Query(#[from] sqlx::Error),
    #[error("the database holds a {what} this version cannot read")]
    Unreadable { what: &'static str },
}

/// Where a repository is and what its dashboard last said, as one delivery tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoPlace {
    pub org: String,
    /// `Organization` or `User`, as GitHub names the owner's kind.
    pub org_kind: String,
    pub name: String,
    pub html_url: String,
    pub dashboard_number: u64,
    pub dashboard_url: String,
}

/// A repository as the store holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptRepo {
    pub place: RepoPlace,
    pub scan: Scan,
    pub stacks: Vec<StackFacts>,
    /// Whether `recordWriters` names the console's bot, and the commit that was read at.
    pub record_writer: Option<(String, bool)>,
}

/// Something a person asked the console to do on GitHub, as the audit log lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptAsked {
    pub repo: String,
    pub at: Timestamp,
    pub who: String,
    /// Fixed words: what was asked, never a value.
    pub words: String,
    /// GitHub's address of what was made, when something was.
    pub link: Option<String>,
    /// Where it was asked: `command line` for the API.
    pub via: String,
}

/// A deploy as the store holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptDeploy {
    pub repo: String,
    pub html_url: String,
    pub facts: DeployFacts,
}

/// A person signed in: who, the token the console's forms carry, and until when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptSession {
    pub login: String,
    pub form_token: String,
    pub expires_at: Timestamp,
}

/// A personal token's person, org and life, found by the token's hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptToken {
    pub org: String,
    pub login: String,
    pub name: String,
    pub expires_at: Timestamp,
    pub revoked: bool,
}

/// Whether a delivery changed the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    Now,
    /// Its id was recorded before: nothing was changed.
    Before,
}

#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
}

impl Store {
    /// Opens the database at `url` (`sqlite://…` or `postgres://…`) and brings its schema
    /// up to date; an instance that finds it current changes nothing.
    pub async fn open(url: &str) -> Result<Store, StoreError> {
        sqlx::any::install_default_drivers();
        let url = if url.starts_with("sqlite:") && !url.contains('?') {
            // A new console makes its file; a shared one waits for a writer, not fails.
            Cow::Owned(format!("{url}?mode=rwc"))
        } else {
            Cow::Borrowed(url)
        };
        let pool = AnyPoolOptions::new()
            .max_connections(if url.starts_with("sqlite:") { 1 } else { 8 })
            .connect(&url)
            .await
            .map_err(StoreError::Open)?;
        let migrator = Migrator::with_migrations(
            MIGRATIONS
                .iter()
                .map(|(version, name, sql)| {
                    Migration::new(
                        *version,
                        Cow::Borrowed(*name),
                        MigrationType::Simple,
                        sql.into_sql_str(),
                        false,
                    )
                })
                .collect(),
        );
        migrator.run(&pool).await.map_err(StoreError::Migrate)?;
        Ok(Store { pool })
    }

    /// Records delivery `id` and, when it is new, writes what `dashboard` says of the
    /// repository at `place`, all in one transaction.
    pub async fn apply_dashboard(
        &self,
        delivery: &str,
        event: &str,
        received_at: Timestamp,
        place: &RepoPlace,
        dashboard: &Dashboard,
    ) -> Result<Applied, StoreError> {
        let mut tx = self.pool.begin().await?;
        if record_delivery(&mut tx, delivery, event, received_at).await? == Applied::Before {
            return Ok(Applied::Before);
        }
        write_dashboard(&mut tx, place, dashboard).await?;
        tx.commit().await?;
        Ok(Applied::Now)
    }

    /// Writes what a dashboard read from GitHub says, outside any delivery: the catch-up
    /// after a restart or a delivery that never came.
    pub async fn refresh_dashboard(
        &self,
        place: &RepoPlace,
        dashboard: &Dashboard,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        write_dashboard(&mut tx, place, dashboard).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Every org the console keeps a repository of, with the first of them by name: a
    /// repository through which the app's installation on the org is found.
    pub async fn orgs_with_a_repo(&self) -> Result<Vec<(String, String)>, StoreError> {
        let rows =
            sqlx::query("SELECT org, MIN(name) AS name FROM repos GROUP BY org ORDER BY org")
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|row| Ok((row.try_get("org")?, row.try_get("name")?)))
            .collect()
    }

    /// Every org the console keeps a repository of.
    pub async fn orgs(&self) -> Result<Vec<String>, StoreError> {
        let rows = sqlx::query("SELECT DISTINCT org FROM repos ORDER BY org")
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| row.try_get("org").map_err(StoreError::from))
            .collect()
    }

    /// Records delivery `id` and, when it is new, what it says of a deployment record:
    /// the record once, and its status when it is newer than the one kept (deliveries may
    /// arrive out of order).
    pub async fn apply_deploy(
        &self,
        delivery: &str,
        event: &str,
        received_at: Timestamp,
        place: (&str, &str, &str),
        deploy: &DeployFacts,
    ) -> Result<Applied, StoreError> {
        let (org, repo, html_url) = place;
        let mut tx = self.pool.begin().await?;
        if record_delivery(&mut tx, delivery, event, received_at).await? == Applied::Before {
            return Ok(Applied::Before);
        }
        sqlx::query(
            "INSERT INTO deploys (org, repo, id, stack, sha, ticker, on_merge, drift, run, \
             html_url, created_at, status, status_at, ended) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, NULL, NULL) \
             ON CONFLICT (org, repo, id) DO NOTHING",
        )
        .bind(org)
        .bind(repo)
        .bind(number(deploy.id))
        .bind(&deploy.stack)
        .bind(&deploy.sha)
        .bind(&deploy.ticker)
        .bind(i64::from(deploy.on_merge))
        .bind(i64::from(deploy.drift))
        .bind(number(deploy.run))
        .bind(html_url)
        .bind(deploy.created_at.to_string())
        .execute(&mut *tx)
        .await?;
        if let Some(status) = &deploy.status {
            sqlx::query(
                "UPDATE deploys SET status = $1, status_at = $2, ended = $3 \
                 WHERE org = $4 AND repo = $5 AND id = $6 \
                 AND (status_at IS NULL OR status_at <= $7)",
            )
            .bind(&status.state)
            .bind(status.at.as_second())
            .bind(status.ended.map(Ended::name))
            .bind(org)
            .bind(repo)
            .bind(number(deploy.id))
            .bind(status.at.as_second())
            .execute(&mut *tx)
            .await?;
        }
        move_on(&mut tx, org).await?;
        tx.commit().await?;
        Ok(Applied::Now)
    }

    /// The deploys of `org` (of one repository, or one stack of it), newest first.
    pub async fn deploys(
        &self,
        org: &str,
        repo: Option<&str>,
        stack: Option<&str>,
    ) -> Result<Vec<KeptDeploy>, StoreError> {
        let rows = sqlx::query(
            "SELECT repo, id, stack, sha, ticker, on_merge, drift, run, html_url, created_at, \
             status, status_at, ended FROM deploys WHERE org = $1 \
             ORDER BY created_at DESC, id DESC",
        )
        .bind(org)
        .fetch_all(&self.pool)
        .await?;
        let mut kept = Vec::new();
        for row in &rows {
            let deploy = kept_deploy(row)?;
            if repo.is_none_or(|r| r.eq_ignore_ascii_case(&deploy.repo))
                && stack.is_none_or(|s| s == deploy.facts.stack)
            {
                kept.push(deploy);
            }
        }
        Ok(kept)
    }

    /// Keeps whether `recordWriters` at `sha` names the console's bot, and moves the org's
    /// version on so that no answer drawn before says otherwise.
    pub async fn set_record_writer(
        &self,
        org: &str,
        repo: &str,
        sha: &str,
        named: bool,
    ) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO record_writers (org, repo, sha, named) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (org, repo) DO UPDATE SET sha = $3, named = $4",
        )
        .bind(org)
        .bind(repo)
        .bind(sha)
        .bind(i64::from(named))
        .execute(&mut *tx)
        .await?;
        move_on(&mut tx, org).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Keeps a line of the audit log's `asked` for `org`.
    pub async fn record_asked(&self, org: &str, asked: &KeptAsked) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO asked (org, repo, at, who, words, link, via) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(org)
        .bind(&asked.repo)
        .bind(asked.at.to_string())
        .bind(&asked.who)
        .bind(&asked.words)
        .bind(asked.link.as_deref())
        .bind(&asked.via)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The asked lines of `org` (of one repository when `repo` says), newest first.
    pub async fn asked(&self, org: &str, repo: Option<&str>) -> Result<Vec<KeptAsked>, StoreError> {
        let rows = sqlx::query(
            "SELECT repo, at, who, words, link, via FROM asked WHERE org = $1 ORDER BY at DESC",
        )
        .bind(org)
        .fetch_all(&self.pool)
        .await?;
        let mut kept = Vec::new();
        for row in &rows {
            let line = KeptAsked {
                repo: row.try_get("repo")?,
                at: time(row, "at")?,
                who: row.try_get("who")?,
                words: row.try_get("words")?,
                link: row.try_get("link")?,
                via: row.try_get("via")?,
            };
            if repo.is_none_or(|r| r.eq_ignore_ascii_case(&line.repo)) {
                kept.push(line);
            }
        }
        Ok(kept)
    }

    /// Records a delivery the console reads nothing from, so a repeat is known as one.
    pub async fn note_delivery(
        &self,
        delivery: &str,
        event: &str,
        received_at: Timestamp,
    ) -> Result<Applied, StoreError> {
        let mut tx = self.pool.begin().await?;
        let applied = record_delivery(&mut tx, delivery, event, received_at).await?;
        tx.commit().await?;
        Ok(applied)
    }

    /// The version of `org`'s facts: 0 before any delivery changed them.
    pub async fn version(&self, org: &str) -> Result<i64, StoreError> {
        let row = sqlx::query("SELECT version FROM org_versions WHERE org = $1")
            .bind(org)
            .fetch_optional(&self.pool)
            .await?;
        Ok(match row {
            Some(row) => row.try_get("version")?,
            None => 0,
        })
    }

    /// One repository of `org`, by name (GitHub's names ignore case).
    pub async fn repo(&self, org: &str, name: &str) -> Result<Option<KeptRepo>, StoreError> {
        let row = sqlx::query(
            "SELECT r.org, r.name, r.org_kind, r.html_url, r.dashboard_number, r.dashboard_url, \
             r.scan_sha, r.scan_run, r.scan_at, w.sha AS writer_sha, w.named AS writer_named \
             FROM repos r LEFT JOIN record_writers w ON w.org = r.org AND w.repo = r.name \
             WHERE r.org = $1 AND LOWER(r.name) = LOWER($2)",
        )
        .bind(org)
        .bind(name)
        .fetch_optional(&self.pool)
        .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut kept = kept_repo(&row)?;
        let stacks = sqlx::query(
            "SELECT repo, stack, state, creates, updates, replaces, deletes, destroys, \
             tracking, changed, gone, failed, busy, ticked FROM stacks \
             WHERE org = $1 AND repo = $2 ORDER BY stack",
        )
        .bind(org)
        .bind(&kept.place.name)
        .fetch_all(&self.pool)
        .await?;
        kept.stacks = stacks.iter().map(stack_facts).collect::<Result<_, _>>()?;
        Ok(Some(kept))
    }

    /// Every repository of `org` the console has read a dashboard of, by name.
    pub async fn repos(&self, org: &str) -> Result<Vec<KeptRepo>, StoreError> {
        let rows = sqlx::query(
            "SELECT r.org, r.name, r.org_kind, r.html_url, r.dashboard_number, r.dashboard_url, \
             r.scan_sha, r.scan_run, r.scan_at, w.sha AS writer_sha, w.named AS writer_named \
             FROM repos r LEFT JOIN record_writers w ON w.org = r.org AND w.repo = r.name \
             WHERE r.org = $1 ORDER BY r.name",
        )
        .bind(org)
        .fetch_all(&self.pool)
        .await?;
        let stacks = sqlx::query(
            "SELECT repo, stack, state, creates, updates, replaces, deletes, destroys, \
             tracking, changed, gone, failed, busy, ticked FROM stacks WHERE org = $1 \
             ORDER BY repo, stack",
        )
        .bind(org)
        .fetch_all(&self.pool)
        .await?;
        let mut repos = rows.iter().map(kept_repo).collect::<Result<Vec<_>, _>>()?;
        let at: std::collections::HashMap<String, usize> = repos
            .iter()
            .enumerate()
            .map(|(i, r)| (r.place.name.clone(), i))
            .collect();
        for row in &stacks {
            let repo: String = row.try_get("repo")?;
            if let Some(i) = at.get(&repo) {
                repos[*i].stacks.push(stack_facts(row)?);
            }
        }
        Ok(repos)
    }

    /// Keeps a personal token by its hash.
    pub async fn add_token(&self, hash: &str, token: &KeptToken) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO tokens (hash, org, login, name, expires_at, revoked_at) \
             VALUES ($1, $2, $3, $4, $5, NULL)",
        )
        .bind(hash)
        .bind(&token.org)
        .bind(&token.login)
        .bind(&token.name)
        .bind(token.expires_at.to_string())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Revokes the tokens of `login` in `org` named `name` at `now`; answers how many
    /// were alive.
    pub async fn revoke_tokens(
        &self,
        org: &str,
        login: &str,
        name: &str,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let done = sqlx::query(
            "UPDATE tokens SET revoked_at = $1 \
             WHERE org = $2 AND login = $3 AND name = $4 AND revoked_at IS NULL",
        )
        .bind(now.to_string())
        .bind(org)
        .bind(login)
        .bind(name)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// The token whose hash is `hash`, revoked or not.
    /// Keeps a sign-in by its session's hash.
    pub async fn add_session(&self, hash: &str, session: &KeptSession) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO sessions (hash, login, form_token, expires_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(hash)
        .bind(&session.login)
        .bind(&session.form_token)
        .bind(session.expires_at.as_second())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The sign-in a session's hash names, if it is kept.
    pub async fn session(&self, hash: &str) -> Result<Option<KeptSession>, StoreError> {
        let row = sqlx::query("SELECT login, form_token, expires_at FROM sessions WHERE hash = $1")
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?;
        row.map(|row| {
            Ok(KeptSession {
                login: row.try_get("login")?,
                form_token: row.try_get("form_token")?,
                expires_at: Timestamp::from_second(row.try_get("expires_at")?)
                    .map_err(|_| StoreError::Unreadable { what: "time" })?,
            })
        })
        .transpose()
    }

    /// Ends a sign-in, and every sign-in that has ended by `now`.
    pub async fn end_session(&self, hash: &str, now: Timestamp) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM sessions WHERE hash = $1 OR expires_at <= $2")
            .bind(hash)
            .bind(now.as_second())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    pub async fn token(&self, hash: &str) -> Result<Option<KeptToken>, StoreError> {
        let row = sqlx::query(
            "SELECT org, login, name, expires_at, revoked_at FROM tokens WHERE hash = $1",
        )
        .bind(hash)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|row| {
            Ok(KeptToken {
                org: row.try_get("org")?,
                login: row.try_get("login")?,
                name: row.try_get("name")?,
                expires_at: time(&row, "expires_at")?,
                revoked: row.try_get::<Option<String>, _>("revoked_at")?.is_some(),
            })
        })
        .transpose()
    }
}

/// Moves `org`'s facts version on, inside the delivery's transaction.
async fn move_on(tx: &mut sqlx::Transaction<'_, sqlx::Any>, org: &str) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO org_versions (org, version) VALUES ($1, 1) \
         ON CONFLICT (org) DO UPDATE SET version = org_versions.version + 1",
    )
    .bind(org)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

async fn record_delivery(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    delivery: &str,
    event: &str,
    received_at: Timestamp,
) -> Result<Applied, StoreError> {
    let inserted = sqlx::query(
        "INSERT INTO deliveries (id, event, received_at) VALUES ($1, $2, $3) \
         ON CONFLICT (id) DO NOTHING",
    )
    .bind(delivery)
    .bind(event)
    .bind(received_at.to_string())
    .execute(&mut **tx)
    .await?;
    Ok(if inserted.rows_affected() == 1 {
        Applied::Now
    } else {
        Applied::Before
    })
}

/// Counts are kept as BIGINT; one past `i64::MAX` is not a count a dashboard holds.
fn number(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn unsigned(row: &AnyRow, column: &str) -> Result<u64, StoreError> {
    u64::try_from(row.try_get::<i64, _>(column)?).map_err(|_| StoreError::Unreadable {
        what: "negative count",
    })
}

fn time(row: &AnyRow, column: &str) -> Result<Timestamp, StoreError> {
    Timestamp::from_str(&row.try_get::<String, _>(column)?)
        .map_err(|_| StoreError::Unreadable { what: "time" })
}

fn kept_deploy(row: &AnyRow) -> Result<KeptDeploy, StoreError> {
    let status: Option<String> = row.try_get("status")?;
    let status = match status {
        None => None,
        Some(state) => {
            let at: Option<i64> = row.try_get("status_at")?;
            let ended: Option<String> = row.try_get("ended")?;
            Some(StatusFacts {
                state,
                at: at
                    .and_then(|t| Timestamp::from_second(t).ok())
                    .ok_or(StoreError::Unreadable { what: "time" })?,
                ended: match ended {
                    None => None,
                    Some(name) => {
                        Some(Ended::parse(&name).ok_or(StoreError::Unreadable { what: "ending" })?)
                    }
                },
            })
        }
    };
    Ok(KeptDeploy {
        repo: row.try_get("repo")?,
        html_url: row.try_get("html_url")?,
        facts: DeployFacts {
            id: unsigned(row, "id")?,
            stack: row.try_get("stack")?,
            sha: row.try_get("sha")?,
            ticker: row.try_get("ticker")?,
            on_merge: row.try_get::<i64, _>("on_merge")? == 1,
            drift: row.try_get::<i64, _>("drift")? == 1,
            run: unsigned(row, "run")?,
            created_at: time(row, "created_at")?,
            status,
        },
    })
}

fn kept_repo(row: &AnyRow) -> Result<KeptRepo, StoreError> {
    Ok(KeptRepo {
        place: RepoPlace {
            org: row.try_get("org")?,
            org_kind: row.try_get("org_kind")?,
            name: row.try_get("name")?,
            html_url: row.try_get("html_url")?,
            dashboard_number: unsigned(row, "dashboard_number")?,
            dashboard_url: row.try_get("dashboard_url")?,
        },
        scan: Scan {
            sha: row.try_get("scan_sha")?,
            run: unsigned(row, "scan_run")?,
            at: time(row, "scan_at")?,
        },
        stacks: Vec::new(),
        record_writer: match row.try_get::<Option<String>, _>("writer_sha")? {
            Some(sha) => Some((sha, row.try_get::<i64, _>("writer_named")? == 1)),
            None => None,
        },
    })
}

fn stack_facts(row: &AnyRow) -> Result<StackFacts, StoreError> {
    let state: String = row.try_get("state")?;
    Ok(StackFacts {
        stack: row.try_get("stack")?,
        state: RowState::parse(&state).ok_or(StoreError::Unreadable { what: "row state" })?,
        creates: unsigned(row, "creates")?,
        updates: unsigned(row, "updates")?,
        replaces: unsigned(row, "replaces")?,
        deletes: unsigned(row, "deletes")?,
        destroys: unsigned(row, "destroys")?,
        tracking: unsigned(row, "tracking")?,
        changed: unsigned(row, "changed")?,
        gone: unsigned(row, "gone")?,
        failed: row.try_get::<i64, _>("failed")? == 1,
        busy: row.try_get::<i64, _>("busy")? == 1,
        ticked: row.try_get::<i64, _>("ticked")? == 1,
    })
}

/// A repository's facts replaced by a dashboard's, and the org's version moved on.
async fn write_dashboard(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    place: &RepoPlace,
    dashboard: &Dashboard,
) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM repos WHERE org = $1 AND name = $2")
        .bind(&place.org)
        .bind(&place.name)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "INSERT INTO repos (org, name, org_kind, html_url, dashboard_number, dashboard_url, \
             scan_sha, scan_run, scan_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&place.org)
    .bind(&place.name)
    .bind(&place.org_kind)
    .bind(&place.html_url)
    .bind(number(place.dashboard_number))
    .bind(&place.dashboard_url)
    .bind(&dashboard.scan.sha)
    .bind(number(dashboard.scan.run))
    .bind(dashboard.scan.at.to_string())
    .execute(&mut **tx)
    .await?;
    sqlx::query("DELETE FROM stacks WHERE org = $1 AND repo = $2")
        .bind(&place.org)
        .bind(&place.name)
        .execute(&mut **tx)
        .await?;
    for stack in &dashboard.stacks {
        sqlx::query(
            "INSERT INTO stacks (org, repo, stack, state, creates, updates, replaces, \
                 deletes, destroys, tracking, changed, gone, failed, busy, ticked) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(&place.org)
        .bind(&place.name)
        .bind(&stack.stack)
        .bind(stack.state.name())
        .bind(number(stack.creates))
        .bind(number(stack.updates))
        .bind(number(stack.replaces))
        .bind(number(stack.deletes))
        .bind(number(stack.destroys))
        .bind(number(stack.tracking))
        .bind(number(stack.changed))
        .bind(number(stack.gone))
        .bind(i64::from(stack.failed))
        .bind(i64::from(stack.busy))
        .bind(i64::from(stack.ticked))
        .execute(&mut **tx)
        .await?;
    }
    move_on(tx, &place.org).await?;
    Ok(())
}
