"""The Docker sandbox image, built by the daemon itself from host files (no registry needed).

`ensure_image(sandbox_dir)` assembles a minimal root filesystem as a tar stream and, when the
engine does not have it yet, imports it (`docker import` through the SDK) as
``splaylab/sandbox:<digest>``. The digest is the SHA-256 of that (deterministic) tar, so any
change of the host's LuaJIT, its libraries, its Lua modules or the runtime in sandbox/ gives a
new tag and a rebuild; an unchanged one costs a hash and one `images.get`.

Contents (no shell, no package manager, nothing setuid):
  /usr/bin/luajit                       the host's LuaJIT (IMAGE_LUAJIT)
  every shared library it and the Lua C modules need (ldd), the dynamic loader included,
    each at the path ldd names (symlinks resolved into regular files)
  the C modules socket.core, mime.core, cjson, lfs, _openssl (luaossl) and the Lua files of
    LuaSocket (socket.lua, socket/*.lua, mime.lua, ltn12.lua), of luaossl (openssl.lua,
    openssl/*.lua) and lua-messagepack (MessagePack.lua), at their host paths, found with the
    host luajit's own package.searchpath so that luajit in the image finds them the same way
  /sandbox                              the runtime of sandbox/: node.lua and lib/ (SANDBOX_INCLUDE)
  /usr/lib/splaylab/launch.lua          sets RLIMIT_AS (not settable as a container ulimit),
                                        then execs the node (LAUNCH_LUA below)
  /etc/passwd, /etc/group               root and nobody (65534) only
  /work (mount point), /tmp (1777), /proc, /sys, /dev (mount points)
Modes are normalised (0755 executables and dirs, 0644 files), owner root, mtime 0.
docs/docker.md ("The sandbox image") describes the image for deployments with a registry.
"""
from __future__ import annotations

import hashlib
import io
import logging
import re
import shutil
import stat
import subprocess
import tarfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

logger = logging.getLogger("splayd")

IMAGE_REPO = "splaylab/sandbox"
IMAGE_LUAJIT = "/usr/bin/luajit"
IMAGE_SANDBOX = "/sandbox"
IMAGE_WORK = "/work"
IMAGE_LAUNCH = "/usr/lib/splaylab/launch.lua"
LAYOUT_VERSION = "1"  # bump when the layout below changes without any host file changing
# lfs (lua-filesystem): the restricted io (sandbox/lib/splaylab/fs.lua) needs it to refuse
# symbolic links and to count the files present at start against disk_max_size/_files.
# _openssl and openssl/*.lua (lua-luaossl): LuaCrypto's digests and HMAC (splaylab/crypto.lua);
# MessagePack (lua-messagepack): splay.lbinenc. Both for SPLAY's own applications (issue 23).
C_MODULES = ("socket.core", "mime.core", "cjson", "lfs", "_openssl")
LUA_MODULES = ("socket", "ltn12", "mime", "openssl", "MessagePack")
LUA_DIRS = ("socket", "openssl")  # every .lua file of these packages (socket.http, openssl.digest, ...)
# What the image takes of sandbox/: the runtime only (not its specs, tests, example apps or
# tools, so that editing those does not change the digest). Add here what node.lua comes to need.
SANDBOX_INCLUDE = ("node.lua", "lib")

PASSWD = b"root:x:0:0:root:/nonexistent:/nonexistent\nnobody:x:65534:65534:nobody:/nonexistent:/nonexistent\n"
GROUP = b"root:x:0:\nnogroup:x:65534:\n"

