#!/usr/bin/env bash
# The whole test suite (called by `make test`, after installing): frontend unit tests (Vitest),
# sandbox specs (busted under LuaJIT), then one pytest run over backend/, daemon/, sandbox/ and
# tests/ (integration and browser tests start the real stack themselves) against a real
# PostgreSQL and Redis under var/test/ (or DATABASE_URL / REDIS_URL when given).
set -euo pipefail
cd "$(dirname "$0")/.."

services() { .venv/bin/python backend/cli/services.py "$@"; }
if [[ -z "${DATABASE_URL:-}" || -z "${REDIS_URL:-}" ]]; then
  eval "$(services start var/test 54339 63799)"
  trap 'env -u DATABASE_URL -u REDIS_URL .venv/bin/python backend/cli/services.py stop var/test' EXIT
fi

echo "== frontend (vitest)"
(cd frontend && npm run --silent lint && npm test --silent)

if compgen -G "sandbox/spec/*_spec.lua" >/dev/null; then
  echo "== sandbox (busted, luajit)"
  (cd sandbox && busted)  # sandbox/.busted runs the specs under luajit
  echo "== sandbox (luacheck)"
  (cd sandbox && luacheck --quiet .)
fi

echo "== backend, daemon, sandbox, integration and browser tests (pytest)"
.venv/bin/pytest "$@"
