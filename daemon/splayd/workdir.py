"""A node's working directory, `work_dir/job-<id>/node-<k>/`: app.lua and job.json (the
contract in docs/architecture.md, "Node runtime"), and the command and environment the node
runtime is started with."""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from .config import Config
from .docker_backend import NODE_ARGV
from .instances import GATE_FILE
from .job import Job
from .jobspec import bootstrap_nodes


def job_dir(cfg: Config, job_id: int) -> Path:
    return cfg.work_dir / f"job-{int(job_id)}"


def node_files_write(cfg: Config, job: Job, node: int, port: int, held: bool = False) -> Path:
    """A fresh working directory for `node` with its app.lua and job.json; `held`: the runtime
    waits at its gate (a FIFO) before it loads the app (Instance.release())."""
    workdir = job_dir(cfg, job.id) / f"node-{int(node)}"
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    (workdir / "app.lua").write_text(job.code or "", encoding="utf-8")
    spec = {
        "me": _me(cfg, job, node, port),
        "list_type": job.list_type,
        "list_size": job.list_size,
        "position": node,
        "job_id": job.id,
        "duration": job.limits.duration,
        "limits": {**job.limits.runtime, "connect_deny": job.blacklist},
    }
    if node in job.net_blocks:
        spec["net"], spec["net_epoch"] = job.net_blocks[node], job.net_epoch
    if job.trace is not None:
        spec["trace"] = dict(job.trace)
    if held:
        spec["gate"] = GATE_FILE
    if job.relay is not None:  # peers reached through the node relay (relay_link.py, the door)
        spec["relay"] = job.relay
    text = (json.dumps(spec)[:-1] + f', "nodes": {_nodes_json(job)}, "all_nodes": {_all_nodes_json(job)}'
            f', "local_nodes": {_local_nodes_json(job)}}}')
    (workdir / "job.json").write_text(text, encoding="utf-8")
    return workdir


def _me(cfg: Config, job: Job, node: int, port: int) -> dict[str, Any]:
    """The node's own entry of the controller's node list (node k = nodes[k-1]): its address
    there is its own, a loopback address per node on the controller's host (docs/decisions.md,
    "One address per node"); this daemon's ip when the list does not name the node's port."""
    listed = job.nodes[node - 1] if 0 < node <= len(job.nodes) else None
    if isinstance(listed, dict) and listed.get("port") == port and isinstance(listed.get("ip"), str):
        return {"ip": listed["ip"], "port": port}
    return {"ip": cfg.ip, "port": port}


def _parts(job: Job) -> dict[Any, Any]:
    """job.json's parts shared by every node, encoded once per `list` (1,000 nodes: ~30 KB per
    list per node): dropped when `list` replaced the node list they were made of."""
    if job.json_parts.get("for") is not job.nodes:
        job.json_parts.clear()
        job.json_parts["for"] = job.nodes
    return job.json_parts


def _all_nodes_json(job: Job) -> str:
    parts = _parts(job)
    if "all" not in parts:
        parts["all"] = json.dumps(job.nodes)
    return parts["all"]


def _local_nodes_json(job: Job) -> str:
    """The job's nodes this daemon hosts (job.json "local_nodes"): the runtime sends their
    traffic over 127.0.0.1 (sandbox/lib/splaylab/socket_policy_core.lua, "Same-machine shortcut"),
    so they reach each other even where this daemon is listed at a router's address that
    forwards nothing (issue 24). `listed` changes only with `nodes`, so it is cached beside it."""
    parts = _parts(job)
    if "local" not in parts:
        parts["local"] = json.dumps([job.nodes[k - 1] for k in sorted(job.listed) if 0 < k <= len(job.nodes)])
    return parts["local"]


def _nodes_json(job: Job) -> str:
    """The node's bootstrap list: the same for every node unless picked at random."""
    if job.list_type == "random" and 0 < job.list_size < len(job.nodes):
        return json.dumps(bootstrap_nodes(job.nodes, job.list_type, job.list_size))
    parts = _parts(job)
    key = ("head", job.list_size)
    if key not in parts:
        parts[key] = json.dumps(bootstrap_nodes(job.nodes, job.list_type, job.list_size))
    return parts[key]


def node_argv(cfg: Config, luajit: str, docker: bool) -> list[str]:
    if docker:  # paths inside the container
        return list(NODE_ARGV)
    return [luajit, str(cfg.node_lua), "job.json", "app.lua"]


def node_env(workdir: Path) -> dict[str, str]:
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(workdir)}
