"""`./splaylab up` and `./splaylab status`: the whole service on one machine.

up: PostgreSQL + Redis under var/ (unless DATABASE_URL / REDIS_URL are set) → migrate →
seed the demo course → web (uvicorn, SPLAYLAB_WEB_WORKERS processes on one port, each with a
database pool of SPLAYLAB_DB_POOL connections), Celery worker, simulation worker and beat, the
node relay (splayd.relay on web's port + 1000, issue 24), and two local splayd daemons,
each a child process logging to var/log/<part>.log with its pid in var/run/<part>.pid.
Ctrl-C (or SIGTERM) stops the children, then the servers it started. A second `up` reuses var/.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from . import services

DEMO_ACCOUNTS = (("student", "student-demo"), ("teacher", "teacher-demo"))


@dataclass
class StackConfig:
    root: Path
    var: Path
    host: str = "127.0.0.1"
    port: int = 8000
    daemons: int = 2
    daemon_max_instances: int = 100
    # The local daemons share this machine with the controller: their nodes run at this
    # niceness so pages, the API and PostgreSQL keep answering while students' code computes
    # (docs/decisions.md, "Web tier"). Daemons on other machines keep their own config's.
    daemon_nice: int = 10
    ports: services.ServicePorts = field(default_factory=services.ServicePorts)
    # TLS (docs/architecture.md, "Sessions"): web serves https/wss with this certificate and
    # key; the local daemons verify it against tls_ca (default: the certificate, self-signed).
    tls_cert: str = field(default_factory=lambda: os.environ.get("SPLAYLAB_TLS_CERT", ""))
    tls_key: str = field(default_factory=lambda: os.environ.get("SPLAYLAB_TLS_KEY", ""))
    tls_ca: str = field(default_factory=lambda: os.environ.get("SPLAYLAB_TLS_CA", ""))

    @property
    def url(self) -> str:
        return f"{'https' if self.tls_cert else 'http'}://{self.host}:{self.port}"

    @property
    def daemon_url(self) -> str:
        return f"{'wss' if self.tls_cert else 'ws'}://{self.host}:{self.port}/ws/daemon/"

    @property
    def relay_port(self) -> int:
        """The node relay's port (issue 24): SPLAYLAB_RELAY_PORT, else web's port + 1000."""
        return int(os.environ.get("SPLAYLAB_RELAY_PORT") or self.port + 1000)

    @property
    def python(self) -> str:
        return str(self.root / ".venv" / "bin" / "python")

    @property
    def backend(self) -> Path:
        return self.root / "backend"


def secret_key(var: Path) -> str:
    path = var / "secret_key"
    if not path.exists():
        var.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def service_env(cfg: StackConfig) -> dict[str, str]:
    """The environment every controller process gets (database, Redis, secret key)."""
    env = dict(os.environ)
    env.update(services.ensure_services(cfg.var, cfg.ports))
    env.setdefault("SPLAYLAB_SECRET_KEY", secret_key(cfg.var))
    env["PYTHONUNBUFFERED"] = "1"
    return env


def relay_env(cfg: StackConfig, env: dict[str, str]) -> None:
    """The URL daemons dial for the node relay, in place (SPLAYLAB_RELAY_URL: set it to an
    address volunteers reach when the stack listens on loopback only); web and the relay both
    derive its secret from SPLAYLAB_SECRET_KEY."""
    env.setdefault("SPLAYLAB_RELAY_URL", f"{'wss' if cfg.tls_cert else 'ws'}://{cfg.host}:{cfg.relay_port}/")


def manage(cfg: StackConfig, env: dict[str, str], *args: str, capture: bool = False) -> str:
    result = subprocess.run([cfg.python, "manage.py", *args], cwd=cfg.backend, env=env, check=True,
                            text=True, stdout=subprocess.PIPE if capture else None)
    return result.stdout.strip() if capture else ""


def prepare(cfg: StackConfig, env: dict[str, str]) -> list[Path]:
    """Migrate, seed the demo course, write the local daemons' configs and the CLI's defaults."""
    manage(cfg, env, "migrate", "--noinput", "-v", "0")
    manage(cfg, env, "seed_demo")
    configs = []
    for i in range(1, cfg.daemons + 1):
        conf = cfg.var / "daemons" / f"lab-{i}.toml"
        lo = 20000 + 1000 * i
        manage(cfg, env, "daemon_create", f"lab-{i}", "--max-instances", str(cfg.daemon_max_instances),
               "--nice", str(cfg.daemon_nice), "--ports", f"{lo}-{lo + 999}", "--controller", cfg.daemon_url,
               "--write-config", str(conf), *(["--ca-file", cfg.tls_ca or cfg.tls_cert] if cfg.tls_cert else []))
        configs.append(conf)
    token = manage(cfg, env, "user_token", DEMO_ACCOUNTS[0][0], capture=True).splitlines()[-1]
    cfg.var.mkdir(parents=True, exist_ok=True)
    (cfg.var / "cli.json").write_text(json.dumps({"server": cfg.url, "token": token}))
    return configs


def sim_workers() -> str:
    """Processes of the simulation worker: one per core unless SPLAYLAB_SIM_WORKERS says."""
    return os.environ.get("SPLAYLAB_SIM_WORKERS") or str(os.cpu_count() or 1)


def web_workers(env: Mapping[str, str]) -> int:
    """Web processes behind the one port (uvicorn --workers): SPLAYLAB_WEB_WORKERS, else two
    per core, at most 8. A request is mostly Python (Django, DRF, JSON) holding one core, and
    a process's threads share one GIL: processes are what use every core."""
    asked = env.get("SPLAYLAB_WEB_WORKERS")
    if asked:
        if not asked.isdigit() or int(asked) < 1:
            raise ValueError(f"SPLAYLAB_WEB_WORKERS: expected a number of processes >= 1, got {asked!r}")
        return int(asked)
    return min(8, 2 * (os.cpu_count() or 1))


