"""gunicorn settings, read from the environment (used by scripts/demo and deploy/README.md).

    gunicorn --config deploy/gunicorn.conf.py config.wsgi:application

GUNICORN_BIND (or HOST and PORT)   where to listen; default 127.0.0.1:8000
WEB_CONCURRENCY                    worker processes; default: one per core, at least 2
GUNICORN_THREADS                   threads per worker, for gunicorn's gthread worker; default 1
GUNICORN_TIMEOUT                   seconds before a silent worker is restarted; default 60
GUNICORN_MAX_REQUESTS              recycle a worker after this many requests; default 20000 (0: never)
GUNICORN_WORKER_CLASS              default sync (gunicorn's stock sync worker, behind nginx); gthread
                                   with GUNICORN_THREADS where no buffering proxy faces slow clients
GUNICORN_LIMIT_REQUEST_LINE        longest request line in bytes; default 4094 (gunicorn's)
GUNICORN_LIMIT_REQUEST_FIELD_SIZE  longest header field in bytes; default 8190 (gunicorn's)
GUNICORN_LIMIT_REQUEST_FIELDS      most header fields; default 100 (gunicorn's)
GUNICORN_WORKER_MAX_MEMORY_MB      a worker's address space limit (RLIMIT_AS), in MB; default 0 (none)
GUNICORN_LOG_LEVEL                 default info
GUNICORN_CONTROL_SOCKET            path of gunicorn's control socket (gunicornc); default: none
GUNICORN_PRELOAD                   load the app in the master before forking (shared memory); default true
"""

import gc
import multiprocessing
import os
import resource


def _int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    return int(value) if value else default


_host = os.environ.get("HOST", "127.0.0.1")
_port = os.environ.get("PORT", "8000")
bind = [os.environ.get("GUNICORN_BIND") or f"{_host}:{_port}"]

# The app is CPU-bound: one request at a time per process and one process per core (gunicorn's
# documented sync worker). It needs a buffering proxy in front of slow clients (deploy/nginx.conf).
# Large exports run as background jobs, so no request streams for long.
workers = _int("WEB_CONCURRENCY", max(2, multiprocessing.cpu_count()))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "sync")
threads = _int("GUNICORN_THREADS", 1)

timeout = _int("GUNICORN_TIMEOUT", 60)
graceful_timeout = _int("GUNICORN_GRACEFUL_TIMEOUT", 30)
keepalive = _int("GUNICORN_KEEPALIVE", 5)
# a restart costs about 1.3 s of CPU (loading Django and the app, measured on 2 cores): at hundreds of
# requests a second, 2000 meant one every few seconds, a sixth of a core; 20000 keeps leak protection
max_requests = _int("GUNICORN_MAX_REQUESTS", 20000)
max_requests_jitter = max_requests // 10 if max_requests else 0
# What one request may send before Django sees it (gunicorn's documented limits, stated); the body's
# size is Django's DATA_UPLOAD_MAX_MEMORY_SIZE and nginx's client_max_body_size (deploy/README.md)
limit_request_line = _int("GUNICORN_LIMIT_REQUEST_LINE", 4094)
limit_request_field_size = _int("GUNICORN_LIMIT_REQUEST_FIELD_SIZE", 8190)
limit_request_fields = _int("GUNICORN_LIMIT_REQUEST_FIELDS", 100)
#: a worker's address space in bytes (0: unlimited); set in post_fork, in the worker alone
worker_max_memory = _int("GUNICORN_WORKER_MAX_MEMORY_MB", 0) * 1024 * 1024

accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("GUNICORN_LOG_LEVEL", "info")
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms "%(a)s"'

# Behind nginx (deploy/nginx.conf): trust X-Forwarded-* only from these addresses.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# gunicorn's control socket has one default path per user, so two servers on one host would
# fight over it: it is off unless a path is given.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket

# Workers load the app after forking, so each opens its own database connections.
#: load the app once in the master and fork the workers from it: the modules (Django, the kinds,
#: the quality stack with pandas, scipy and matplotlib) are in memory once, shared by every worker,
#: and a worker (re)starts at once. A code change then needs a restart, not a HUP.
preload_app = os.environ.get("GUNICORN_PRELOAD", "true").strip().lower() not in ("0", "false", "no")

# Python's documented recipe for a server that forks without exec (gc.freeze): no collection in
# the master while it loads the app (no freed holes in pages the workers share), everything it
# holds frozen before each fork (a worker's collections never write to those objects' pages), and
# collections on again in the worker.
if preload_app:
    gc.disable()


def pre_fork(server, worker) -> None:
    gc.freeze()


def post_fork(server, worker) -> None:
    gc.enable()
    if worker_max_memory:  # Python's resource module, documented: the soft and hard limit of this process
        resource.setrlimit(resource.RLIMIT_AS, (worker_max_memory, worker_max_memory))


def post_worker_init(worker) -> None:
    """The app is loaded (modules, URL patterns, settings): objects that live as long as the
    worker. gc.freeze() puts them out of the cyclic collector's reach, so its full collections
    scan only what requests made since (without preload_app, this is where the app was loaded)."""
    gc.freeze()
