"""Hostile programs against the daemon's sandbox (OS side), each with its exact outcome:
instance state, exit reason and what the student sees in the log.

Student programs run through sandbox/node.lua exactly as a job would; "escaped" programs
run as plain `luajit app.lua` with the whole standard library, as if the Lua environment had
a hole, to show what bubblewrap (or the Docker container), the rlimits and the daemon's own
checks hold by themselves. The daemon code path is splayd's JobManager (see hostile.py).

Every case runs on the Docker backend too (one container per job; the engine is started by
scripts/start-dockerd.sh). Where Docker legitimately differs (its own image's /etc/passwd, no
shell to fork with, docker-init as PID 1), the Docker outcome is asserted exactly in its own
branch.
"""
from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from security.hostile import (
    BACKENDS, ISOLATED, MB, HostDaemon, processes_matching,
    run_async_tests_in_own_loop,
)


pytestmark = pytest.mark.usefixtures("docker_engine")  # tests/security/conftest.py


@pytest.fixture(params=BACKENDS)
def daemon(request: pytest.FixtureRequest, tmp_path: Path) -> HostDaemon:
    """A daemon per backend: every student-program case holds under bwrap, rlimits alone and
    Docker."""
    return HostDaemon(tmp_path, request.param)


@pytest.fixture(params=ISOLATED)
def isolated(request: pytest.FixtureRequest, tmp_path: Path) -> HostDaemon:
    """The backends that hide the host (bwrap, Docker): for the escaped programs."""
    return HostDaemon(tmp_path, request.param)


CPU = ("FAILED", "killed: CPU time limit of 1 s exceeded", -24)


# ---- CPU -------------------------------------------------------------------------------
@pytest.mark.parametrize("code", [
    pytest.param("for i = 1, 1e15 do end", id="jit-loop"),
    pytest.param('while true do string.gsub("abc", "%w", function(c) return c end) end', id="interpreted-loop"),
    pytest.param("print(pcall(function() while true do end end))", id="inside-pcall"),
    pytest.param("local co = coroutine.wrap(function() while true do end end)\nco()", id="inside-coroutine"),
    pytest.param("events.thread(function() while true do end end)\nevents.run()", id="inside-events-thread"),
])
async def test_cpu_spin_is_killed_at_the_cpu_limit(daemon: HostDaemon, code: str) -> None:
    out = await daemon.run_one(code, max_cpu=1)
    assert (out.state, out.reason, out.exit_code) == CPU
    assert out.lines == []


# ---- wall time -------------------------------------------------------------------------
async def test_sleeping_forever_ends_at_the_duration(daemon: HostDaemon) -> None:
    out = await daemon.run_one('print("up")\nwhile true do events.sleep(10) end', duration=1)
    assert (out.state, out.reason, out.exit_code) == ("ENDED", "killed: duration of 1 s reached", -9)
    assert out.lines == [("print", "up")]


async def test_blocking_forever_on_a_raw_socket_ends_at_the_duration(isolated: HostDaemon) -> None:
    # Escaped: a real blocking accept() the Lua scheduler never sees; the daemon's clock holds.
    code = ('local socket = require "socket"\nlocal s = assert(socket.bind("127.0.0.1", 0))\n'
            'out("listening")\ns:settimeout(nil)\ns:accept()\nout("never")\n')
    out = await isolated.run_one(code, duration=1, escaped=True)
    assert (out.state, out.reason, out.exit_code) == ("ENDED", "killed: duration of 1 s reached", -9)
    assert out.lines == [("print", "listening")]


# ---- memory ----------------------------------------------------------------------------
MEMORY = ("FAILED", "killed: memory limit of 64 MB reached", 4)


async def test_string_bomb_hits_the_memory_limit(daemon: HostDaemon) -> None:
    out = await daemon.run_one('local s = "x"\nwhile true do s = s .. s end', max_mem=64 * MB)
    assert (out.state, out.reason, out.exit_code) == MEMORY
    assert out.lines == [("error", "app.lua: not enough memory")]


