"""SplayLab controller settings; every deploy-time knob comes from the environment
(see docs/architecture.md, "Settings")."""
import hashlib
import hmac
import os
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent  # backend/
REPO_DIR = BASE_DIR.parent
FRONTEND_DIST = Path(os.environ.get("SPLAYLAB_FRONTEND_DIST", REPO_DIR / "frontend" / "dist"))


def _env_bool(name: str, default: str = "0") -> bool:
    return os.environ.get(name, default).strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str, default: str) -> list[str]:
    return [x.strip() for x in os.environ.get(name, default).split(",") if x.strip()]


SECRET_KEY = os.environ.get("SPLAYLAB_SECRET_KEY", "splaylab-dev-insecure-key-change-me-in-production")
DEBUG = _env_bool("SPLAYLAB_DEBUG")
ALLOWED_HOSTS = _env_list("SPLAYLAB_ALLOWED_HOSTS", "*")
CSRF_TRUSTED_ORIGINS = _env_list("SPLAYLAB_CSRF_TRUSTED_ORIGINS", "")
# Pages allowed to open the job websocket besides the same origin (splaylab/websocket_origin.py):
# "https://lab.example.org" or "https://*.example.org"; CSRF_TRUSTED_ORIGINS count too.
SPLAYLAB_ALLOWED_ORIGINS = _env_list("SPLAYLAB_ALLOWED_ORIGINS", "")

DATABASE_URL = os.environ.get("DATABASE_URL", "postgres://splaylab@127.0.0.1:54329/splaylab")
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:63790/0")


def _redis_db(url: str) -> str:
    """The database number of a redis:// URL (/N or ?db=N; 0 when it names none)."""
    parsed = urlsplit(url)
    return parse_qs(parsed.query).get("db", [parsed.path.lstrip("/") or "0"])[0]


def _live_layer_prefix(prefix: str, redis_url: str) -> str:
    """The "live" channel layer's prefix (CHANNEL_LAYERS below): pub/sub channels are
    server-wide, not per Redis database, so it names the database."""
    return f"{prefix}-live-db{_redis_db(redis_url)}."


# SplayLab knobs
# Daemon sessions (docs/architecture.md, "Sessions"): a heartbeat every SPLAYLAB_HEARTBEAT s; a
# daemon silent for SPLAYLAB_DAEMON_DEAD_AFTER s is unreachable (its keep-population nodes are
# replaced elsewhere); silent for SPLAYLAB_DAEMON_UNSEEN_AFTER s its session ends (every instance
# LOST, its jobs reset on both sides). A cut link shorter than that loses nothing.
SPLAYLAB_HEARTBEAT = float(os.environ.get("SPLAYLAB_HEARTBEAT", "2"))
SPLAYLAB_DAEMON_DEAD_AFTER = float(os.environ.get("SPLAYLAB_DAEMON_DEAD_AFTER", "6"))
SPLAYLAB_DAEMON_UNSEEN_AFTER = float(os.environ.get("SPLAYLAB_DAEMON_UNSEEN_AFTER", "120"))
# A daemon websocket that has not said hello within this many seconds is closed.
SPLAYLAB_DAEMON_HELLO_TIMEOUT = float(os.environ.get("SPLAYLAB_DAEMON_HELLO_TIMEOUT", "10"))
# Peers (addresses or CIDRs, comma-separated) whose daemons may advertise another `ip` than the
# one they connect from (a NAT gateway in front of a lab); loopback always may. Elsewhere the
# connection's address wins (daemons.addresses, docs/decisions.md "A daemon's address").
SPLAYLAB_DAEMON_TRUSTED_PEERS = _env_list("SPLAYLAB_DAEMON_TRUSTED_PEERS", "")
# The node relay (issue 24, daemon/splayd/relay.py, started by the stack as its part "relay"):
# the URL daemons dial ("" = no relay: pairs of daemons that cannot reach each other are never
# placed together) and the secret the controller signs link tokens and job tickets with, which
# the relay process is given too. A link token is good for SPLAYLAB_RELAY_TOKEN_TTL s (each
# welcome hands a fresh one; the link uses the newest when it redials).
SPLAYLAB_RELAY_URL = os.environ.get("SPLAYLAB_RELAY_URL", "")
# default: derived from the secret key, as the relay process derives it (splayd.relay.secret_from_env)
SPLAYLAB_RELAY_SECRET = os.environ.get("SPLAYLAB_RELAY_SECRET") or hmac.new(
    SECRET_KEY.encode(), b"splaylab node relay", hashlib.sha256).hexdigest()
