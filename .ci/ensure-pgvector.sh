#!/usr/bin/env bash
# Makes sure the native PostgreSQL server (PG_MAJOR, default 15; .ci/run passes the running server's) has pgvector.
# pgvector is not packaged for Debian bookworm, so it is built from Debian trixie's source package.
set -euo pipefail

PG_MAJOR="${PG_MAJOR:-15}"
PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config"
EXT_DIR="$("$PG_CONFIG" --sharedir)/extension"

if [ -f "$EXT_DIR/vector.control" ]; then
  echo "pgvector: already installed in $EXT_DIR"
  exit 0
fi

echo "pgvector: missing, building from Debian trixie source"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-${PG_MAJOR}" build-essential dpkg-dev >/dev/null

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$work/trixie.list"
apt_opts=(-o "Dir::Etc::sourcelist=$work/trixie.list" -o "Dir::Etc::sourceparts=/dev/null" -o "Dir::State::Lists=$work/lists")
apt-get "${apt_opts[@]}" update -qq
(cd "$work" && apt-get "${apt_opts[@]}" source -qq pgvector >/dev/null)
src="$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)"
make -C "$src" PG_CONFIG="$PG_CONFIG" >/dev/null
make -C "$src" install PG_CONFIG="$PG_CONFIG" >/dev/null
echo "pgvector: installed $(grep default_version "$EXT_DIR/vector.control")"