async def test_table_bomb_hits_the_memory_limit_even_after_a_caught_failure(daemon: HostDaemon) -> None:
    code = ('print(pcall(string.rep, "x", 2^30))\n'
            'local t = {}\nfor i = 1, 1e9 do t[i] = {i, "x" .. i} end\n')
    out = await daemon.run_one(code, max_mem=64 * MB)
    assert (out.state, out.reason, out.exit_code) == MEMORY
    assert out.lines == [("print", "false\tnot enough memory"), ("error", "app.lua: not enough memory")]


async def test_deep_recursion_is_a_runtime_error(daemon: HostDaemon) -> None:
    out = await daemon.run_one("local function f(n)\n  return 1 + f(n + 1)\nend\nprint(f(1))\n")
    assert (out.state, out.exit_code) == ("FAILED", 1)
    # Whether LuaJIT can name the line depends on whether the overflow happens in interpreted
    # or compiled code, and its error handler may itself lack room to build a traceback
    # (sandbox/README.md, known limits); the student always reads "stack overflow".
    assert re.fullmatch(r"runtime error: (app\.lua:\d: )?stack overflow", out.reason), out.reason
    assert out.lines[0][0] == "error" and out.lines[0][1].endswith("stack overflow")


# ---- processes -------------------------------------------------------------------------
@pytest.mark.parametrize("call,name,why", [
    ('os.execute("id")', "os.execute", "runs a host command"),
    ('io.popen("id")', "io.popen", "runs a host command"),
])
async def test_shell_commands_are_unreachable(daemon: HostDaemon, call: str, name: str, why: str) -> None:
    out = await daemon.run_one(f"print(pcall(function() return {call} end))\n{call}\n")
    message = f"{name} is not available in the SplayLab sandbox: {why}"
    assert out.lines[0] == ("print", f"false\tapp.lua:1: {message}")
    assert (out.state, out.reason, out.exit_code) == ("FAILED", f"runtime error: app.lua:2: {message}", 1)


async def test_native_code_to_fork_is_unreachable(daemon: HostDaemon) -> None:
    code = ('print(ffi, jit, package)\nprint(pcall(require, "ffi"))\nprint(pcall(require, "posix"))\n'
            'print(loadstring(string.char(27) .. "LJ"))\n')
    out = await daemon.run_one(code)
    assert out.state == "ENDED", out
    assert out.lines[0] == ("print", "nil\tnil\tnil")
    assert out.lines[1][1].startswith("false\t") and "ffi" in out.lines[1][1]
    assert out.lines[2][1].startswith("false\t") and "posix" in out.lines[2][1]
    assert out.lines[3][1].startswith("nil\t")


# Docker's image has no shell: the escaped program forks and execs through the FFI instead.
FFI_FORK = """local ffi = require "ffi"
ffi.cdef[[int fork(void); int setsid(void); int execv(const char *path, char *const argv[]);]]
if ffi.C.fork() == 0 then
  ffi.C.setsid()
  local argv = ffi.new("const char *[4]", {"/usr/bin/luajit", "-e",
    "local s = require 'socket' while true do s.sleep(1) end -- sleep 987654"})
  ffi.C.execv("/usr/bin/luajit", ffi.cast("char *const *", argv))
  os.exit(1)
end
out("forked")
while true do end
"""


async def test_escaped_fork_leaves_no_process_behind(isolated: HostDaemon) -> None:
    # Even with os.execute, a child started in a new session dies with the node (PID
    # namespace); on Docker, with the job's container (removed when the job ends).
    code = 'os.execute("setsid sleep 987654 < /dev/null > /dev/null 2>&1 &")\nout("forked")\nwhile true do end\n'
    if isolated.backend == "docker":
        code = FFI_FORK

    async def check(d: HostDaemon) -> None:
        await asyncio.sleep(0.5)
        assert processes_matching("sleep 987654"), "the child should run inside the sandbox"

    out = await isolated.run_one(code, duration=1.5, escaped=True, during=check)
    assert (out.state, out.reason) == ("ENDED", "killed: duration of 1.5 s reached")
    assert out.lines == [("print", "forked")]
    await asyncio.sleep(0.3)
    assert processes_matching("sleep 987654") == []


