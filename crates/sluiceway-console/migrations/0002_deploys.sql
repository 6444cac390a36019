-- The deploys the console has heard of: Sluiceway's deployment records (their task names
-- a stack, their payload is read whole or not at all) and the trail's word for how each
-- ended. Never a status's own text.
CREATE TABLE deploys (
    org TEXT NOT NULL,
    repo TEXT NOT NULL,
    id BIGINT NOT NULL,
    stack TEXT NOT NULL,
    sha TEXT NOT NULL,
    ticker TEXT NOT NULL,
    on_merge BIGINT NOT NULL,
    drift BIGINT NOT NULL,
    run BIGINT NOT NULL,
    -- The repository's page on GitHub, whose address the run links start with.
    html_url TEXT NOT NULL,
    created_at TEXT NOT NULL,
    -- GitHub's state of the newest status heard of, and when it was set, in seconds since
    -- 1970 (so statuses that arrive out of order compare as numbers).
    status TEXT,
    status_at BIGINT,
    -- How the trail names the record once it ended: deployed, drift-fixed, drift-gone,
    -- no-changes, rehearsed, failed; not-a-deploy for one that moved or started again.
    ended TEXT,
    PRIMARY KEY (org, repo, id)
);
