-- The console's first schema. One text for SQLite and PostgreSQL: every number is a
-- BIGINT (SQLite gives it integer affinity), every flag a BIGINT of 0 or 1, every time
-- RFC 3339 text. It keeps stack-level facts only (ADR 0047): never a resource name, a
-- property path, a value, a diff or a row's text.

-- Each webhook delivery GitHub made, by its id: a delivery is applied once, however
-- often it arrives and whichever console instance takes it.
CREATE TABLE deliveries (
    id TEXT PRIMARY KEY,
    event TEXT NOT NULL,
    received_at TEXT NOT NULL
);

-- A repository whose dashboard the console has read.
CREATE TABLE repos (
    org TEXT NOT NULL,
    name TEXT NOT NULL,
    -- The org's kind on GitHub: Organization or User.
    org_kind TEXT NOT NULL,
    -- The repository's page on GitHub, whose address the run and issue links start with.
    html_url TEXT NOT NULL,
    dashboard_number BIGINT NOT NULL,
    dashboard_url TEXT NOT NULL,
    scan_sha TEXT NOT NULL,
    scan_run BIGINT NOT NULL,
    scan_at TEXT NOT NULL,
    PRIMARY KEY (org, name)
);

-- One row of a dashboard, as its marker states it.
CREATE TABLE stacks (
    org TEXT NOT NULL,
    repo TEXT NOT NULL,
    stack TEXT NOT NULL,
    state TEXT NOT NULL,
    creates BIGINT NOT NULL,
    updates BIGINT NOT NULL,
    replaces BIGINT NOT NULL,
    deletes BIGINT NOT NULL,
    destroys BIGINT NOT NULL,
    tracking BIGINT NOT NULL,
    changed BIGINT NOT NULL,
    gone BIGINT NOT NULL,
    failed BIGINT NOT NULL,
    busy BIGINT NOT NULL,
    ticked BIGINT NOT NULL,
    PRIMARY KEY (org, repo, stack)
);

-- Personal tokens, by the SHA-256 of the token: the token itself is shown once and kept
-- nowhere.
CREATE TABLE tokens (
    hash TEXT PRIMARY KEY,
    org TEXT NOT NULL,
    login TEXT NOT NULL,
    name TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT
);