# Sets rlimits that the container config cannot carry, then execs the node. RLIMIT_AS cannot
# be a container ulimit: runc's own init (Go, seccomp setup) runs under the container's
# rlimits and fails with ENOMEM under a few hundred MB of address space. Runs with plain
# luajit (FFI available); the program it execs (node.lua) starts a fresh, sandboxed state.
#   luajit launch.lua as=BYTES [cpu=SOFT:HARD ...] -- /usr/bin/luajit /sandbox/node.lua ...
LAUNCH_LUA = b"""\
local ffi = require "ffi"
ffi.cdef [[
typedef struct { uint64_t cur, max; } splaylab_rlimit;
int setrlimit(int resource, const splaylab_rlimit *rlim);
int execv(const char *path, char *const argv[]);
char *strerror(int errnum);
]]
local RES = { as = 9, cpu = 0, fsize = 1, nofile = 7, core = 4, nproc = 6 }
local function die(msg)
  io.stderr:write("launch: ", msg, "\\n")
  os.exit(3)
end
local i = 1
while arg[i] and arg[i] ~= "--" do
  local name, soft, hard = arg[i]:match("^(%a+)=(%d+):?(%d*)$")
  if not RES[name] then die("bad limit " .. arg[i]) end
  hard = hard ~= "" and hard or soft
  local r = ffi.new("splaylab_rlimit", tonumber(soft), tonumber(hard))
  if ffi.C.setrlimit(RES[name], r) ~= 0 then
    die("setrlimit " .. name .. ": " .. ffi.string(ffi.C.strerror(ffi.errno())))
  end
  i = i + 1
end
if arg[i] ~= "--" or not arg[i + 1] then die("usage: launch.lua RES=SOFT[:HARD]... -- PROG ARGS...") end
local n = #arg - i
local argv, keep = ffi.new("char *[?]", n + 1), {}
for k = 1, n do
  local s = arg[i + k]
  keep[k] = ffi.new("char[?]", #s + 1, s)
  argv[k - 1] = keep[k]
end
argv[n] = nil
ffi.C.execv(arg[i + 1], argv)
die("execv " .. arg[i + 1] .. ": " .. ffi.string(ffi.C.strerror(ffi.errno())))
"""

_build_lock = threading.Lock()


class ImageError(Exception):
    """The sandbox image cannot be assembled (missing host file) or imported."""


@dataclass
class RootFS:
    """Image path → content; directories are implied by the files and listed in `dirs`."""

    files: dict[str, tuple[bytes, int]] = field(default_factory=dict)  # path -> (data, mode)
    dirs: dict[str, int] = field(default_factory=dict)  # path -> mode
    sources: dict[str, str] = field(default_factory=dict)  # path -> host path (for messages)

    def add_file(self, image_path: str, data: bytes, mode: int, source: str = "") -> None:
        p = str(PurePosixPath("/") / image_path)
        self.files[p] = (data, mode)
        self.sources[p] = source
        parent = PurePosixPath(p).parent
        while str(parent) != "/":
            self.dirs.setdefault(str(parent), 0o755)
            parent = parent.parent

    def add_host_file(self, host_path: str | Path, image_path: str | None = None) -> None:
        host = Path(host_path)
        try:
            real = host.resolve(strict=True)
            data = real.read_bytes()
            st = real.stat()
        except OSError as e:
            raise ImageError(f"sandbox image: cannot read {host}: {e.strerror or e}") from None
        if not stat.S_ISREG(st.st_mode):
            raise ImageError(f"sandbox image: {host} is not a regular file")
        mode = 0o755 if st.st_mode & 0o111 else 0o644
        self.add_file(image_path or str(host), data, mode, str(host))

    def add_dir(self, image_path: str, mode: int = 0o755) -> None:
        self.dirs[str(PurePosixPath("/") / image_path)] = mode

    @property
    def size(self) -> int:
        return sum(len(d) for d, _ in self.files.values())


def _host_luajit(luajit: str) -> str:
    found = shutil.which(luajit)
    if not found:
        raise ImageError(f"sandbox image: luajit not found ({luajit!r})")
    return found


def find_lua_modules(luajit: str = "luajit") -> tuple[list[str], list[str]]:
    """(C module files, Lua files) of the runtime's system modules, by asking the host luajit."""
    script = (
        "for _, m in ipairs({%s}) do print('C', (assert(package.searchpath(m, package.cpath)))) end "
        "for _, m in ipairs({%s}) do print('L', (assert(package.searchpath(m, package.path)))) end"
        % (
            ",".join(repr(m) for m in C_MODULES),
            ",".join(repr(m) for m in LUA_MODULES),
        )
    )
    try:
        out = subprocess.run(
            [_host_luajit(luajit), "-e", script],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
            cwd="/",  # package paths start with ./ : never pick a module from the cwd
        ).stdout
    except subprocess.CalledProcessError as e:
        raise ImageError(f"sandbox image: a Lua module is missing on the host: {e.stderr.strip()}") from None
    c_files, lua_files = [], []
    for line in out.splitlines():
        kind, path = line.split(" ", 1) if " " in line else line.split("\t", 1)
        path = path.strip()
        if not path.startswith("/"):
            raise ImageError(f"sandbox image: module found at a relative path: {path}")
        (c_files if kind == "C" else lua_files).append(path)
    for lua in list(lua_files):
        base = Path(lua).parent
        for d in LUA_DIRS:
            if Path(lua).stem == d and (base / d).is_dir():
                lua_files += sorted(str(p) for p in (base / d).glob("*.lua"))
    return c_files, lua_files


