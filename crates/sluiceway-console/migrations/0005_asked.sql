-- What people asked the console to do on GitHub for them, for the audit log: a rescan
-- asked for, a settings pull request opened. Fixed words and GitHub's address of what
-- was made; never a setting's value.
CREATE TABLE asked (
    org TEXT NOT NULL,
    repo TEXT NOT NULL,
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    words TEXT NOT NULL,
    link TEXT,
    via TEXT NOT NULL
);
CREATE INDEX asked_by_org ON asked (org, at);