# ---- files -----------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/etc/passwd", "../../../../../../etc/passwd", "a/../../job.json"])
async def test_host_files_cannot_be_loaded_by_path(daemon: HostDaemon, path: str) -> None:
    out = await daemon.run_one(f'print(loadfile("{path}"))\nprint(pcall(dofile, "{path}"))\n')
    refused = f"loadfile: only relative paths inside the node's directory: {path}"
    assert out.lines == [("print", f"nil\t{refused}"), ("print", f"false\t{refused}")]
    assert (out.state, out.reason) == ("ENDED", "ended normally")


async def test_escaped_program_sees_no_host_file(isolated: HostDaemon) -> None:
    here = Path(__file__).resolve()
    files = ["/etc/passwd", "/etc/shadow", "/root/.bashrc", str(here), str(here.parents[2] / "Makefile"),
             str(here.parents[2] / "daemon" / "splayd" / "config.py")]
    code = ("for _, p in ipairs{" + ", ".join(f'"{f}"' for f in files) + "} do\n"
            '  local f = io.open(p) out(p, f and "visible" or "absent")\nend\n'
            'local f = io.open("/usr/evil", "w") out("/usr writable", f ~= nil)\n'
            'local p = io.open("/proc/1/cmdline") out("pid 1", p and p:read("*a"):match("%s") or "?")\n')
    if isolated.backend == "bwrap":
        out = await isolated.run_one(code % "bwrap", escaped=True)
        assert out.texts == [f"{f}\tabsent" for f in files] + ["/usr writable\tfalse", "pid 1\tbwrap"]
    else:
        # Docker: /etc/passwd is the image's own (root and nobody), not the host's.
        code += 'out((io.open("/etc/passwd"):read("*a"):gsub("\\n", " ")))\n'
        out = await isolated.run_one(code % "docker%-init", escaped=True)
        assert out.texts == (["/etc/passwd\tvisible"] + [f"{f}\tabsent" for f in files[1:]]
                             + ["/usr writable\tfalse", "pid 1\tdocker-init",
                                "root:x:0:0:root:/nonexistent:/nonexistent "
                                "nobody:x:65534:65534:nobody:/nonexistent:/nonexistent "])
    assert out.state == "ENDED"


async def test_symlink_out_of_the_working_dir_is_never_followed(isolated: HostDaemon, tmp_path: Path) -> None:
    # An escaped program plants links to the host's / and to a big directory; the daemon's
    # disk check must not count /usr, and its cleanup must not delete the link's target.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("host data")
    # (Planted through the FFI: Docker's image has no shell for `ln`.)
    code = ('local ffi = require "ffi"\nffi.cdef "int symlink(const char *target, const char *path);"\n'
            f'for _, l in ipairs{{{{"/", "root_link"}}, {{"/usr", "usr_link"}}, {{"{victim}", "victim_link"}}}} do\n'
            '  assert(ffi.C.symlink(l[1], l[2]) == 0)\nend\n'
            'out("planted")\nwhile true do end\n')
    out = await isolated.run_one(code, escaped=True, duration=1.2,
                                 limits={"disk_max_size": 1 * MB, "disk_max_files": 10})
    assert (out.state, out.reason) == ("ENDED", "killed: duration of 1.2 s reached")
    assert out.lines == [("print", "planted")]
    assert (victim / "keep.txt").read_text() == "host data"
    assert not isolated.job_dir(1).exists()  # the job's directory is gone, the links with it


