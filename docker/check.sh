#!/usr/bin/env bash
# End-to-end check of SplayLab's container packaging (`make docker-check`). Takes minutes;
# not part of the default test suite. Run as root from anywhere in the repository.
#
#   docker/check.sh            base image, both images, smoke tests, compose file validation
#   docker/check.sh --up       also start the whole stack with the Debian-based postgres/redis
#                              stand-ins, wait until web is healthy and the daemon runs, then
#                              remove it again (needs a working backend and daemon)
#   docker/check.sh --force    rebuild the base image from scratch (debootstrap) first
#
# Needs the Debian packages docker.io, debootstrap and docker-compose (v1), or a Compose v2
# plugin. Starts dockerd in the background when no engine answers (and stops it at the end,
# unless KEEP_DOCKERD=1).
#
# Environment: EXTRA_CA_CERTS (default: the host's /etc/ssl/certs/ca-certificates.crt, so
# that builds trust whatever the host trusts), BASE_IMAGE (default splaylab/base:bookworm),
# DOCKER_BUILD_NETWORK (e.g. host), KEEP_DOCKERD, KEEP_STACK (with --up).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"

up=0
force=()
for arg in "$@"; do
    case "$arg" in
        --up) up=1 ;;
        --force) force=(--force) ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        *) echo "check.sh: unknown argument: $arg" >&2; exit 2 ;;
    esac
done

