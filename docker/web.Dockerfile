# SplayLab controller image: Django ASGI app (uvicorn), also used for the Celery worker and
# beat and for one-off manage.py commands (the compose file only changes the command).
#
#   docker build -f docker/web.Dockerfile -t splaylab/web .          (from the repo root)
#
# Build args:
#   BASE_IMAGE      splaylab/base:bookworm (docker/base/build.sh), or any Debian bookworm
#                   image such as debian:bookworm-slim when a registry is reachable.
#   FRONTEND_IMAGE  image of the frontend stage. Default: BASE_IMAGE, which has no Node.js,
#                   so frontend/dist must be prebuilt on the host (`make frontend`) and is
#                   copied as is. Pass a Node.js >= 20.19 image (node:22-bookworm-slim) to
#                   build the frontend inside the build instead (npm ci && npm run build).
#   FRONTEND_REQUIRED  1 (default): fail when no frontend/dist/index.html results. 0: build
#                   an image without the SPA (API only), for packaging checks.
# Works with the legacy builder and with BuildKit.
ARG BASE_IMAGE=splaylab/base:bookworm
ARG FRONTEND_IMAGE=${BASE_IMAGE}

# ---------------------------------------------------------------- frontend (frontend/dist)
FROM ${FRONTEND_IMAGE} AS frontend
ARG FRONTEND_REQUIRED=1
WORKDIR /src/frontend
COPY frontend/ ./
RUN set -e; \
    if command -v npm >/dev/null 2>&1 && [ -f package.json ]; then \
        echo "frontend: building with $(node --version) / npm $(npm --version)"; \
        if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi; \
        npm run build; \
        rm -rf node_modules; \
    elif [ -f dist/index.html ]; then \
        echo "frontend: no Node.js in this stage, using the prebuilt frontend/dist"; \
    fi; \
    if [ ! -f dist/index.html ]; then \
        if [ "$FRONTEND_REQUIRED" = 1 ]; then \
            echo "frontend/dist/index.html is missing: run 'make frontend' on the host first," \
                 "or build with --build-arg FRONTEND_IMAGE=node:22-bookworm-slim" >&2; \
            exit 1; \
        fi; \
        echo "WARNING: FRONTEND_REQUIRED=0 and no frontend/dist: the image serves no SPA" >&2; \
        mkdir -p dist; \
    fi

# ---------------------------------------------------------------- controller
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
# Already in splaylab/base:bookworm (then this is a no-op); installed here for other bases.
# luajit: the controller checks the Lua syntax of submitted jobs.
RUN pkgs="ca-certificates python3 python3-venv luajit tini"; \
    dpkg -s $pkgs >/dev/null 2>&1 || { \
        apt-get update && apt-get install -y --no-install-recommends $pkgs \
        && rm -rf /var/lib/apt/lists/*; }

RUN groupadd --system --gid 10001 splaylab \
 && useradd --system --uid 10001 --gid splaylab --home-dir /app --no-create-home --shell /usr/sbin/nologin splaylab \
 && install -d -o splaylab -g splaylab /config /app/var

ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1

# Dependencies first, so that code changes do not reinstall them. requirements.txt includes
# daemon/requirements.txt by a relative path, hence the same layout under /app.
# PIP_CERT: use the system trust store (which holds EXTRA_CA_CERTS of build.sh), not certifi.
COPY requirements.txt /app/requirements.txt
COPY daemon/requirements.txt /app/daemon/requirements.txt
RUN python3 -m venv "$VIRTUAL_ENV" \
 && PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
    pip install --no-cache-dir -r /app/requirements.txt

# The repository layout is kept (/app/backend, /app/sandbox, /app/frontend/dist): the
# settings find frontend/dist next to backend/.
COPY sandbox/ /app/sandbox/
COPY backend/ /app/backend/
COPY --from=frontend /src/frontend/dist/ /app/frontend/dist/
RUN python -m compileall -q /app/backend >/dev/null || true

WORKDIR /app/backend
USER splaylab
EXPOSE 8000
ENTRYPOINT ["tini", "--"]
CMD ["uvicorn", "splaylab.asgi:application", "--host", "0.0.0.0", "--port", "8000"]
