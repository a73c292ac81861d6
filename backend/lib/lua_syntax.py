"""Lua syntax check with the controller's luajit, before any daemon is bothered.

Model-free: give it source text, get None or a LuaSyntaxError(line, message). The check is
sandbox/syntax_check.lua, the node runtime's own compile (text only, Lua 5.1's escapes read as
Lua 5.1 read them: sandbox/lib/splaylab/lua51.lua); it compiles without running, so student
code never executes on the controller.

Results are remembered per process (the last CACHE_SIZE distinct sources, by digest): a class
resubmits the same code over and over, and each check is a luajit process. A check that could
not run (LuaCheckUnavailable) is never remembered.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

SYNTAX_CHECK = Path(__file__).resolve().parents[2] / "sandbox" / "syntax_check.lua"
_LINE_RE = re.compile(r"^(?P<chunk>[^:]*):(?P<line>\d+):\s*(?P<msg>.*)$", re.S)


@dataclass(frozen=True)
class LuaSyntaxError:
    line: int | None
    message: str  # "app.lua:3: '=' expected near 'x'"


class LuaCheckUnavailable(RuntimeError):
    """luajit missing or hung: the controller is broken, not the student's code."""


CACHE_SIZE = 512
_checked: OrderedDict[tuple[str, str, str], LuaSyntaxError | None] = OrderedDict()
_lock = threading.Lock()  # request threads share it


def lua_syntax_check(code: str, filename: str = "app.lua", *, luajit: str = "luajit",
                     timeout: float = 5.0) -> LuaSyntaxError | None:
    key = (hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest(), filename, luajit)
    with _lock:
        if key in _checked:
            _checked.move_to_end(key)
            return _checked[key]
    result = _check(code, filename, luajit=luajit, timeout=timeout)
    with _lock:
        _checked[key] = result
        if len(_checked) > CACHE_SIZE:
            _checked.popitem(last=False)
    return result


def _check(code: str, filename: str, *, luajit: str, timeout: float) -> LuaSyntaxError | None:
    try:
        proc = subprocess.run(
            [luajit, str(SYNTAX_CHECK), filename], input=code.encode("utf-8"), capture_output=True,
            timeout=timeout, check=False, env={"PATH": os.environ.get("PATH", os.defpath)},
        )
    except FileNotFoundError as exc:
        raise LuaCheckUnavailable(f"{luajit} not found on the controller") from exc
    except subprocess.TimeoutExpired as exc:
        raise LuaCheckUnavailable(f"syntax check took longer than {timeout:.0f} s") from exc
    if proc.returncode == 0:
        return None
    err = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 2:
        raise LuaCheckUnavailable(f"luajit exited with {proc.returncode}: {err}")
    match = _LINE_RE.match(err)
    line = int(match.group("line")) if match else None
    return LuaSyntaxError(line=line, message=err)
