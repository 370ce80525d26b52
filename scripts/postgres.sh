#!/usr/bin/env bash
# Starts or stops a throwaway PostgreSQL cluster for tests and the benchmark.
#   scripts/postgres.sh start DIR PORT   -> prints postgres://postgres@127.0.0.1:PORT/postgres
#   scripts/postgres.sh stop DIR
# PostgreSQL refuses to run as root, so as root it runs as the `postgres` user.
set -euo pipefail
action=$1 dir=$2 port=${3:-54329}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$bin" ] || bin=$(dirname "$(command -v pg_ctl)")
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "$action" in
  start)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust -E UTF8 >/dev/null
    fi
    as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k /tmp -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
    echo "postgres://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    [ -f "$dir/postmaster.pid" ] && as_owner "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null || true
    ;;
  *) echo "usage: $0 start|stop DIR [PORT]" >&2; exit 2 ;;
esac