BASE_IMAGE="${BASE_IMAGE:-splaylab/base:bookworm}"
WEB_IMAGE="${SPLAYLAB_WEB_IMAGE:-splaylab/web:latest}"
DAEMON_IMAGE="${SPLAYLAB_DAEMON_IMAGE:-splaylab/daemon:latest}"
if [ -z "${EXTRA_CA_CERTS+set}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ]; then
    export EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
fi

summary=()
failed=0
step_start=0
step() { step_start=$(date +%s); printf '\n==> %s\n' "$*"; }
ok()   { local s=$(( $(date +%s) - step_start )); summary+=("ok    ${s}s  $*"); printf -- '--> ok (%ss): %s\n' "$s" "$*"; }
fail() { local s=$(( $(date +%s) - step_start )); summary+=("FAIL  ${s}s  $*"); printf -- '--> FAIL (%ss): %s\n' "$s" "$*" >&2; failed=1; }
note() { summary+=("note        $*"); printf -- '--> note: %s\n' "$*"; }
finish() {
    printf '\n==== docker check summary ====\n'
    printf '%s\n' "${summary[@]}"
    if [ "$failed" = 0 ]; then echo "docker check: all passed"; else echo "docker check: FAILED"; fi
}

# ------------------------------------------------------------------ engine
started_dockerd=""
stop_dockerd() {
    if [ -n "$started_dockerd" ] && [ "${KEEP_DOCKERD:-0}" != 1 ]; then
        echo "stopping the dockerd this script started (pid $started_dockerd)"
        kill "$started_dockerd" 2>/dev/null || true
        for _ in $(seq 1 30); do kill -0 "$started_dockerd" 2>/dev/null || break; sleep 1; done
    fi
}
trap 'stop_dockerd' EXIT

try_dockerd() {  # args: extra dockerd options
    local log=/tmp/splaylab-dockerd.log
    echo "starting: dockerd $* (log $log)"
    dockerd "$@" > "$log" 2>&1 &
    started_dockerd=$!
    for _ in $(seq 1 30); do
        docker info >/dev/null 2>&1 && return 0
        kill -0 "$started_dockerd" 2>/dev/null || break
        sleep 1
    done
    kill "$started_dockerd" 2>/dev/null || true
    wait "$started_dockerd" 2>/dev/null || true
    started_dockerd=""
    tail -n 5 "$log" >&2
    return 1
}

step "Docker engine"
command -v docker >/dev/null || { fail "no docker CLI (apt-get install -y docker.io)"; finish; exit 1; }
if docker info >/dev/null 2>&1; then
    ok "engine already running: $(docker version -f '{{.Server.Version}}' 2>/dev/null)"
else
    if [ "$(id -u)" != 0 ] || ! command -v dockerd >/dev/null; then
        fail "no engine answers, and dockerd cannot be started here (root + docker.io needed)"; finish; exit 1
    fi
    if try_dockerd; then
        ok "started dockerd (pid $started_dockerd)"
    elif try_dockerd --storage-driver=vfs; then
        ok "started dockerd --storage-driver=vfs (pid $started_dockerd)"
    elif try_dockerd --storage-driver=vfs --iptables=false --bridge=none; then
        export DOCKER_BUILD_NETWORK="${DOCKER_BUILD_NETWORK:-host}"
        ok "started dockerd --storage-driver=vfs --iptables=false --bridge=none (builds use --network host)"
        [ "$up" = 1 ] && { note "--up needs container networking; skipped"; up=0; }
    else
        fail "dockerd would not start (see /tmp/splaylab-dockerd.log)"; finish; exit 1
    fi
fi
net=()
[ -n "${DOCKER_BUILD_NETWORK:-}" ] && net=(--network "$DOCKER_BUILD_NETWORK")

# ------------------------------------------------------------------ base image
step "base image $BASE_IMAGE (docker/base/build.sh ${force[*]})"
if BASE_TAG="$BASE_IMAGE" docker/base/build.sh "${force[@]}"; then
    ok "base image $BASE_IMAGE ($(docker image inspect -f '{{.Size}}' "$BASE_IMAGE" | awk '{printf "%d MB", $1/1e6}'))"
else
    fail "docker/base/build.sh"; finish; exit 1
fi

# ------------------------------------------------------------------ images
step "daemon image $DAEMON_IMAGE"
if docker build "${net[@]}" -f docker/daemon.Dockerfile --build-arg BASE_IMAGE="$BASE_IMAGE" -t "$DAEMON_IMAGE" .; then
    ok "docker build -f docker/daemon.Dockerfile"
else
    fail "docker build -f docker/daemon.Dockerfile"
fi

# The web image copies the prebuilt frontend/dist: bring it up to date first (make only
# rebuilds when a frontend source is newer than frontend/dist/index.html).
frontend_args=()
if [ -f Makefile ] && make -n frontend >/dev/null 2>&1; then
    step "frontend/dist (make frontend)"
    if make frontend; then
        ok "make frontend"
    elif [ -f frontend/dist/index.html ]; then
        note "make frontend failed (npm packages installed? make deps); the existing frontend/dist is used"
    else
        fail "make frontend (npm packages installed? make deps)"
    fi
fi
if [ ! -f frontend/dist/index.html ]; then
    note "no frontend/dist/index.html: web image built with FRONTEND_REQUIRED=0 (no SPA inside)"
    frontend_args=(--build-arg FRONTEND_REQUIRED=0)
fi

step "web image $WEB_IMAGE"
if docker build "${net[@]}" -f docker/web.Dockerfile --build-arg BASE_IMAGE="$BASE_IMAGE" "${frontend_args[@]}" -t "$WEB_IMAGE" .; then
    ok "docker build -f docker/web.Dockerfile"
else
    fail "docker build -f docker/web.Dockerfile"
fi

# ------------------------------------------------------------------ smoke tests
run_check() {  # description, image, command...
    local what="$1" image="$2"; shift 2
    step "$what"
    local out
    if out="$(docker run --rm "$image" "$@" 2>&1)"; then
        printf '%s\n' "$out" | tail -n 5
        ok "$what: $(printf '%s' "$out" | tail -n 1 | cut -c1-80)"
    else
        printf '%s\n' "$out" | tail -n 15 >&2
        fail "$what"
    fi
}

if docker image inspect "$DAEMON_IMAGE" >/dev/null 2>&1; then
    run_check "daemon: luajit -v" "$DAEMON_IMAGE" luajit -v
    run_check "daemon: import websockets" "$DAEMON_IMAGE" python -c "import websockets; print('websockets', websockets.__version__)"
    run_check "daemon: lua-socket and lua-cjson" "$DAEMON_IMAGE" luajit -e 'local s = require "socket"; local c = require "cjson"; print(s._VERSION, c.encode({ok = true}))'
    if [ -d daemon/splayd ]; then
        run_check "daemon: splayd --version (pip install ./daemon)" "$DAEMON_IMAGE" splayd --version
        run_check "daemon: python -m splayd --help" "$DAEMON_IMAGE" python -m splayd --help
        run_check "daemon: splayd --check-config" "$DAEMON_IMAGE" sh -c 'printf "%s\n" "name = \"check\"" "controller = \"ws://web:8000/ws/daemon/\"" "key = \"k\"" "max_instances = 2" "ports = [20000, 20001]" > /tmp/c.toml && splayd --check-config /tmp/c.toml'
    else
        note "daemon/splayd/ not there yet: 'python -m splayd' not tried"
    fi
    if [ -f sandbox/node.lua ]; then
        # the runtime the package carries (splayd/runtime/, copied from sandbox/ at build time)
        run_check "daemon: the packaged node.lua compiles" "$DAEMON_IMAGE" sh -c 'luajit -bl "$(python -c "from splayd.__main__ import runtime_dir; print(runtime_dir())")/node.lua" /dev/null && echo ok'
    else
        note "sandbox/node.lua not there yet: not compiled"
    fi
fi

if docker image inspect "$WEB_IMAGE" >/dev/null 2>&1; then
    run_check "web: Python dependencies import" "$WEB_IMAGE" python -c "import django, rest_framework, drf_spectacular, channels, channels_redis, uvicorn, a2wsgi, argon2, pylti1p3, celery, psycopg, dj_database_url, whitenoise; print('django', django.__version__)"
    run_check "web: luajit -v" "$WEB_IMAGE" luajit -v
    if [ -f backend/manage.py ]; then
        step "web: manage.py check"
        if out="$(docker run --rm -e SPLAYLAB_SECRET_KEY=docker-check "$WEB_IMAGE" python manage.py check 2>&1)"; then
            printf '%s\n' "$out" | tail -n 3; ok "web: manage.py check"
        else
            printf '%s\n' "$out" | tail -n 15 >&2; fail "web: manage.py check"
        fi
    fi
fi

# ------------------------------------------------------------------ compose file
if docker compose version >/dev/null 2>&1; then
    compose=(docker compose)
elif command -v docker-compose >/dev/null; then
    compose=(docker-compose)
else
    compose=()
fi
export SPLAYLAB_SECRET_KEY="${SPLAYLAB_SECRET_KEY:-docker-check-not-secret}"
if [ "${#compose[@]}" -gt 0 ]; then
    step "${compose[*]} config"
    if "${compose[@]}" -f docker-compose.yml config -q; then
        ok "${compose[*]} config ($("${compose[@]}" version --short 2>/dev/null || true))"
    else
        fail "${compose[*]} config"
    fi
else
    note "no Compose (apt-get install -y docker-compose): docker-compose.yml not validated"
fi

# ------------------------------------------------------------------ whole stack (--up)
if [ "$up" = 1 ] && [ "${#compose[@]}" -gt 0 ]; then
    step "Debian-based postgres/redis stand-ins"
    if docker build "${net[@]}" -q -f docker/postgres.Dockerfile --build-arg BASE_IMAGE="$BASE_IMAGE" -t splaylab/postgres:15 docker/ &&
       docker build "${net[@]}" -q -f docker/redis.Dockerfile --build-arg BASE_IMAGE="$BASE_IMAGE" -t splaylab/redis:7 docker/; then
        ok "splaylab/postgres:15 and splaylab/redis:7"
    else
        fail "postgres/redis stand-ins"
    fi
    export POSTGRES_IMAGE=splaylab/postgres:15 REDIS_IMAGE=splaylab/redis:7
    export SPLAYLAB_HTTP_PORT="${SPLAYLAB_HTTP_PORT:-18000}"
    stack=("${compose[@]}" -p splaylab-check -f docker-compose.yml)
    down_stack() {
        if [ "${KEEP_STACK:-0}" = 1 ]; then
            echo "KEEP_STACK=1: leaving the stack up (${stack[*]} down -v)"
        else
            "${stack[@]}" down -v --remove-orphans >/dev/null 2>&1 || true
        fi
    }
    trap 'down_stack; stop_dockerd' EXIT

    step "compose up (project splaylab-check, http://127.0.0.1:$SPLAYLAB_HTTP_PORT/)"
    "${stack[@]}" up -d --no-build >/dev/null 2>&1 &   # returns once daemon-init is done
    up_pid=$!
    health=""
    for _ in $(seq 1 90); do
        cid="$("${stack[@]}" ps -q web 2>/dev/null || true)"
        [ -n "$cid" ] && health="$(docker inspect -f '{{.State.Health.Status}}' "$cid" 2>/dev/null || true)"
        [ "$health" = healthy ] && break
        sleep 2
    done
    if [ "$health" = healthy ]; then
        code="$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SPLAYLAB_HTTP_PORT/api/schema/" || true)"
        if [ "$code" = 200 ]; then ok "web healthy, GET /api/schema/ -> 200"; else fail "web healthy, but GET /api/schema/ -> $code"; fi
    else
        fail "web not healthy after 180 s (status: ${health:-none})"
        "${stack[@]}" logs --tail 30 web >&2 || true
    fi
    step "daemon-init and daemon"
    wait "$up_pid" || true
    sleep 5
    init_cid="$("${stack[@]}" ps -a -q daemon-init 2>/dev/null || true)"
    init_exit="$( [ -n "$init_cid" ] && docker inspect -f '{{.State.ExitCode}}' "$init_cid" 2>/dev/null || echo none)"
    d_cid="$("${stack[@]}" ps -q daemon 2>/dev/null || true)"
    d_state="$( [ -n "$d_cid" ] && docker inspect -f '{{.State.Status}} restarts={{.RestartCount}}' "$d_cid" 2>/dev/null || echo none)"
    if [ "$init_exit" = 0 ] && [[ "$d_state" == "running restarts=0" ]]; then
        ok "daemon-init exited 0, daemon $d_state"
    else
        fail "daemon-init exit=$init_exit, daemon $d_state"
        "${stack[@]}" logs --tail 30 daemon-init daemon >&2 || true
    fi

    if [ -f backend/courses/management/commands/seed_demo.py ] &&
       [ -f backend/accounts/management/commands/user_token.py ]; then
        step "a 3-node job through the REST API (web -> worker -> daemon -> luajit)"
        api="http://127.0.0.1:$SPLAYLAB_HTTP_PORT/api"
        tok=""
        "${stack[@]}" exec -T web python manage.py seed_demo >/dev/null &&
            tok="$("${stack[@]}" exec -T web python manage.py user_token student | tail -n 1 | tr -d '\r')"
        job="$(curl -s -X POST "$api/jobs/" -H "Authorization: Token $tok" -H 'Content-Type: application/json' \
            -d '{"name": "docker-check", "nodes": 3, "duration": 10, "code": "print(\"hello from node \" .. job.position)\n"}' |
            python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' 2>/dev/null || true)"
        state=""
        if [ -n "$job" ]; then
            for _ in $(seq 1 30); do
                state="$(curl -s "$api/jobs/$job/" -H "Authorization: Token $tok" |
                    python3 -c 'import json, sys; j = json.load(sys.stdin); print(j["state"], j["reason"])' 2>/dev/null || true)"
                case "$state" in ENDED*|FAILED*|KILLED*|NO_RESOURCES*) break ;; esac
                sleep 2
            done
        fi
        lines="$(curl -s "$api/jobs/$job/logs/" -H "Authorization: Token $tok" |
            python3 -c 'import json, sys; print(sum("hello from node" in l["text"] for l in json.load(sys.stdin)["lines"]))' 2>/dev/null || echo 0)"
        if [[ "$state" == ENDED* ]] && [ "$lines" = 3 ]; then
            ok "job $job: $state, 3 'hello from node' log lines"
        else
            fail "job ${job:-not created}: state '${state:-?}', $lines of 3 log lines"
            "${stack[@]}" logs --tail 20 worker daemon >&2 || true
        fi
    else
        note "seed_demo/user_token commands not there: no job submitted"
    fi
fi

finish
[ "$failed" = 0 ]
