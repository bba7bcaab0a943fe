#!/usr/bin/env bash
# Real PostgreSQL, Redis and MariaDB (for the MySQL store) for the store tests, without Docker: installed
# from Debian with apt-get, started on 127.0.0.1 on free ports with throw-away data directories (removed by `down`).
#
#   source .ci/engines.sh          # installs if needed, starts all three (again: no-op), exports the URLs below
#   .ci/engines.sh start|stop|restart postgres|redis|mysql   # control one engine; start and restart print its URL
#                                  # (the restart tests run private engines this way, in their own A2A_TEST_ENGINES_DIR)
#   .ci/engines.sh down            # stops them all and removes their data directories (from any shell)
#   .ci/engines.sh dir             # prints the folder that records the engines
#
# Exports A2A_TEST_POSTGRES_URL, A2A_TEST_REDIS_URL, A2A_TEST_MYSQL_URL and A2A_TEST_ENGINES_DIR (the folder that records
# how each engine was started, so that `stop`, `start` and `down` can control it later). Unset, it is
# this checkout's default folder, ${TMPDIR:-/tmp}/a2a-engines-<uid>-<checkout hash>: a new shell without
# the exported variables finds the engines there (`down` in any shell stops them).
# PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user the package creates
# (and MariaDB as the `mysql` user its package creates).

