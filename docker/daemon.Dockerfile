# splayd: the asyncio daemon that runs one LuaJIT process per node (sandbox/node.lua).
#
#   docker build -f docker/daemon.Dockerfile -t splaylab/daemon .    (from the repo root)
#   docker run -v /path/to/splayd.toml:/etc/splayd/splayd.toml:ro splaylab/daemon
#   docker run --rm splaylab/daemon splayd --check-config /etc/splayd/splayd.toml  (with the -v above)
#
# Build arg BASE_IMAGE: splaylab/base:bookworm (docker/base/build.sh), or any Debian
# bookworm image such as debian:bookworm-slim when a registry is reachable.
ARG BASE_IMAGE=splaylab/base:bookworm
FROM ${BASE_IMAGE}
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
# Already in splaylab/base:bookworm (then this is a no-op); installed here for other bases.
RUN pkgs="ca-certificates python3 python3-venv luajit lua-socket lua-cjson lua-filesystem lua-luaossl lua-messagepack bubblewrap tini"; \
    dpkg -s $pkgs >/dev/null 2>&1 || { \
        apt-get update && apt-get install -y --no-install-recommends $pkgs \
        && rm -rf /var/lib/apt/lists/*; }

# Instances run as this user too, each in a fresh working directory the daemon makes
# (work_dir, /var/lib/splayd/work in docker-compose.yml). /etc/splayd belongs to it too:
# an empty named volume mounted there takes that ownership, and docker-compose.yml shares
# that volume with daemon-init, which writes splayd.toml as the same uid (10001).
RUN groupadd --system --gid 10001 splaylab \
 && useradd --system --uid 10001 --gid splaylab --home-dir /var/lib/splayd --create-home --shell /usr/sbin/nologin splaylab \
 && install -d -o splaylab -g splaylab -m 0755 /etc/splayd

ENV VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/var/lib/splayd \
    TMPDIR=/tmp

# Dependencies first (their own cached layer; PyPI), and `wheel`, which the venv's setuptools
# (66, Debian's) needs to build the daemon below without build isolation. PIP_CERT: use the
# system trust store (which holds EXTRA_CA_CERTS of build.sh), not certifi.
COPY daemon/requirements.txt /tmp/requirements.txt
RUN python3 -m venv "$VIRTUAL_ENV" \
 && PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
    pip install --no-cache-dir -r /tmp/requirements.txt wheel \
 && rm /tmp/requirements.txt

# Then the daemon itself, as a volunteer installs it: `pip install ./daemon`, which copies
# ../sandbox (node.lua, lib/, netmodel*.py, data/) into the package (splayd/runtime/). No
# network: the dependencies are there, and the venv's own setuptools + wheel build it.
COPY daemon/ /tmp/src/daemon/
COPY sandbox/ /tmp/src/sandbox/
RUN PIP_DISABLE_PIP_VERSION_CHECK=1 pip install --no-cache-dir --no-deps --no-build-isolation /tmp/src/daemon \
 && rm -rf /tmp/src \
 && splayd --version

WORKDIR /var/lib/splayd
USER splaylab
ENTRYPOINT ["tini", "--"]
CMD ["splayd", "--config", "/etc/splayd/splayd.toml"]
