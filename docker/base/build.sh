#!/usr/bin/env bash
# Build the local base image splaylab/base:bookworm without any container registry.
#
#   1. debootstrap --variant=minbase bookworm into a temporary folder, from the same Debian
#      mirror that the host's apt uses (or $MIRROR);
#   2. import that folder as splaylab/base:bookworm-minbase (`tar | docker import`);
#   3. docker build docker/base/Dockerfile FROM it, which adds what every SplayLab image
#      needs (python3, python3-venv, luajit, lua-socket, lua-cjson, ca-certificates, tini),
#      and tag the result splaylab/base:bookworm.
#
# Usage: docker/base/build.sh [--force]
#   Skips everything when splaylab/base:bookworm already exists, and skips the debootstrap
#   when splaylab/base:bookworm-minbase exists; --force rebuilds both.
#
# Environment (all optional):
#   BASE_TAG         final image          (default splaylab/base:bookworm)
#   MINBASE_TAG      imported rootfs      (default splaylab/base:bookworm-minbase)
#   SUITE            Debian suite         (default bookworm)
#   MIRROR           Debian mirror        (default: the one in /etc/apt/sources.list*, else
#                                          http://deb.debian.org/debian)
#   SECURITY_MIRROR  security mirror      (default: from the host's apt sources, else
#                                          http://deb.debian.org/debian-security)
#   EXTRA_CA_CERTS   a PEM file (one or more certificates) added to the image's trust store,
#                    for hosts whose HTTPS to PyPI/npm goes through a TLS-intercepting proxy
#   DOCKER_BUILD_NETWORK  passed as `docker build --network` (e.g. host) when the bridge
#                    network has no egress (dockerd started with --iptables=false)
# Needs: root, debootstrap (apt-get install debootstrap), a running Docker engine.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BASE_TAG="${BASE_TAG:-splaylab/base:bookworm}"
MINBASE_TAG="${MINBASE_TAG:-splaylab/base:bookworm-minbase}"
SUITE="${SUITE:-bookworm}"
force=0

for arg in "$@"; do
    case "$arg" in
        --force) force=1 ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown argument: $arg (try --help)" >&2; exit 2 ;;
    esac
done

log() { printf '[base] %s\n' "$*" >&2; }
image_exists() { docker image inspect "$1" >/dev/null 2>&1; }

# Print the URIs of the host's apt sources whose suites include $1 (deb822 .sources files
# and one-line sources.list files), one per line, in file order.
apt_uris_for_suite() {
    local suite="$1" f
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        awk -v suite="$suite" '
            function flush() { if (deb && hit) for (i = 1; i <= n; i++) print uris[i]; deb = hit = n = 0 }
            /^[[:space:]]*$/ { flush(); next }
            /^[[:space:]]*#/ { next }
            tolower($1) == "types:"  { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
            tolower($1) == "uris:"   { for (i = 2; i <= NF; i++) uris[++n] = $i }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
            tolower($1) == "enabled:" && tolower($2) == "no" { deb = 0 }
            END { flush() }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] || continue
        # deb [options] URI SUITE COMPONENTS...
        sed -E 's/\[[^]]*\]//' "$f" | awk -v suite="$suite" '$1 == "deb" && $3 == suite { print $2 }'
    done
}

if image_exists "$BASE_TAG" && [ "$force" = 0 ]; then
    log "$BASE_TAG already exists (use --force to rebuild)"
    exit 0
fi

command -v docker >/dev/null || { log "docker CLI not found"; exit 1; }
docker info >/dev/null 2>&1 || { log "the Docker engine is not reachable (is dockerd running?)"; exit 1; }

start=$(date +%s)

if image_exists "$MINBASE_TAG" && [ "$force" = 0 ]; then
    log "reusing $MINBASE_TAG"