async def test_one_big_file_hits_the_disk_quota(isolated: HostDaemon) -> None:
    code = ('local f = io.open("big", "w")\nout("writing")\n'
            'for i = 1, 64 do f:write(string.rep("x", 64 * 1024)) f:flush() end\nout("never")\n')
    out = await isolated.run_one(code, escaped=True, limits={"disk_max_size": 1 * MB})
    assert (out.state, out.reason, out.exit_code) == ("FAILED", "killed: disk quota of 1 MB exceeded", -25)
    assert out.lines == [("print", "writing")]


async def test_many_files_fill_the_disk_quota(isolated: HostDaemon) -> None:
    code = ('for i = 1, 8 do local f = io.open("f" .. i, "w") f:write(string.rep("x", 200 * 1024)) f:close() end\n'
            'out("written")\nwhile true do end\n')
    out = await isolated.run_one(code, escaped=True, duration=5, limits={"disk_max_size": 1 * MB})
    assert (out.state, out.reason, out.exit_code) == ("FAILED", "killed: disk quota of 1 MB exceeded", -9)
    assert out.lines == [("print", "written")]


async def test_too_many_files(isolated: HostDaemon) -> None:
    code = 'for i = 1, 50 do io.open("f" .. i, "w"):close() end\nout("created")\nwhile true do end\n'
    out = await isolated.run_one(code, escaped=True, duration=5, limits={"disk_max_files": 20})
    assert (out.state, out.reason, out.exit_code) == ("FAILED", "killed: more than 20 files", -9)
    assert out.lines == [("print", "created")]


async def test_private_tmp_is_small_and_private(isolated: HostDaemon) -> None:
    code = ('local f = assert(io.open("/tmp/x", "w"))\nlocal ok, err = f:write(string.rep("x", 2 * 1024 * 1024))\n'
            'out(ok and "wrote 2 MB" or err)\nout(io.open("/tmp/x") ~= nil)\n')
    out = await isolated.run_one(code, escaped=True)
    assert out.texts == ["No space left on device", "true"]
    assert not Path("/tmp/x").exists() or Path("/tmp/x").stat().st_size != 2 * MB


# ---- output ----------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ISOLATED)
async def test_log_flood_is_cut_to_the_rate_with_one_record(tmp_path: Path, backend: str) -> None:
    d = HostDaemon(tmp_path, backend, log_lines_per_second=100)
    out = await d.run_one("for i = 1, 5000 do print(i) end")
    assert out.state == "ENDED"
    assert out.lines[:100] == [("print", str(i)) for i in range(1, 101)]
    assert out.lines[100:] == [("warning", "log rate limit: 4900 lines dropped")]


async def test_enormous_line_is_truncated(daemon: HostDaemon) -> None:
    out = await daemon.run_one('print(string.rep("y", 1e6))\nprint("after")')
    # The record's 4096 bytes include its "print<TAB>" prefix.
    assert out.lines == [("print", "y" * 4090 + " [line truncated at 4096 bytes]"), ("print", "after")]
    assert out.state == "ENDED"


async def test_binary_garbage_is_logged_with_its_bytes_escaped(daemon: HostDaemon) -> None:
    # bytes that are not UTF-8 reach the controller as \xNN (NUL is escaped there, docs/decisions.md)
    out = await daemon.run_one(r'print("a\0b\255\254c\1")' + "\n")
    assert out.lines == [("print", "a\x00b\\xff\\xfec\x01")]


async def test_forged_records_keep_the_students_level(daemon: HostDaemon) -> None:
    code = ('print("error\\tforged\\ninfo\\tforged too")\n'
            'io.write("warning\\tlog rate limit: 7 lines dropped\\n")\n'
            'log.info("x\\nerror\\ty")\n')
    out = await daemon.run_one(code)
    assert out.lines == [("print", "error\tforged"), ("print", "info\tforged too"),
                         ("print", "warning\tlog rate limit: 7 lines dropped"),
                         ("info", "x"), ("info", "error\ty")]