_a2a_engines_main() {
  local here
  here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

  # The default folder of this checkout's engines: the same in every shell, private to this user.
  _a2a_default_dir() {
    local sum
    sum="$(printf %s "$here" | cksum | cut -d' ' -f1)"
    echo "${TMPDIR:-/tmp}/a2a-engines-$(id -u)-$sum"
  }
  # Uses the default folder when A2A_TEST_ENGINES_DIR is not set; refuses one another user owns.
  _a2a_engines_dir() {
    A2A_TEST_ENGINES_DIR="${A2A_TEST_ENGINES_DIR:-$(_a2a_default_dir)}"
    # (As root the folder is the postgres user's: root may use it.)
    if [ "$(id -u)" != 0 ] && [ -e "$A2A_TEST_ENGINES_DIR" ] && [ ! -O "$A2A_TEST_ENGINES_DIR" ]; then
      echo "engines: $A2A_TEST_ENGINES_DIR belongs to another user; set A2A_TEST_ENGINES_DIR to a folder of yours" >&2
      return 2
    fi
  }
  _a2a_as_owner() { # runs a command as the engine's owner (postgres when we are root)
    # From /: the postgres user may not enter the caller's folder (a clone under a private temp dir).
    if [ "$(id -u)" = 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
  }
  _a2a_free_port() {
    node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
  }
  _a2a_pg_bin() {
    local d
    d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
    [ -n "$d" ] && [ -x "$d/initdb" ] && echo "$d"
  }
  _a2a_install() {
    local need=()
    [ -n "$(_a2a_pg_bin)" ] || need+=(postgresql)
    command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
    [ -n "$(_a2a_mysql_bin)" ] || need+=(mariadb-server)
    [ ${#need[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    echo "engines: installing ${need[*]} with apt-get" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # policy-rc.d: the packages must not start system-wide services (we start our own).
    $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  }
  _a2a_pg_start() {
    local dir="$A2A_TEST_ENGINES_DIR/postgres" bin port
    bin="$(_a2a_pg_bin)"
    if [ ! -f "$dir/PG_VERSION" ]; then
      port="$(_a2a_free_port)"
      mkdir -p "$dir"
      [ "$(id -u)" = 0 ] && chown postgres "$A2A_TEST_ENGINES_DIR" "$dir"
      _a2a_as_owner "$bin/initdb" -D "$dir" -U postgres --auth=trust --no-sync -E UTF8 >"$A2A_TEST_ENGINES_DIR/initdb.log" 2>&1 \
        || { cat "$A2A_TEST_ENGINES_DIR/initdb.log" >&2; return 1; }
      echo "$port" >"$A2A_TEST_ENGINES_DIR/postgres.port"
    fi
    port="$(cat "$A2A_TEST_ENGINES_DIR/postgres.port")"
    if ! _a2a_as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      # fsync off keeps the 2-core CI machine fast; commits stay synchronous, so a crash-like stop (the
      # restart tests) loses nothing the engine acknowledged (only an OS crash could).
      _a2a_as_owner "$bin/pg_ctl" -D "$dir" -l "$A2A_TEST_ENGINES_DIR/postgres.log" -w -t 30 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c full_page_writes=off -c max_connections=200" start >/dev/null \
        || { cat "$A2A_TEST_ENGINES_DIR/postgres.log" >&2; return 1; }
    fi
    echo "postgres://postgres@127.0.0.1:$port/postgres"
  }
  _a2a_pg_stop() {
    local dir="$A2A_TEST_ENGINES_DIR/postgres"
    [ -f "$dir/postmaster.pid" ] || return 0
    _a2a_as_owner "$(_a2a_pg_bin)/pg_ctl" -D "$dir" -m immediate -w -t 30 stop >/dev/null
  }
  _a2a_redis_start() {
    local dir="$A2A_TEST_ENGINES_DIR/redis" port
    mkdir -p "$dir"
    [ -f "$A2A_TEST_ENGINES_DIR/redis.port" ] || _a2a_free_port >"$A2A_TEST_ENGINES_DIR/redis.port"
    port="$(cat "$A2A_TEST_ENGINES_DIR/redis.port")"
    if redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then echo "redis://127.0.0.1:$port"; return 0; fi
    # The append-only file (written before each reply) keeps the data across a crash-like stop (the restart tests).
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --appendonly yes --appendfsync everysec \
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
    local i
    for i in $(seq 1 100); do
      redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && { echo "redis://127.0.0.1:$port"; return 0; }
      sleep 0.1
    done
    cat "$dir/redis.log" >&2
    return 1
  }
  _a2a_redis_stop() {
    local pidfile="$A2A_TEST_ENGINES_DIR/redis/redis.pid" pid i
    [ -f "$pidfile" ] || return 0
    pid="$(cat "$pidfile")"
    kill -9 "$pid" 2>/dev/null || true # an abrupt stop, like a crash
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$pidfile"
  }

  _a2a_mysql_bin() { # the MariaDB server program (Debian's mariadb-server)
    local b
    for b in /usr/sbin/mariadbd /usr/sbin/mysqld; do [ -x "$b" ] && { echo "$b"; return 0; }; done
    return 0
  }
  _a2a_mysql_ping() { mariadb-admin --no-defaults --protocol=tcp -h 127.0.0.1 -P "$1" -u root --connect-timeout=2 ping >/dev/null 2>&1; }
  _a2a_mysql_start() {
    local dir="$A2A_TEST_ENGINES_DIR/mysql" tmp="$A2A_TEST_ENGINES_DIR/mysql-tmp" port user=""
    if [ ! -d "$dir/mysql" ]; then
      # Its own temp folder: the server's user may not write to $TMPDIR (a private temp dir of the caller).
      mkdir -p "$dir" "$tmp"
      [ "$(id -u)" = 0 ] && { user="--user=mysql"; chown mysql "$dir" "$tmp"; }
      # root@localhost, root@127.0.0.1 and root@::1 without a password (a throw-away server on 127.0.0.1).
      mariadb-install-db --no-defaults $user --datadir="$dir" --tmpdir="$tmp" --auth-root-authentication-method=normal --skip-test-db \
        >"$A2A_TEST_ENGINES_DIR/mysql-install.log" 2>&1 || { cat "$A2A_TEST_ENGINES_DIR/mysql-install.log" >&2; return 1; }
      _a2a_free_port >"$A2A_TEST_ENGINES_DIR/mysql.port"
    fi
    port="$(cat "$A2A_TEST_ENGINES_DIR/mysql.port")"
    if ! _a2a_mysql_ping "$port"; then
      [ "$(id -u)" = 0 ] && user="--user=mysql"
      # Like PostgreSQL's fsync=off: the log is written to the OS at each commit (a crash-like stop of the
      # engine, the restart tests, loses nothing it acknowledged; only an OS crash could), not synced.
      # The buffer pool: MariaDB's default size (128M, as PostgreSQL keeps its default shared_buffers).
      # setsid: the server outlives this shell and its process group.
      (cd / && setsid -f "$(_a2a_mysql_bin)" --no-defaults $user --datadir="$dir" --tmpdir="$tmp" --bind-address=127.0.0.1 --port="$port" \
        --socket="$dir/mysqld.sock" --pid-file="$dir/mysqld.pid" --log-error="$A2A_TEST_ENGINES_DIR/mysql.log" \
        --skip-name-resolve --skip-log-bin --innodb-flush-log-at-trx-commit=2 --innodb-doublewrite=0 \
        --innodb-buffer-pool-size=128M --performance-schema=OFF --max-connections=300 --character-set-server=utf8mb4 \
        --collation-server=utf8mb4_bin </dev/null >/dev/null 2>&1)
      local i
      for i in $(seq 1 300); do
        _a2a_mysql_ping "$port" && break
        sleep 0.1
      done
      _a2a_mysql_ping "$port" || { cat "$A2A_TEST_ENGINES_DIR/mysql.log" >&2; return 1; }
      mariadb --no-defaults --protocol=tcp -h 127.0.0.1 -P "$port" -u root -e "CREATE DATABASE IF NOT EXISTS a2a" || return 1
    fi
    echo "mysql://root@127.0.0.1:$port/a2a"
  }
  _a2a_mysql_stop() {
    local pidfile="$A2A_TEST_ENGINES_DIR/mysql/mysqld.pid" pid i
    [ -f "$pidfile" ] || return 0
    pid="$(cat "$pidfile")"
    kill -9 "$pid" 2>/dev/null || true # an abrupt stop, like a crash (InnoDB recovers at the next start)
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    rm -f "$pidfile"
  }

  local cmd="${1:-up}" engine="${2:-}"
  case "$cmd" in
    up)
      _a2a_install || return 1
      _a2a_engines_dir || return 2
      if [ ! -d "$A2A_TEST_ENGINES_DIR" ]; then
        mkdir -p "$A2A_TEST_ENGINES_DIR"
        chmod 755 "$A2A_TEST_ENGINES_DIR"
      fi
      export A2A_TEST_ENGINES_DIR
      A2A_TEST_POSTGRES_URL="$(_a2a_pg_start)" || return 1
      A2A_TEST_REDIS_URL="$(_a2a_redis_start)" || return 1
      A2A_TEST_MYSQL_URL="$(_a2a_mysql_start)" || return 1
      export A2A_TEST_POSTGRES_URL A2A_TEST_REDIS_URL A2A_TEST_MYSQL_URL
      echo "A2A_TEST_ENGINES_DIR=$A2A_TEST_ENGINES_DIR"
      echo "A2A_TEST_POSTGRES_URL=$A2A_TEST_POSTGRES_URL"
      echo "A2A_TEST_REDIS_URL=$A2A_TEST_REDIS_URL"
      echo "A2A_TEST_MYSQL_URL=$A2A_TEST_MYSQL_URL"
      ;;
    start | stop | restart)
      _a2a_engines_dir || return 2
      [ -d "$A2A_TEST_ENGINES_DIR" ] || { echo "engines: no engines in $A2A_TEST_ENGINES_DIR (source .ci/engines.sh first)" >&2; return 2; }
      case "$engine" in
        postgres) [ "$cmd" = start ] || _a2a_pg_stop; [ "$cmd" = stop ] || _a2a_pg_start ;;
        redis) [ "$cmd" = start ] || _a2a_redis_stop; [ "$cmd" = stop ] || _a2a_redis_start ;;
        mysql) [ "$cmd" = start ] || _a2a_mysql_stop; [ "$cmd" = stop ] || _a2a_mysql_start ;;
        *) echo "engines: unknown engine \"$engine\" (postgres, redis or mysql)" >&2; return 2 ;;
      esac
      ;;
    down)
      _a2a_engines_dir || return 2
      if [ ! -d "$A2A_TEST_ENGINES_DIR" ]; then
        echo "engines: none running (nothing in $A2A_TEST_ENGINES_DIR)" >&2
      else
        local failed=0
        if [ -f "$A2A_TEST_ENGINES_DIR/postgres/postmaster.pid" ]; then
          if _a2a_pg_stop; then echo "engines: stopped postgres" >&2; else failed=1; echo "engines: could not stop postgres (see $A2A_TEST_ENGINES_DIR/postgres.log)" >&2; fi
        fi
        if [ -f "$A2A_TEST_ENGINES_DIR/redis/redis.pid" ]; then
          if _a2a_redis_stop; then echo "engines: stopped redis" >&2; else failed=1; echo "engines: could not stop redis" >&2; fi
        fi
        if [ -f "$A2A_TEST_ENGINES_DIR/mysql/mysqld.pid" ]; then
          if _a2a_mysql_stop; then echo "engines: stopped mysql (MariaDB)" >&2; else failed=1; echo "engines: could not stop mysql (see $A2A_TEST_ENGINES_DIR/mysql.log)" >&2; fi
        fi
        # The data stays while an engine may still run on it.
        [ "$failed" = 0 ] || return 1
        rm -rf "$A2A_TEST_ENGINES_DIR"
      fi
      unset A2A_TEST_ENGINES_DIR A2A_TEST_POSTGRES_URL A2A_TEST_REDIS_URL A2A_TEST_MYSQL_URL
      ;;
    dir)
      _a2a_engines_dir || return 2
      echo "$A2A_TEST_ENGINES_DIR"
      ;;
    *) echo "usage: source .ci/engines.sh | .ci/engines.sh start|stop|restart postgres|redis|mysql | .ci/engines.sh down | .ci/engines.sh dir" >&2; return 2 ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  _a2a_engines_main "$@"
else
  # Sourced: the caller's own arguments are not ours unless they name a command.
  case "${1:-}" in
    up | start | stop | restart | down | dir) _a2a_engines_main "$@" ;;
    *) _a2a_engines_main up ;;
  esac
fi
