#!/usr/bin/env bash
# Starts or stops a PgBouncer in transaction mode in front of a PostgreSQL server, for tests and CI:
# the way managed PostgreSQL is usually reached.
#   scripts/pgbouncer.sh start DIR PORT SERVER_URL -> prints postgres://USER@127.0.0.1:PORT/postgres
#   scripts/pgbouncer.sh stop DIR
# Every database name goes to that server (the tests create a database per file). The bouncer
# trusts its clients on loopback and logs in to the server as SERVER_URL's user (with its password,
# if it has one). PgBouncer refuses to run as root, so as root it runs as the `postgres` user.
set -euo pipefail
action=$1 dir=$2 port=${3:-54330} server=${4:-}
as_owner() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case "$action" in
  start)
    command -v pgbouncer >/dev/null || { echo "pgbouncer is not installed" >&2; exit 1; }
    [[ $server =~ ^postgres(ql)?://(([^:@/]+)(:([^@/]*))?@)?([^:/?]+)(:([0-9]+))? ]] ||
      { echo "SERVER_URL must be postgres://[user[:password]@]host[:port]/..." >&2; exit 2; }
    user=${BASH_REMATCH[3]:-postgres} password=${BASH_REMATCH[5]}
    host=${BASH_REMATCH[6]} server_port=${BASH_REMATCH[8]:-5432}
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    echo "\"$user\" \"$password\"" >"$dir/userlist.txt"
    # Pools are per database; tests hold several transactions at once on theirs. The timeouts make
    # a stopped server an error within seconds instead of minutes, and a restarted one usable at once.
    cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$host port=$server_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
admin_users = $user
pool_mode = transaction
max_client_conn = 900
default_pool_size = 20
server_idle_timeout = 30
query_wait_timeout = 5
server_login_retry = 1
log_connections = 0
log_disconnections = 0
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
EOF
    chmod 600 "$dir/userlist.txt"
    [ "$(id -u)" = 0 ] && chown postgres "$dir/userlist.txt" "$dir/pgbouncer.ini"
    as_owner pgbouncer -d -q "$dir/pgbouncer.ini"
    for _ in $(seq 100); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        echo "postgres://$user@127.0.0.1:$port/postgres"
        exit 0
      fi
      sleep 0.1
    done
    echo "PgBouncer did not start listening on $port: see $dir/pgbouncer.log" >&2
    exit 1
    ;;
  stop)
    if [ -f "$dir/pgbouncer.pid" ]; then
      pid=$(cat "$dir/pgbouncer.pid")
      kill -TERM "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    ;;
  *) echo "usage: $0 start DIR PORT SERVER_URL | stop DIR" >&2; exit 2 ;;
esac