SPLAYLAB_RELAY_TOKEN_TTL = int(os.environ.get("SPLAYLAB_RELAY_TOKEN_TTL", "86400"))
# SPLAY section 5.6: REGISTER this many times the nodes a job needs, keep the first to answer.
SPLAYLAB_SUPERSET = float(os.environ.get("SPLAYLAB_SUPERSET", "1.25"))
# Addresses no node may reach, besides the controller's own (comma-separated IPs or CIDRs);
# instructors add more from the daemons dashboard.
SPLAYLAB_BLACKLIST = _env_list("SPLAYLAB_BLACKLIST", "")
SPLAYLAB_REGISTER_TIMEOUT = float(os.environ.get("SPLAYLAB_REGISTER_TIMEOUT", "10"))
SPLAYLAB_JOB_GRACE = float(os.environ.get("SPLAYLAB_JOB_GRACE", "15"))
# How long a live viewer's permission check holds before the next message re-checks it.
SPLAYLAB_VIEW_RECHECK_SECONDS = float(os.environ.get("SPLAYLAB_VIEW_RECHECK_SECONDS", "5"))
# A live viewer's socket gets at most one log frame per this many seconds: batches arriving
# meanwhile are merged into the next frame (logs/outbox.py). Its backlog beyond
# SPLAYLAB_VIEW_BACKLOG_BYTES of log lines is skipped: the page is told which, and fetches them.
SPLAYLAB_VIEW_FRAME_SECONDS = float(os.environ.get("SPLAYLAB_VIEW_FRAME_SECONDS", "0.1"))
SPLAYLAB_VIEW_BACKLOG_BYTES = int(os.environ.get("SPLAYLAB_VIEW_BACKLOG_BYTES", str(8 * 2**20)))
SPLAYLAB_MAX_MEM_MB = int(os.environ.get("SPLAYLAB_MAX_MEM_MB", "256"))
SPLAYLAB_MAX_CPU_SECONDS = int(os.environ.get("SPLAYLAB_MAX_CPU_SECONDS", "60"))
SPLAYLAB_LUAJIT = os.environ.get("SPLAYLAB_LUAJIT", "luajit")
# Grading (docs/decisions.md, "Grading"): per student and assignment, at most one submission
# per SPLAYLAB_SUBMISSION_INTERVAL seconds and SPLAYLAB_SUBMISSIONS_PER_DAY in any 24 hours.
SPLAYLAB_SUBMISSION_INTERVAL = float(os.environ.get("SPLAYLAB_SUBMISSION_INTERVAL", "60"))
SPLAYLAB_SUBMISSIONS_PER_DAY = int(os.environ.get("SPLAYLAB_SUBMISSIONS_PER_DAY", "30"))
SPLAYLAB_GRADING_TIME_LIMIT = int(os.environ.get("SPLAYLAB_GRADING_TIME_LIMIT", "3600"))
# A grading is simulations: by default on the simulation worker (one process per core).
SPLAYLAB_GRADING_QUEUE = os.environ.get("SPLAYLAB_GRADING_QUEUE", "simulations")
# Bad input (docs/decisions.md, "Bad input"): request bodies are capped for every parser (413),
# larger where code and network files are uploaded (a job: 256 KB code + 1 MB churn + a 4 MB
# matrix, JSON-escaped); JSON deeper than 64 levels is a 400 (lib.parsers).
SPLAYLAB_MAX_BODY_BYTES = int(os.environ.get("SPLAYLAB_MAX_BODY_BYTES", str(2 * 1024 * 1024)))
SPLAYLAB_MAX_UPLOAD_BYTES = int(os.environ.get("SPLAYLAB_MAX_UPLOAD_BYTES", str(12 * 1024 * 1024)))
DATA_UPLOAD_MAX_MEMORY_SIZE = SPLAYLAB_MAX_BODY_BYTES
# Failed guesses (lib.attempts), counted per window of SPLAYLAB_ATTEMPT_WINDOW seconds: sign-ins
# (login and token) per username and address, and per address whatever the username (password
# spraying; high enough for a class behind one NAT); join codes per user and per address.
SPLAYLAB_ATTEMPT_WINDOW = float(os.environ.get("SPLAYLAB_ATTEMPT_WINDOW", "300"))
SPLAYLAB_LOGIN_FAILURES_PER_USER = int(os.environ.get("SPLAYLAB_LOGIN_FAILURES_PER_USER", "10"))
SPLAYLAB_LOGIN_FAILURES_PER_IP = int(os.environ.get("SPLAYLAB_LOGIN_FAILURES_PER_IP", "200"))
SPLAYLAB_JOIN_FAILURES_PER_USER = int(os.environ.get("SPLAYLAB_JOIN_FAILURES_PER_USER", "10"))
SPLAYLAB_JOIN_FAILURES_PER_IP = int(os.environ.get("SPLAYLAB_JOIN_FAILURES_PER_IP", "200"))
# Retention (backend/retention/, docs/decisions.md "Retention"): the policy of jobs whose owner
# is a student of no course (a course's own is on the course; beat's period,
# SPLAYLAB_RETENTION_SWEEP, is read in splaylab/celery.py), how long
# after a job ends its byte counts are final, and the bounded work of one sweep.
SPLAYLAB_RETENTION_DAYS = int(os.environ.get("SPLAYLAB_RETENTION_DAYS", "30"))
SPLAYLAB_RETENTION_MAX_MB = int(os.environ.get("SPLAYLAB_RETENTION_MAX_MB", "100"))
SPLAYLAB_RETENTION_SETTLE = float(os.environ.get("SPLAYLAB_RETENTION_SETTLE", "3600"))
SPLAYLAB_RETENTION_BATCH = int(os.environ.get("SPLAYLAB_RETENTION_BATCH", "5000"))
SPLAYLAB_RETENTION_SWEEP_ROWS = int(os.environ.get("SPLAYLAB_RETENTION_SWEEP_ROWS", "500000"))
SPLAYLAB_RETENTION_MEASURE_JOBS = int(os.environ.get("SPLAYLAB_RETENTION_MEASURE_JOBS", "200"))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from here, never a CDN
    "channels",
    "accounts",
    "courses",
    "workspaces",
    "daemons",
    "jobs",
    "logs",
    "metrics",
    "traces",
    "scenarios",
    "grading",
    "retention",
    "lti",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "splaylab.staticfiles.StaticFilesMiddleware",  # WhiteNoise, and files added to dist since startup
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "splaylab.urls"
ASGI_APPLICATION = "splaylab.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# Database connections (docs/decisions.md, "Web tier"): SPLAYLAB_DB_POOL > 0 gives each process a
# psycopg pool of at most that many connections, reused across requests (a new PostgreSQL
# connection per request costs several ms and a backend process). The web processes of the
# stack get one (cli/stack.py); forked Celery children must not share a parent's pool, so they
# keep one persistent connection each instead: SPLAYLAB_DB_CONN_MAX_AGE seconds (the stack
# gives them 300; a connection per task forked a PostgreSQL backend for every job scheduled).
# manage.py and tests keep a connection per use (0).
SPLAYLAB_DB_POOL = int(os.environ.get("SPLAYLAB_DB_POOL", "0"))
SPLAYLAB_DB_CONN_MAX_AGE = int(os.environ.get("SPLAYLAB_DB_CONN_MAX_AGE", "0"))
# Health checks: a pooled or persistent connection is checked (an empty query) before it is
# reused, so a restarted PostgreSQL costs no request a 500 (issue 20: PostgreSQL restarted mid-job).
DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=0 if SPLAYLAB_DB_POOL > 0 else SPLAYLAB_DB_CONN_MAX_AGE,
                                              conn_health_checks=True)}
