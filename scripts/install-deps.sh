#!/usr/bin/env bash
# Installs what SplayLab needs on this machine, from the project's own files, idempotently:
#   Debian packages (runtime; --test adds the browser and busted, --docker the Docker engine,
#   --bench valgrind, a C compiler and make for bench/sim_instructions.py and sim_where.py),
#   the Python venv (.venv, from requirements-test.txt, which includes requirements.txt), the frontend's npm packages (npm ci).
# Each step is skipped when already done (stamps hold the hash of what they installed).
set -euo pipefail
cd "$(dirname "$0")/.."

RUNTIME_PACKAGES=(luajit lua-socket lua-cjson lua-filesystem lua-luaossl lua-messagepack bubblewrap postgresql redis-server)
# --test: browser, Lua specs and lint, Docker backend; iproute2 and iptables for the multi-host
# tests' network namespaces (tests/multihost), openssl for the TLS tests' certificates
TEST_PACKAGES=(chromium lua-busted lua-check docker.io iproute2 iptables openssl)
DOCKER_PACKAGES=(docker.io debootstrap docker-compose) # --docker: make docker-check
BENCH_PACKAGES=(valgrind gcc libc6-dev make)           # --bench: bench/sim_instructions.py, sim_where.py
packages=("${RUNTIME_PACKAGES[@]}")
for flag in "$@"; do
  case "$flag" in
    --test) packages+=("${TEST_PACKAGES[@]}") ;;
    --docker) packages+=("${DOCKER_PACKAGES[@]}") ;;
    --bench) packages+=("${BENCH_PACKAGES[@]}") ;;
    *) echo "usage: $0 [--test] [--docker] [--bench]" >&2; exit 2 ;;
  esac
done
command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
python3 -c 'import sys, venv, ensurepip; assert sys.version_info >= (3, 11)' 2>/dev/null || packages+=(python3 python3-venv)

missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  echo "installing Debian packages: ${missing[*]}"
  sudo=""; [[ "$(id -u)" == 0 ]] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

stamp() { cat "$@" | sha256sum | cut -d' ' -f1; }

want=$(stamp requirements.txt requirements-test.txt daemon/requirements.txt)
if [[ ! -x .venv/bin/python || "$(cat .venv/.installed 2>/dev/null)" != "$want" ]]; then
  echo "installing the Python venv (.venv)"
  [[ -x .venv/bin/python ]] || python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check -r requirements-test.txt
  echo "$want" > .venv/.installed
fi

want=$(stamp frontend/package.json frontend/package-lock.json)
if [[ "$(cat frontend/node_modules/.installed 2>/dev/null)" != "$want" ]]; then
  echo "installing the frontend's npm packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > frontend/node_modules/.installed
fi
