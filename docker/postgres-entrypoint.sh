#!/bin/sh
# Entry point of docker/postgres.Dockerfile: on `postgres` (the default command), initialise
# $PGDATA on first start like the official image, then exec the server. Any other command
# (psql, pg_isready...) is run as is.
set -eu
if [ "${1:-postgres}" != postgres ]; then
    exec "$@"
fi
[ "$#" -gt 0 ] && shift
: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
        echo "postgres-entrypoint: POSTGRES_PASSWORD must be set to initialise $PGDATA" >&2
        exit 1
    fi
    echo "postgres-entrypoint: initialising $PGDATA (superuser $POSTGRES_USER, database $POSTGRES_DB)"
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" > "$pwfile"
    initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
        --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    echo "listen_addresses = '*'" >> "$PGDATA/postgresql.conf"
    if [ "$POSTGRES_DB" != postgres ]; then
        echo "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\";" |
            postgres --single -D "$PGDATA" -j postgres >/dev/null
    fi
fi
exec postgres -D "$PGDATA" "$@"