def web_pool(env: Mapping[str, str]) -> str:
    """Database connections per web process (settings.SPLAYLAB_DB_POOL): SPLAYLAB_DB_POOL, else 8."""
    return env.get("SPLAYLAB_DB_POOL") or "8"


def part_env(name: str, env: dict[str, str]) -> dict[str, str]:
    """The environment of one part: the web processes get a database pool each (Celery's
    forked children must not share one, settings.SPLAYLAB_DB_POOL)."""
    if name == "web":
        return {**env, "SPLAYLAB_DB_POOL": web_pool(env)}
    if name in ("worker", "sim", "beat"):  # a persistent connection per process (settings)
        return {"SPLAYLAB_DB_CONN_MAX_AGE": "300", **env, "SPLAYLAB_DB_POOL": "0"}
    return {**env, "SPLAYLAB_DB_POOL": "0"}


def commands(cfg: StackConfig, daemon_configs: list[Path],
             env: Mapping[str, str] | None = None) -> dict[str, tuple[list[str], Path]]:
    """Each part's command line and directory; `env`: the environment the parts get (default
    ours), which may set SPLAYLAB_WEB_WORKERS."""
    venv_bin = cfg.root / ".venv" / "bin"
    parts = {
        # several processes on one port (uvicorn's supervisor shares the socket); every state
        # they share lives in PostgreSQL and Redis (channel layer, cache)
        "web": ([str(venv_bin / "uvicorn"), "splaylab.asgi:application", "--host", cfg.host,
                 "--port", str(cfg.port), "--no-access-log", "--workers", str(web_workers(os.environ if env is None else env)),
                 # a worker busy under load (a class, a 1,000-node deploy) is not a hung one
                 "--timeout-worker-healthcheck", "60",
                 # idle keep-alive connections live 30 s, not 5: a client reusing one just as the
                 # server closed it gets "disconnected without a response" (bench/class_load.py)
                 "--timeout-keep-alive", "30",
                 *(["--ssl-certfile", cfg.tls_cert, "--ssl-keyfile", cfg.tls_key] if cfg.tls_cert else [])],
                cfg.backend),
        "worker": ([str(venv_bin / "celery"), "-A", "splaylab", "worker", "--loglevel", "INFO",
                    "--concurrency", "4", "--hostname", f"worker@{cfg.port}"], cfg.backend),
        # simulated jobs and gradings (jobs.simulation, grading): their own queue, one per core
        # (a simulation is one single-threaded process); SPLAYLAB_SIM_WORKERS overrides
        "sim": ([str(venv_bin / "celery"), "-A", "splaylab", "worker", "--loglevel", "INFO", "-Q", "simulations",
                 "--concurrency", sim_workers(), "--hostname", f"sim@{cfg.port}"], cfg.backend),
        "beat": ([str(venv_bin / "celery"), "-A", "splaylab", "beat", "--loglevel", "INFO",
                  "--schedule", str(cfg.var / "celerybeat-schedule")], cfg.backend),
        # the node relay (issue 24): daemons that cannot reach each other carry their nodes'
        # TCP streams through it (daemon/splayd/relay.py)
        "relay": ([cfg.python, "-m", "splayd.relay", "--host", cfg.host, "--port", str(cfg.relay_port),
                   *(["--certfile", cfg.tls_cert, "--keyfile", cfg.tls_key] if cfg.tls_cert else [])],
                  cfg.root / "daemon"),
    }
    for conf in daemon_configs:
        parts[conf.stem] = ([cfg.python, "-m", "splayd", "--config", str(conf)], cfg.root / "daemon")
    return parts


def wait_http(url: str, timeout: float, cafile: str | None = None) -> None:
    context = ssl.create_default_context(cafile=cafile) if url.startswith("https:") else None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2, context=context)
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer (an error page too) means the server is up
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise RuntimeError(f"the web server did not answer at {url} within {timeout:.0f} s")