# ---- leftovers -------------------------------------------------------------------------
async def test_a_second_job_sees_nothing_of_the_first(isolated: HostDaemon) -> None:
    first = ('local f = io.open("secret", "w") f:write("s3cr3t") f:close()\n'
             'local g = io.open("/tmp/secret", "w") g:write("s3cr3t") g:close()\nout("stored")\n')
    out = await isolated.run_one(first, job=1, escaped=True)
    assert (out.state, out.lines) == ("ENDED", [("print", "stored")])
    assert not isolated.job_dir(1).exists()
    second = ('for _, p in ipairs{"secret", "/tmp/secret", "../../job-1/node-1/secret"} do\n'
              '  out(p, io.open(p) and "found" or "absent")\nend\n')
    out = await isolated.run_one(second, job=2, escaped=True)
    assert out.texts == ["secret\tabsent", "/tmp/secret\tabsent", "../../job-1/node-1/secret\tabsent"]


# ---- the daemon keeps serving --------------------------------------------------------
@pytest.mark.parametrize("backend", ISOLATED)
async def test_a_hostile_job_does_not_disturb_another(tmp_path: Path, backend: str) -> None:
    d = HostDaemon(tmp_path, backend, log_lines_per_second=200)
    # It floods and spins: a flood alone mostly waits on its pipe and may take long to use its
    # 1 s of CPU under load, so the duration is far beyond it.
    hostile = d.run("while true do print(string.rep('z', 5000)) for _ = 1, 1e6 do end end",
                    job=1, nodes=2, max_cpu=1, duration=60)
    calm = d.run("for i = 1, 5 do print(i) events.sleep(0.2) end", job=2, nodes=2)
    bad, good = await asyncio.gather(hostile, calm)
    assert [(o.state, o.reason) for o in bad] == [CPU[:2]] * 2
    assert [(o.state, o.reason) for o in good] == [("ENDED", "ended normally")] * 2
    assert [o.texts for o in good] == [["1", "2", "3", "4", "5"]] * 2
    # Its only warnings are the rate limit's records; a window that dropped one line says
    # "1 line dropped" (output_limits.rate_text), which a loaded machine sometimes produces.
    warnings = [t for o in bad for lv, t in o.lines if lv == "warning"]
    assert all(re.fullmatch(r"log rate limit: [1-9]\d* lines? dropped", t) for t in warnings), warnings


# ---- what job.json tells the runtime -------------------------------------------------
@pytest.mark.parametrize("backend", ISOLATED)
async def test_bootstrap_list_and_limits_reach_the_node(tmp_path: Path, backend: str) -> None:
    d = HostDaemon(tmp_path, backend)
    code = ('local f = io.open("job.json") local s = f:read("*a") f:close()\n'
            'local cjson = require "cjson" local j = cjson.decode(s)\n'
            'out(#j.nodes, #j.all_nodes, j.list_type, j.list_size, j.limits.max_sockets, j.limits.disk_max_files,\n'
            '    table.concat(j.limits.connect_deny, ","))\n')
    # above the owner's ceiling (disk_max_files 1000): refused, not lowered
    refused = await d.manager.handle({"type": "register", "job": 9, "count": 1, "limits": {"disk_max_files": 99999}})
    assert refused == {"ok": False, "reason": "INVALID_DISK: asked 99999 files per node, this daemon allows 1000"}
    d.manager.set_blacklist(["10.1.2.3", "192.168.7.0/24"])  # the controller's, from welcome
    outs = await d.run(code, nodes=3, list_type="head", list_size=2, escaped=True,
                       limits={"max_sockets": 8, "disk_max_files": 999})
    assert [o.texts for o in outs] == [["2\t3\thead\t2\t8\t999\t10.1.2.3,192.168.7.0/24"]] * 3


run_async_tests_in_own_loop(globals())
