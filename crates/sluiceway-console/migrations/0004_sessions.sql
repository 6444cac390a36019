-- People signed in through GitHub: the session's SHA-256 (its cookie holds the secret),
-- who, the form token that proves a form was the console's own, and until when. No
-- GitHub token is kept: the console drops a person's token once it knows who they are.
CREATE TABLE sessions (
    hash TEXT PRIMARY KEY,
    login TEXT NOT NULL,
    form_token TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
