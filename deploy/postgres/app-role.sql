-- What the app's database role may do: read, add and update rows (alembic_version only
-- read); delete only login throttling rows; no TRUNCATE, no DDL, and it owns nothing, so it cannot drop the triggers
-- that keep judgments, adjudications and releases append-only (README, "Security model").
--
-- Run by the owner of the tables (the role that ran `qrels init`), after `qrels init`:
--   psql "$OWNER_URL" -v ON_ERROR_STOP=1 -v app_role=qrels_app -v schema=public -f app-role.sql
-- The role must exist first (CREATE ROLE qrels_app LOGIN PASSWORD '...', by a superuser).
-- Tables a later `qrels init` adds get the same rights (the default privileges below).
-- tests/deploy/test_two_processes.py runs both app processes as such a role.

GRANT USAGE ON SCHEMA :"schema" TO :"app_role";
GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA :"schema" TO :"app_role";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA :"schema" TO :"app_role";
GRANT DELETE ON TABLE :"schema".login_throttle TO :"app_role";
-- The schema's revision is the owner's alone (`qrels init`): the app only reads it to check
-- that the schema is up to date. A role that could change it could make every command and
-- app process refuse the database, or let an old schema pass for a new one.
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON TABLE :"schema".alembic_version FROM :"app_role";

ALTER DEFAULT PRIVILEGES IN SCHEMA :"schema"
    GRANT SELECT, INSERT, UPDATE ON TABLES TO :"app_role";
ALTER DEFAULT PRIVILEGES IN SCHEMA :"schema"
    GRANT USAGE, SELECT ON SEQUENCES TO :"app_role";