if SPLAYLAB_DB_POOL > 0:
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, SPLAYLAB_DB_POOL), "max_size": SPLAYLAB_DB_POOL, "timeout": 30}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
AUTH_USER_MODEL = "accounts.User"

# accounts/hashers.py: Argon2id at 19 MiB (~18 ms of CPU a login, PBKDF2's default ~205 ms);
# older hashes verify with the others and are upgraded at the next login.
PASSWORD_HASHERS = [
    "accounts.hashers.ClassroomArgon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# The built SPA (Vite, base "/static/") is served by WhiteNoise straight from frontend/dist
# (splaylab.staticfiles: a frontend rebuilt while the server runs is served without a restart).
STATIC_URL = "/static/"
STATICFILES_DIRS = [FRONTEND_DIST] if FRONTEND_DIST.is_dir() else []
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

REST_FRAMEWORK = {
    # Token first so unauthenticated requests get 401 (with WWW-Authenticate), not 403.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.PlainTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "lib.schema.AutoSchema",  # documents the error answers too
    # Body cap and JSON depth bound (lib.parsers) on every endpoint.
    "DEFAULT_PARSER_CLASSES": ["lib.parsers.JSONParser", "lib.parsers.FormParser", "lib.parsers.MultiPartParser"],
    "EXCEPTION_HANDLER": "lib.errors.exception_handler",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "SplayLab API",
    "DESCRIPTION": "Submit distributed Lua jobs to splayd daemons and follow their logs.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "JobStateEnum": "jobs.models.Job.State",
        "InstanceStateEnum": "jobs.models.JobInstance.State",
        "DaemonStateEnum": "daemons.models.Daemon.State",
        "RoleEnum": "accounts.models.User.Role",
    },
}

