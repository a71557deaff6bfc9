#!/usr/bin/env bash
# A throw-away PostgreSQL cluster on 127.0.0.1 for the tests (CONTRACT: DOMMON_TEST_DATABASE_URL).
#   scripts/pg-cluster.sh start DIR   -> initdb + start in DIR, prints the URL on stdout
#   scripts/pg-cluster.sh stop DIR    -> stops it and removes DIR
#   scripts/pg-cluster.sh pause DIR   -> stops the server, keeps DIR (tests of a server restart)
#   scripts/pg-cluster.sh resume DIR  -> starts it again on the same port
# Uses Debian's packages (postgresql); installs them when missing and running as root with apt-get.
# As root the server runs as the `postgres` user (PostgreSQL refuses to run as root).
set -euo pipefail
cmd="${1:?start|stop}"
dir="${2:?directory}"

bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)"
  if [ -z "$d" ] && command -v pg_ctl >/dev/null 2>&1; then d="$(dirname "$(command -v pg_ctl)")"; fi
  echo "$d"
}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_server() {
  as_owner "$1/pg_ctl" -D "$2/data" -l "$2/server.log" -w -t 60 \
    -o "-h 127.0.0.1 -p $3 -k $2 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 ${DOMMON_PG_EXTRA:-}" start >/dev/null
}

case "$cmd" in
  start)
    bin="$(bindir)"
    if [ -z "$bin" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null) >&2 || true
      bin="$(bindir)"
    fi
    if [ -z "$bin" ]; then echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; fi
    if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then useradd --system --home-dir "$dir" postgres; fi
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then
      chown postgres "$dir"
      # The server's user must be able to reach DIR (mktemp makes parents 0700).
      chmod a+x "$(dirname "$dir")"
    fi
    # A free port chosen by the kernel.
    port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
    as_owner "$bin/initdb" -D "$dir/data" -U dommon --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    echo "$port" > "$dir/port"
    start_server "$bin" "$dir" "$port"
    echo "postgres://dommon@127.0.0.1:$port/postgres"
    ;;
  pause)
    as_owner "$(bindir)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  resume)
    start_server "$(bindir)" "$dir" "$(cat "$dir/port")"
    ;;
  stop)
    bin="$(bindir)"
    if [ -n "$bin" ] && [ -d "$dir/data" ]; then as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
    rm -rf "$dir"
    ;;
  *) echo "usage: $0 start|stop|pause|resume DIR" >&2; exit 2 ;;
esac
