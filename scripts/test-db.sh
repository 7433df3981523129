#!/usr/bin/env bash
# Makes sure a PostgreSQL server runs on 127.0.0.1:5432 and that the test
# database exists. Installs and starts PostgreSQL when it is missing or
# stopped (needs root for that). Prints the test database URL.
set -euo pipefail

host=${PGHOST:-127.0.0.1}
port=${PGPORT:-5432}
user=${PGUSER:-postgres}
db=${RYO_TEST_DB:-ryo_test}

say() { echo "test-db: $*" >&2; }

ready() { pg_isready -q -h "$host" -p "$port" 2>/dev/null; }

if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  say "PostgreSQL is not installed; installing it"
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi

if ! ready; then
  for version in $(ls /etc/postgresql 2>/dev/null); do
    say "starting PostgreSQL $version"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 || pg_ctlcluster "$version" main start >&2 || true
  done
  for _ in $(seq 1 60); do
    ready && break
    sleep 0.5
  done
  ready || { say "PostgreSQL did not come up on $host:$port"; exit 1; }
fi

# Trust auth for local TCP is what this machine uses; fall back to the
# postgres system user over the socket when TCP asks for a password.
psql_admin() {
  if psql -h "$host" -p "$port" -U "$user" -d postgres -tAc 'select 1' >/dev/null 2>&1; then
    psql -h "$host" -p "$port" -U "$user" -d postgres -v ON_ERROR_STOP=1 -tAc "$1"
  else
    su postgres -c "psql -d postgres -v ON_ERROR_STOP=1 -tAc \"$1\""
  fi
}

if [ "$(psql_admin "select 1 from pg_database where datname = '$db'")" != "1" ]; then
  say "creating database $db"
  psql_admin "create database $db" >/dev/null
fi

echo "postgres://$user@$host:$port/$db?sslmode=disable"