class Stack:
    """The running children; signal handlers only set `should_exit` (as uvicorn does)."""

    def __init__(self, cfg: StackConfig) -> None:
        self.cfg = cfg
        self.children: dict[str, subprocess.Popen] = {}
        self.should_exit = False

    def start(self, env: dict[str, str], daemon_configs: list[Path]) -> None:
        run_dir = self.cfg.var / "run"
        log_dir = self.cfg.var / "log"
        run_dir.mkdir(parents=True, exist_ok=True)
        log_dir.mkdir(parents=True, exist_ok=True)
        relay_env(self.cfg, env)
        for name, (argv, cwd) in commands(self.cfg, daemon_configs, env).items():
            if name.startswith("lab-"):
                wait_http(self.cfg.url + "/api/auth/me/", 60, self.cfg.tls_ca or self.cfg.tls_cert or None)  # daemons need the web server
            log = open(log_dir / f"{name}.log", "ab")
            self.children[name] = subprocess.Popen(argv, cwd=cwd, env=part_env(name, env), stdout=log,
                                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                                   start_new_session=True)
            (run_dir / f"{name}.pid").write_text(str(self.children[name].pid))

    def watch(self) -> int:
        """Wait for Ctrl-C; a child that dies on its own stops the stack with its log's tail."""
        while not self.should_exit:
            for name, proc in self.children.items():
                if proc.poll() is not None:
                    tail = (self.cfg.var / "log" / f"{name}.log").read_text(errors="replace")[-2000:]
                    print(f"\n{name} exited with code {proc.returncode}; last lines of "
                          f"var/log/{name}.log:\n{tail}", file=sys.stderr)
                    return 1
            time.sleep(0.3)
        return 0

    def stop(self) -> None:
        for proc in self.children.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for proc in self.children.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        for pid in (self.cfg.var / "run").glob("*.pid"):
            pid.unlink(missing_ok=True)


def up(cfg: StackConfig) -> int:
    lock = cfg.var / "run" / "up.pid"
    if lock.exists() and _alive(int(lock.read_text() or 0)):
        print(f"SplayLab is already running here (pid {lock.read_text()}); see ./splaylab status",
              file=sys.stderr)
        return 1
    print("starting PostgreSQL and Redis under var/ (unless DATABASE_URL / REDIS_URL are set)…")
    env = service_env(cfg)
    print("migrating and seeding the demo course…")
    daemon_configs = prepare(cfg, env)
    stack = Stack(cfg)

    def on_signal(signum: int, frame: object) -> None:
        stack.should_exit = True

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    code = 1
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        lock.write_text(str(os.getpid()))
        stack.start(env, daemon_configs)
        wait_http(cfg.url + "/api/auth/me/", 60, cfg.tls_ca or cfg.tls_cert or None)
        print(f"\nSplayLab is up at {cfg.url}/")
        for user, password in DEMO_ACCOUNTS:
            print(f"  login: {user} / {password}")
        print(f"  parts: web, worker, sim, beat, relay, {', '.join(c.stem for c in daemon_configs)} "
              "(logs in var/log/, ./splaylab status)")
        print("  try:   ./splaylab submit assignments/hello/app.lua --nodes 10 --time 20 --follow")
        print("Press Ctrl-C to stop.")
        code = stack.watch()
    finally:
        print("\nstopping…", file=sys.stderr)
        stack.stop()
        services.stop_services(cfg.var)
        lock.unlink(missing_ok=True)
        for s, handler in previous.items():
            signal.signal(s, handler)
    return code


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return pid > 0
    except (ProcessLookupError, PermissionError):
        return False


def _running_url(cfg: StackConfig) -> str:
    """The address the running stack serves: `up` writes it to var/cli.json (it may have been
    started with another SPLAYLAB_PORT than this shell's), else this configuration's."""
    try:
        return str(json.loads((cfg.var / "cli.json").read_text())["server"]).rstrip("/")
    except (OSError, ValueError, KeyError, TypeError):
        return cfg.url


def status(cfg: StackConfig) -> int:
    """Print which parts are up; exit 0 only if all are."""
    rows: list[tuple[str, bool, str]] = []
    for name, port in (("postgres", cfg.ports.postgres), ("redis", cfg.ports.redis)):
        external = os.environ.get("DATABASE_URL" if name == "postgres" else "REDIS_URL")
        if external:
            rows.append((name, True, f"external ({external.split('@')[-1]})"))
        else:
            rows.append((name, services._port_open(port), f"127.0.0.1:{port}"))
    url = _running_url(cfg)
    pids = sorted((cfg.var / "run").glob("*.pid")) if (cfg.var / "run").exists() else []
    parts = {p.stem: int(p.read_text() or 0) for p in pids if p.stem != "up"}
    for name in ["web", "worker", "sim", "beat", "relay"] + sorted(n for n in parts if n.startswith("lab-")):
        pid = parts.get(name)
        up_ = pid is not None and _alive(pid)
        detail = f"pid {pid}" if up_ else "not running"
        if name == "web" and up_:
            try:
                wait_http(url + "/api/auth/me/", 2, cfg.tls_ca or cfg.tls_cert or None)
                detail += f", answering at {url}/"
            except RuntimeError:
                up_, detail = False, f"pid {pid}, not answering at {url}/"
        rows.append((name, up_, detail))
    for name, ok, detail in rows:
        print(f"{'up  ' if ok else 'DOWN'}  {name:<9} {detail}")
    return 0 if all(ok for _, ok, _ in rows) else 1
