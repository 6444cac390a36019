-- Whether a repository's sluiceway.yaml names the console's bot in recordWriters, as
-- read at a scanned commit: read again when the scan's commit moves on.
CREATE TABLE record_writers (
    org TEXT NOT NULL,
    repo TEXT NOT NULL,
    sha TEXT NOT NULL,
    named BIGINT NOT NULL,
    PRIMARY KEY (org, repo)
);
