#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the PostgreSQL session-store tests.
#
#   test/postgres/cluster.sh start DIR   # prints: export HELIOS_TEST_POSTGRES_URL=...
#   test/postgres/cluster.sh stop DIR    # stops the cluster (DIR is left to the caller)
#
# start uses the newest /usr/lib/postgresql/*/bin (or pg_config's); when there
# is none and we are root, it installs Debian's postgresql package first. As
# root, the cluster runs as the postgres user (initdb refuses root). It listens
# on 127.0.0.1 at a free port, with a random password for the user helios and
# a database helios_test.
set -euo pipefail

die() { echo "postgres cluster: $*" >&2; exit 1; }

bindir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$d" ] && command -v pg_config >/dev/null; then d=$(pg_config --bindir); fi
  [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
}

# as runs a command as the cluster's owner: postgres when we are root.
as() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir=$1 bin
  bin=$(bindir || true)
  # The package also creates the postgres user the cluster runs as.
  if [ -z "$bin" ] || { [ "$(id -u)" -eq 0 ] && ! id -u postgres >/dev/null 2>&1; }; then
    [ "$(id -u)" -eq 0 ] || die "no PostgreSQL server binaries found; install Debian's postgresql package"
    echo "postgres cluster: installing Debian's postgresql package" >&2
    apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
    bin=$(bindir) || die "postgresql installed but no initdb found"
  fi
  mkdir -p "$dir"
  [ "$(id -u)" -eq 0 ] && chown postgres "$dir"
  local pw
  pw=$(od -An -N12 -tx1 /dev/urandom | tr -d ' \n')
  as bash -c "printf '%s\n' '$pw' > '$dir/pw' && chmod 600 '$dir/pw'"
  as "$bin/initdb" -D "$dir/data" -U helios --pwfile="$dir/pw" --auth=scram-sha-256 -E UTF8 --locale=C >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
  local port ok=
  for _ in $(seq 1 20); do
    port=$(( 20000 + RANDOM % 30000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # taken
    if as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$dir' -c max_connections=400" start >&2; then
      ok=1; break
    fi
  done
  [ -n "$ok" ] || { cat "$dir/server.log" >&2 || true; die "the server did not start"; }
  echo "$port" > "$dir/port"
  PGPASSWORD=$pw "$bin/createdb" -h 127.0.0.1 -p "$port" -U helios helios_test
  echo "export HELIOS_TEST_POSTGRES_URL='postgres://helios:$pw@127.0.0.1:$port/helios_test?sslmode=disable'"
}

stop() {
  local dir=$1 bin
  bin=$(bindir) || die "no PostgreSQL server binaries found"
  [ -d "$dir/data" ] || return 0
  as "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
}

case "${1:-}" in
  start) [ $# -eq 2 ] || die "usage: $0 start DIR"; start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: $0 stop DIR"; stop "$2" ;;
  *) die "usage: $0 start|stop DIR" ;;
esac