else
    [ "$(id -u)" = 0 ] || { log "debootstrap needs root"; exit 1; }
    command -v debootstrap >/dev/null || { log "debootstrap not found: apt-get install -y debootstrap"; exit 1; }

    MIRROR="${MIRROR:-$(apt_uris_for_suite "$SUITE" | grep -v -- '-security' | head -n1 || true)}"
    MIRROR="${MIRROR:-http://deb.debian.org/debian}"
    SECURITY_MIRROR="${SECURITY_MIRROR:-$(apt_uris_for_suite "$SUITE-security" | head -n1 || true)}"
    SECURITY_MIRROR="${SECURITY_MIRROR:-http://deb.debian.org/debian-security}"
    arch="$(dpkg --print-architecture 2>/dev/null || echo amd64)"
    log "mirror $MIRROR, security $SECURITY_MIRROR, suite $SUITE, arch $arch"

    rootfs="$(mktemp -d "${TMPDIR:-/var/tmp}/splaylab-rootfs.XXXXXX")"
    cleanup() {
        # debootstrap unmounts what it mounted, but never delete through a live mount.
        for m in proc sys dev/pts dev; do
            if mountpoint -q "$rootfs/$m" 2>/dev/null; then umount -l "$rootfs/$m" || true; fi
        done
        rm -rf --one-file-system "$rootfs"
    }
    trap cleanup EXIT

    keyring=()
    [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] &&
        keyring=(--keyring=/usr/share/keyrings/debian-archive-keyring.gpg)

    t0=$(date +%s)
    debootstrap --variant=minbase --arch="$arch" "${keyring[@]}" "$SUITE" "$rootfs" "$MIRROR" \
        > "$rootfs.debootstrap.log" 2>&1 || {
        log "debootstrap failed; last lines of $rootfs.debootstrap.log:"; tail -n 20 "$rootfs.debootstrap.log" >&2; exit 1; }
    rm -f "$rootfs.debootstrap.log"
    log "debootstrap done in $(( $(date +%s) - t0 )) s"

    # apt sources of the image: the main suite, its updates and security.
    cat > "$rootfs/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
SOURCES
    # Small-image apt settings, as in Debian's official images.
    cat > "$rootfs/etc/apt/apt.conf.d/docker-clean" <<'APTCONF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APTCONF
    printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' \
        > "$rootfs/etc/apt/apt.conf.d/docker-no-recommends"
    printf 'Acquire::Languages "none";\n' > "$rootfs/etc/apt/apt.conf.d/docker-no-languages"
    # Never start services while installing packages inside a build.
    printf '#!/bin/sh\nexit 101\n' > "$rootfs/usr/sbin/policy-rc.d"
    chmod 0755 "$rootfs/usr/sbin/policy-rc.d"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/log/*.log \
        "$rootfs"/tmp/* "$rootfs"/var/tmp/*
    : > "$rootfs/etc/hostname"
    : > "$rootfs/etc/resolv.conf"   # Docker bind-mounts its own

    t0=$(date +%s)
    # /dev, /proc and /sys are provided by the container runtime.
    tar -C "$rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -c . |
        docker import \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            --change 'ENV LANG=C.UTF-8' \
            --change 'CMD ["bash"]' \
            --message "debootstrap --variant=minbase $SUITE $MIRROR" \
            - "$MINBASE_TAG" >/dev/null
    log "imported $MINBASE_TAG in $(( $(date +%s) - t0 )) s"
    cleanup
    trap - EXIT
fi

# Derived stage: the packages every SplayLab image needs. The build context is a temporary
# folder holding only the Dockerfile and the optional extra CA certificates.
ctx="$(mktemp -d "${TMPDIR:-/var/tmp}/splaylab-base-ctx.XXXXXX")"
trap 'rm -rf "$ctx"' EXIT
cp "$here/Dockerfile" "$ctx/Dockerfile"
mkdir -p "$ctx/extra-ca"
if [ -n "${EXTRA_CA_CERTS:-}" ]; then
    [ -f "$EXTRA_CA_CERTS" ] || { log "EXTRA_CA_CERTS=$EXTRA_CA_CERTS is not a file"; exit 1; }
    cp "$EXTRA_CA_CERTS" "$ctx/extra-ca/extra-ca.crt"
    log "adding the certificates of $EXTRA_CA_CERTS to the trust store"
fi

net=()
[ -n "${DOCKER_BUILD_NETWORK:-}" ] && net=(--network "$DOCKER_BUILD_NETWORK")
t0=$(date +%s)
docker build "${net[@]}" --build-arg ROOTFS_IMAGE="$MINBASE_TAG" -t "$BASE_TAG" "$ctx"
log "built $BASE_TAG in $(( $(date +%s) - t0 )) s (total $(( $(date +%s) - start )) s)"
