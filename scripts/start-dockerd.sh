#!/usr/bin/env bash
# Make sure a Docker engine answers on the local socket; start dockerd when none does.
#
#   scripts/start-dockerd.sh          # idempotent: exits 0 at once when an engine answers
#
# Used by daemon/tests/test_docker_backend.py (and `make test`). Without systemd, dockerd is
# started in the background in its own session (it outlives this script and the test run),
# logging to $DOCKERD_LOG. Attempts, in order, until one answers within $DOCKERD_WAIT seconds:
#   1. dockerd                                   (default storage driver: overlay2)
#   2. dockerd --storage-driver=vfs              (when overlay cannot be used, e.g. nested)
#   3. dockerd --storage-driver=vfs --iptables=false   (no iptables: host networking, which
#                                                  the sandbox uses, still works)
# $DOCKERD_ARGS adds arguments to every attempt. When dockerd is missing and we are root,
# Debian's docker.io is installed first (apt-get). Prints one line saying how the engine runs.
# Exit status: 0 engine answers, 1 could not start it.
set -uo pipefail

LOG=${DOCKERD_LOG:-/tmp/splaylab-dockerd.log}
WAIT=${DOCKERD_WAIT:-30}
SOCK=/var/run/docker.sock
LOCK=/tmp/splaylab-dockerd.lock
read -r -a EXTRA <<<"${DOCKERD_ARGS:-}"

engine_answers() {
  # `docker info` over the default socket; the CLI may be absent (only dockerd installed).
  if command -v docker >/dev/null 2>&1; then
    timeout 5 docker -H "unix://$SOCK" info >/dev/null 2>&1
  else
    [[ -S $SOCK ]] && timeout 5 curl -sf --unix-socket "$SOCK" http://localhost/_ping >/dev/null 2>&1
  fi
}

describe() {
  local driver pid
  driver=$(timeout 5 docker -H "unix://$SOCK" info --format '{{.Driver}}, cgroup v{{.CgroupVersion}}, engine {{.ServerVersion}}' 2>/dev/null || echo "?")
  pid=$(cat /var/run/docker.pid 2>/dev/null || echo "?")
  echo "$1 (pid $pid; $driver; log $LOG)"
}

if engine_answers; then
  describe "dockerd: already running"
  exit 0
fi

# One starter at a time (parallel test runs); re-check once we hold the lock.
exec 9>"$LOCK"
flock -w $((WAIT * 3 + 30)) 9 || { echo "dockerd: cannot take $LOCK" >&2; exit 1; }
if engine_answers; then
  describe "dockerd: already running (started by another caller)"
  exit 0
fi

if ! command -v dockerd >/dev/null 2>&1; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    echo "dockerd: not installed; apt-get install -y --no-install-recommends docker.io" >&2
    { apt-get install -y --no-install-recommends docker.io ||
        { apt-get update && apt-get install -y --no-install-recommends docker.io; }; } >>"$LOG" 2>&1 ||
      { echo "dockerd: installing docker.io failed (see $LOG)" >&2; exit 1; }
  else
    echo "dockerd: not installed (apt-get install docker.io as root)" >&2
    exit 1
  fi
fi
if [[ $(id -u) -ne 0 ]]; then
  echo "dockerd: no engine answers on $SOCK and only root can start one" >&2
  exit 1
fi

# A dockerd that runs but does not answer (stuck, or still starting): give it a moment, then
# stop it, since a second one cannot start beside it.
oldpid=$(cat /var/run/docker.pid 2>/dev/null || true)
if [[ -n $oldpid ]] && kill -0 "$oldpid" 2>/dev/null && [[ $(cat /proc/"$oldpid"/comm 2>/dev/null) == dockerd ]]; then
  for _ in $(seq 1 "$WAIT"); do engine_answers && { describe "dockerd: already running"; exit 0; }; sleep 1; done
  echo "dockerd: pid $oldpid does not answer; stopping it" >&2
  kill "$oldpid" 2>/dev/null
  for _ in $(seq 1 20); do kill -0 "$oldpid" 2>/dev/null || break; sleep 0.5; done
fi

try_start() {
  local args=("$@") pid cmd
  cmd="dockerd${args[*]:+ ${args[*]}}"
  echo "=== $(date -Is) $cmd" >>"$LOG"
  setsid nohup dockerd "${args[@]}" </dev/null >>"$LOG" 2>&1 &
  pid=$!
  for _ in $(seq 1 $((WAIT * 4))); do
    if engine_answers; then
      describe "dockerd: started as '$cmd'"
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || { echo "dockerd: '$cmd' exited (see $LOG)" >&2; return 1; }
    sleep 0.25
  done
  echo "dockerd: '$cmd' did not answer within ${WAIT} s; stopping it" >&2
  kill "$pid" 2>/dev/null
  for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  return 1
}

try_start "${EXTRA[@]}" && exit 0
try_start --storage-driver=vfs "${EXTRA[@]}" && exit 0
try_start --storage-driver=vfs --iptables=false "${EXTRA[@]}" && exit 0
echo "dockerd: could not start an engine; last lines of $LOG:" >&2
tail -n 15 "$LOG" >&2
exit 1
