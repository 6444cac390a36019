-- Each org's facts version, moved on by every delivery that changes them, in the
-- delivery's own transaction: an instance may keep an answer drawn at a version and give
-- it again while the version stands, however many instances share the database.
CREATE TABLE org_versions (
    org TEXT PRIMARY KEY,
    version BIGINT NOT NULL
);