_LDD_ARROW = re.compile(r"^\s*(\S+)\s+=>\s+(\S+)\s+\(0x[0-9a-f]+\)\s*$")
_LDD_PLAIN = re.compile(r"^\s*(/\S+)\s+\(0x[0-9a-f]+\)\s*$")


def shared_libraries(elf: str) -> list[str]:
    """Absolute paths of the libraries `elf` loads (transitively, as ldd lists them), loader
    included; [] for a static executable."""
    try:
        proc = subprocess.run(["ldd", elf], capture_output=True, text=True, timeout=10)
    except FileNotFoundError:
        raise ImageError("sandbox image: ldd not found (Debian package libc-bin)") from None
    if proc.returncode != 0:
        if "not a dynamic executable" in proc.stdout + proc.stderr:
            return []
        raise ImageError(f"sandbox image: ldd {elf} failed: {proc.stderr.strip()}")
    libs = []
    for line in proc.stdout.splitlines():
        if "statically linked" in line:
            return []
        m = _LDD_ARROW.match(line)
        if m:
            if m.group(2) == "not":
                raise ImageError(f"sandbox image: {elf} needs {m.group(1)}, not found on the host")
            libs.append(m.group(2))
            continue
        m = _LDD_PLAIN.match(line)
        if m:
            libs.append(m.group(1))
        elif "=> not found" in line:
            raise ImageError(f"sandbox image: {elf}: {line.strip()}")
    return libs


def collect_rootfs(sandbox_dir: str | Path, luajit: str = "luajit") -> RootFS:
    """Assemble the image's files from the host (no engine needed)."""
    sandbox_dir = Path(sandbox_dir)
    if not (sandbox_dir / "node.lua").is_file():
        raise ImageError(f"sandbox image: {sandbox_dir}/node.lua not found")
    host_luajit = _host_luajit(luajit)
    root = RootFS()
    root.add_host_file(host_luajit, IMAGE_LUAJIT)
    c_files, lua_files = find_lua_modules(host_luajit)
    elfs = [host_luajit, *c_files]
    libs: list[str] = []
    for elf in elfs:
        for lib in shared_libraries(elf):
            if lib not in libs:
                libs.append(lib)
    for path in [*libs, *c_files, *lua_files]:
        root.add_host_file(path)

    for path in sorted(sandbox_dir.rglob("*")):
        rel = path.relative_to(sandbox_dir)
        if rel.parts[0] not in SANDBOX_INCLUDE or any(p.startswith(".") for p in rel.parts):
            continue
        if "__pycache__" in rel.parts or path.is_symlink():
            continue
        image_path = f"{IMAGE_SANDBOX}/{rel.as_posix()}"
        if path.is_dir():
            root.add_dir(image_path)
        elif path.is_file():
            root.add_file(image_path, path.read_bytes(), 0o644, str(path))

    root.add_file(IMAGE_LAUNCH, LAUNCH_LUA, 0o644)
    root.add_file("/etc/passwd", PASSWD, 0o644)
    root.add_file("/etc/group", GROUP, 0o644)
    for d in ("/etc", "/proc", "/sys", "/dev", IMAGE_WORK, IMAGE_SANDBOX):
        root.add_dir(d)
    root.add_dir("/tmp", 0o1777)
    return root


