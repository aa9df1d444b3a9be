#!/bin/sh
# First start of the database volume: the login role the application connects as. It is neither
# owner, superuser nor BYPASSRLS, so row-level security applies to it; migrations run as the owner
# (DATABASE_MIGRATION_URL) and grant it what it needs.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'ops_app') THEN
    CREATE ROLE ops_app LOGIN PASSWORD '${OPS_APP_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
  END IF;
END \$\$;
SQL
