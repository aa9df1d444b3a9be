#!/bin/sh
# First start of the database volume: docs/operations.md "Production database roles", with the passwords from the
# environment. The superuser (POSTGRES_USER) is used here only: migrations run as ops_owner, request
# work as ops_app (row-level security applies), system work as ops_system (the one BYPASSRLS role) and
# the sql tool as ops_sql_tool.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" <<SQL
CREATE ROLE ops_owner LOGIN PASSWORD '${OPS_OWNER_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
CREATE ROLE ops_app LOGIN PASSWORD '${OPS_APP_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
CREATE ROLE ops_sql_tool LOGIN PASSWORD '${OPS_SQL_TOOL_PASSWORD}' NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE;
CREATE ROLE ops_system LOGIN PASSWORD '${OPS_SYSTEM_PASSWORD}' NOSUPERUSER BYPASSRLS NOCREATEDB NOCREATEROLE;
CREATE DATABASE ${OPS_DATABASE:-ops} OWNER ops_owner;
\c ${OPS_DATABASE:-ops}
CREATE EXTENSION IF NOT EXISTS vector;
GRANT CREATE ON SCHEMA public TO ops_owner;
SQL