def rootfs_tar(root: RootFS) -> bytes:
    """A deterministic tar of the root filesystem: same files → same bytes → same digest."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        # Mark the layout version in the archive so that it is part of the digest.
        entries: list[tuple[str, str]] = [(p, "d") for p in root.dirs] + [(p, "f") for p in root.files]
        for path, kind in sorted(entries):
            info = tarfile.TarInfo(path.lstrip("/"))
            info.uid = info.gid = 0
            info.uname = info.gname = "root"
            info.mtime = 0
            if kind == "d":
                info.type = tarfile.DIRTYPE
                info.mode = root.dirs[path]
                tar.addfile(info)
            else:
                data, mode = root.files[path]
                info.mode = mode
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def image_digest(tar_bytes: bytes) -> str:
    h = hashlib.sha256()
    h.update(f"splaylab-sandbox-layout-{LAYOUT_VERSION}\n".encode())
    h.update(tar_bytes)
    return h.hexdigest()[:16]


def image_tag(sandbox_dir: str | Path, luajit: str = "luajit") -> str:
    """The tag ensure_image would use, without talking to the engine."""
    return f"{IMAGE_REPO}:{image_digest(rootfs_tar(collect_rootfs(sandbox_dir, luajit)))}"


def ensure_image(
    sandbox_dir: str | Path,
    tag: str | None = None,
    client: Any = None,
    luajit: str = "luajit",
) -> str:
    """Return the tag of the sandbox image for `sandbox_dir`, importing it when absent.

    Blocking (SDK calls, ~10 ms when present, 1-3 s to import): from asyncio code call it
    through `asyncio.to_thread`. `tag` defaults to ``splaylab/sandbox:<digest>``.
    """
    import docker  # the SDK is needed only here and in docker_backend

    own_client = client is None
    if own_client:
        client = docker.from_env()
    try:
        with _build_lock:
            t0 = time.monotonic()
            root = collect_rootfs(sandbox_dir, luajit)
            data = rootfs_tar(root)
            digest = image_digest(data)
            tag = tag or f"{IMAGE_REPO}:{digest}"
            try:
                client.images.get(tag)
                return tag
            except docker.errors.ImageNotFound:
                pass
            repo, _, version = tag.rpartition(":")
            if not repo or "/" in version:
                repo, version = tag, "latest"
            try:
                client.api.import_image_from_data(
                    data,
                    repository=repo,
                    tag=version,
                    changes=[
                        f'CMD ["{IMAGE_LUAJIT}", "-v"]',
                        "USER 65534:65534",
                        f"WORKDIR {IMAGE_WORK}",
                        "ENV LANG=C.UTF-8 PATH=/usr/bin",
                        "LABEL splaylab.sandbox=1",
                        f"LABEL splaylab.sandbox.digest={digest}",
                    ],
                )
                client.images.get(tag)
            except docker.errors.DockerException as e:
                raise ImageError(f"sandbox image: docker import of {tag} failed: {e}") from None
            logger.info(
                "built sandbox image %s (%d files, %.1f MB) in %.1f s",
                tag,
                len(root.files),
                len(data) / 1e6,
                time.monotonic() - t0,
            )
            return tag
    finally:
        if own_client:
            client.close()


def prune_images(client: Any, keep: str) -> list[str]:
    """Remove the other ``splaylab/sandbox`` tags (older runtimes); images still used by a
    container stay. Returns the removed tags."""
    import docker

    removed = []
    for image in client.images.list(name=IMAGE_REPO):
        for t in image.tags:
            if t != keep and t.startswith(IMAGE_REPO + ":"):
                try:
                    client.images.remove(t)
                    removed.append(t)
                except docker.errors.APIError:
                    pass
    return removed


def main(argv: list[str] | None = None) -> int:
    """python -m splayd.docker_image [--sandbox DIR] [--tag TAG] [--export FILE.tar] [--launcher FILE]"""
    import argparse

    from .config import DEFAULT_SANDBOX_DIR

    ap = argparse.ArgumentParser(prog="python -m splayd.docker_image",
                                 description="Build the splayd sandbox image (when absent) and print its tag.")
    ap.add_argument("--sandbox", default=str(DEFAULT_SANDBOX_DIR), help="the sandbox/ directory")
    ap.add_argument("--luajit", default="luajit", help="the host's luajit (default: from PATH)")
    ap.add_argument("--tag", help=f"image tag (default {IMAGE_REPO}:<digest>)")
    ap.add_argument("--export", metavar="FILE.tar",
                    help="write the root filesystem tar instead of importing it (no engine needed)")
    ap.add_argument("--launcher", metavar="FILE", help="write launch.lua (for a Dockerfile) and exit")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    if args.launcher:
        Path(args.launcher).write_bytes(LAUNCH_LUA)
        return 0
    if args.export:
        data = rootfs_tar(collect_rootfs(args.sandbox, args.luajit))
        Path(args.export).write_bytes(data)
        print(f"{IMAGE_REPO}:{image_digest(data)}")
        return 0
    print(ensure_image(args.sandbox, tag=args.tag, luajit=args.luajit))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