# Shared by every web process: the failed-attempt counters (lib.attempts) live here.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": os.environ.get("SPLAYLAB_CHANNEL_PREFIX", "splaylab") + "-cache",
    }
}

CHANNEL_LAYERS = {
    "default": {
        "BACKEND": "channels_redis.core.RedisChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "prefix": os.environ.get("SPLAYLAB_CHANNEL_PREFIX", "splaylab"),
            # Daemon commands and replies (daemons.commands, daemons.consumers): reliable, one
            # list per channel. The live views' flood left this layer for "live" below; the
            # capacity and expiry it needed (3000 messages, 60 s) stay as a bound.
            "capacity": 3000,
            "expiry": 60,
        },
    },
    # Live views (logs.publisher, logs.consumers.JobConsumer): one Redis PUBLISH per message,
    # each web process handing it to its own viewers of the job. The default layer pushes one
    # copy per viewer through Redis (100 viewers: 100 copies of every batch). Fire and forget:
    # what a viewer misses (Redis away, its backlog skipped) the page fetches from the REST log.
    # Its prefix names the Redis database: stacks sharing a Redis on different databases (the
    # tests' stacks, two installs) never hand each other's job-<id> messages to their viewers.
    "live": {
        "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
        "CONFIG": {
            "hosts": [REDIS_URL],
            "prefix": _live_layer_prefix(os.environ.get("SPLAYLAB_CHANNEL_PREFIX", "splaylab"), REDIS_URL),
        },
    },
}

CELERY_BROKER_URL = REDIS_URL
CELERY_RESULT_BACKEND = None
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = False
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TIMEZONE = TIME_ZONE
# Simulations run for minutes on one core: their own queue and worker (`sim` part of the
# stack), so that they never hold up scheduling.
CELERY_TASK_ROUTES = {"jobs.tasks.simulation_run": {"queue": "simulations"},
                      "grading.tasks.submission_grade": {"queue": SPLAYLAB_GRADING_QUEUE}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": os.environ.get("SPLAYLAB_LOG_LEVEL", "INFO")},
}
