#!/bin/sh
# The app's login role, made once when the postgres image initialises its data folder
# (docker-entrypoint-initdb.d); its rights come from app-role.sql once `qrels init` made the
# tables. Outside Docker, a superuser runs: CREATE ROLE qrels_app LOGIN PASSWORD '...';
set -eu
psql -v ON_ERROR_STOP=1 -v password="$QRELS_APP_PASSWORD" \
    --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<'SQL'
CREATE ROLE qrels_app LOGIN PASSWORD :'password';
SQL
