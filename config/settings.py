"""Settings for every environment; the environment variables decide (see deploy/env.example)."""

from datetime import timedelta

from csp.constants import NONE, SELF

from .env import BASE_DIR, env

SECRET_KEY = env.str("SECRET_KEY", default="dev-only-insecure-key-change-me")
DEBUG = env.bool("DEBUG", default=False)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# The site's own address (invite links printed by commands); https:// here means "served over HTTPS".
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000")

# --- HTTPS ----------------------------------------------------------------------------
# Served over HTTPS (DEBUG off and PUBLIC_BASE_URL https://...): every setting below defaults to
# its secure value; each can still be set from the environment. Plain-HTTP and DEBUG sites get
# Django's defaults, so the demo on http://127.0.0.1:8000 keeps working.
SERVED_OVER_HTTPS = not DEBUG and PUBLIC_BASE_URL.lower().startswith("https://")
# Behind nginx (deploy/nginx.conf), which terminates TLS and sets X-Forwarded-Proto itself. Only
# when the proxy overwrites that header: otherwise a client could claim HTTPS.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_HTTPS_PROXY", default=False) else None
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=SERVED_OVER_HTTPS)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31536000 if SERVED_OVER_HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=SERVED_OVER_HTTPS)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=SERVED_OVER_HTTPS)
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=SERVED_OVER_HTTPS)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=SERVED_OVER_HTTPS)

# --- Content-Security-Policy (django-csp 4) -------------------------------------------
# Only the platform's own scripts, styles, images and fonts (no inline script or style; the
# API docs use drf-spectacular's split view, whose script is a file). No page may be framed,
# except the MTurk pages, which name MTurk's worker hosts themselves (surveys/mturk.py).
# data: images: Django's admin and Swagger UI draw icons from data: URLs in their stylesheets.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
    },
}
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "csp",
    "axes",
    "annotation",
    "surveys",
    "quality",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    # last, as django-axes documents: it turns a locked-out login into its 429 answer
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
    # The annotator pages (templates/jinja2/surveys/**) only: the surveys views render them with
    # using="jinja2" (config/jinja2.py). Second, so every other lookup stays DTL.
    {
        "NAME": "jinja2",
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "config.jinja2.environment",
            "autoescape": True,
            # request and csrf_input come with the backend
            "context_processors": ["django.contrib.messages.context_processors.messages"],
        },
    },
]

# --- Database -------------------------------------------------------------------------
# Embedded default: one SQLite file. DATABASE_URL=postgres://... switches to PostgreSQL.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent annotators on SQLite: WAL lets readers run beside the writer, the busy
    # timeout waits for the lock instead of failing, and IMMEDIATE transactions take the
    # write lock up front so two writers never deadlock upgrading a read lock.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": env.int("SQLITE_BUSY_TIMEOUT", default=30),
            "transaction_mode": "IMMEDIATE",
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA busy_timeout=30000;"
            ),
        }
    )
    # A file (not :memory:) so a real Celery worker process can share the test database.
    DATABASES["default"]["TEST"] = {"NAME": env.str("TEST_SQLITE_NAME", default=str(BASE_DIR / ".test-db.sqlite3"))}
# Persistent connections on both engines (Django's documented CONN_MAX_AGE).
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=60))
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# django-axes first: it refuses a locked-out login before any password is checked.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# --- i18n -----------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("hr", "Hrvatski"), ("sl", "Slovenščina"), ("fi", "Suomi"), ("zh-hans", "中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = "UTC"
USE_TZ = True

# --- Static files (served by WhiteNoise; no CDN, no build step) ------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env.path("STATIC_ROOT", default=BASE_DIR / "staticfiles")
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=True)

LOGIN_URL = "admin:login"

# --- Login throttling (django-axes) ---------------------------------------------------
# After AXES_FAILURE_LIMIT failed logins of one user name from one address, that pair is locked
# out for AXES_COOLOFF_MINUTES (a success before then resets the count).
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True

# --- REST API -------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "annotation.api.auth.BasicAuthentication",
        "annotation.api.auth.AnnotatorKeyAuthentication",
    ],
    # Staff and the admin's model permissions (view/add/change/delete), as in the admin.
    "DEFAULT_PERMISSION_CLASSES": [
        "rest_framework.permissions.IsAdminUser",
        "annotation.api.permissions.ModelPermissions",
    ],
    # drf-spectacular's AutoSchema plus the error answers every operation can give (401, 403, 404...)
    "DEFAULT_SCHEMA_CLASS": "annotation.api.schema.ApiAutoSchema",
    # JSON request bodies only (the two uploads name their own multipart parser): a JSON body keeps
    # its types, so a number where the schema says text is refused, not read as text; read by the
    # one loader of structured input (depth, numbers, text checked; issue 37)
    "DEFAULT_PARSER_CLASSES": ["annotation.api.parsers.StructuredJSONParser"],
    # JSON answers only, as the schema documents (no browsable HTML pages: /api/docs/ is the
    # interactive page); an Accept header asking for anything else is a 406
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    # limit/offset bounded and validated: a bad value is a 400, as the schema says
    "DEFAULT_PAGINATION_CLASS": "annotation.api.pagination.StrictLimitOffsetPagination",
    # DRF's handler, plus a 413 in JSON for a body over DATA_UPLOAD_MAX_MEMORY_SIZE
    "EXCEPTION_HANDLER": "annotation.api.errors.api_exception_handler",
    "PAGE_SIZE": 100,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Annotation platform API",
    "DESCRIPTION": "Projects, items, batches, invite links, quality runs and exports.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Several models have a `status` field; name their enums so the schema stays stable.
    "ENUM_NAME_OVERRIDES": {
        "BatchStatusEnum": "annotation.models.Batch.Status",
        "SuggestionsEnum": "annotation.models.work.SUGGESTION_CHOICES",
    },
    # Request bodies get their own components (ProjectRequest...), so they can say what a request
    # must hold (required text is not blank, uploads are binary) apart from what a response holds.
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "annotation.api.schema.strings_without_nul",
    ],
}

# --- Celery: no broker configured means tasks run inline (eager) ----------------------
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="")
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="") or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A publish job (any recruiting site) with no progress this long is stuck (its worker died, its
# message was lost): the watchdog sends it to the workers again, at most PUBLISH_MAX_DISPATCHES
# times in all, then marks it failed. Longer than the task's own retry back-off (at most 5 minutes
# a wait). The older MTURK_PUBLISH_* names are still read.
PUBLISH_STALE_MINUTES = env.int("PUBLISH_STALE_MINUTES", default=env.int("MTURK_PUBLISH_STALE_MINUTES", default=15))
PUBLISH_MAX_DISPATCHES = env.int("PUBLISH_MAX_DISPATCHES", default=env.int("MTURK_PUBLISH_MAX_DISPATCHES", default=3))
# Work entered under a recruiting site's ids that the site could not confirm at entry (it did
# not answer) holds its place this long at most: the release sweep (beat, and every entry) then
# frees it, so made-up ids cannot fill a study. A later entry or a sync that confirms it keeps it.
UNCONFIRMED_RELEASE_MINUTES = env.int("UNCONFIRMED_RELEASE_MINUTES", default=5)
CELERY_BEAT_SCHEDULE = {
    "release-abandoned-assignments": {
        "task": "annotation.tasks.release_abandoned_assignments",
        "schedule": env.int("RELEASE_SWEEP_SECONDS", default=300),
    },
    "sync-channels": {
        "task": "annotation.tasks.sync_open_batches",
        "schedule": env.int("CHANNEL_SYNC_SECONDS", default=env.int("MTURK_SYNC_SECONDS", default=300)),
    },
    "publish-watchdog": {
        "task": "annotation.tasks.publish_watchdog",
        "schedule": env.int("PUBLISH_WATCHDOG_SECONDS", default=env.int("MTURK_WATCHDOG_SECONDS", default=300)),
    },
    "purge-exports": {
        "task": "quality.tasks.purge_exports",
        "schedule": env.int("EXPORT_PURGE_SECONDS", default=3600),
    },
}

# --- Platform settings ----------------------------------------------------------------
IMPORT_MAX_BYTES = env.int("IMPORT_MAX_BYTES", default=200 * 1024 * 1024)
# Largest single record (item) of an import, as stored (its JSON), in bytes: a runaway line of a
# file is refused by name rather than stored and shown to annotators.
IMPORT_MAX_RECORD_BYTES = env.int("IMPORT_MAX_RECORD_BYTES", default=1024 * 1024)
# A request body read into memory (API JSON, forms; not file uploads): over it, 413 (API) or 400
DATA_UPLOAD_MAX_MEMORY_SIZE = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=10 * 1024 * 1024)
# An uploaded file over this goes to a temporary file instead of memory (its size is bounded by
# IMPORT_MAX_BYTES and nginx's client_max_body_size)
FILE_UPLOAD_MAX_MEMORY_SIZE = env.int("FILE_UPLOAD_MAX_MEMORY_SIZE", default=5 * 1024 * 1024)
# Form fields and files one request may carry (Django's defaults, stated: issue 37)
DATA_UPLOAD_MAX_NUMBER_FIELDS = env.int("DATA_UPLOAD_MAX_NUMBER_FIELDS", default=1000)
DATA_UPLOAD_MAX_NUMBER_FILES = env.int("DATA_UPLOAD_MAX_NUMBER_FILES", default=100)
# Export jobs write their files here (one folder per project); a finished file is kept this
# many days, then the `purge-exports` beat task (or `manage.py purge_exports`) deletes it.
EXPORT_ROOT = env.path("EXPORT_ROOT", default=BASE_DIR / "exports")
EXPORT_KEEP_DAYS = env.int("EXPORT_KEEP_DAYS", default=7)
# A running job records its progress every this many rows.
EXPORT_PROGRESS_ROWS = env.int("EXPORT_PROGRESS_ROWS", default=10_000)
# A download at once (report page, GET /api/projects/<id>/export/) streams from a web worker,
# which gunicorn stops after GUNICORN_TIMEOUT seconds; larger exports are export jobs.
EXPORT_STREAM_MAX_RECORDS = env.int("EXPORT_STREAM_MAX_RECORDS", default=100_000)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="WARNING")},
}

# --- Amazon Mechanical Turk (annotation/mturk) ----------------------------------------
# local: the MTurk-compatible server (python -m annotation.mturk.local); sandbox; production.
# annotation.mturk.client_from_settings() refuses any other value, naming the three.
MTURK_ENDPOINT = env.str("MTURK_ENDPOINT", default="local")
MTURK_LOCAL_URL = env.str("MTURK_LOCAL_URL", default="http://127.0.0.1:8765")
# Empty: boto3's own chain (environment, ~/.aws, instance role); the local endpoint needs none.
AWS_ACCESS_KEY_ID = env.str("AWS_ACCESS_KEY_ID", default="")
AWS_SECRET_ACCESS_KEY = env.str("AWS_SECRET_ACCESS_KEY", default="")
# botocore retries (throttling, ServiceFault, 5xx, lost connections): standard or adaptive.
MTURK_RETRY_MODE = env.str("MTURK_RETRY_MODE", default="standard")
MTURK_MAX_ATTEMPTS = env.int("MTURK_MAX_ATTEMPTS", default=5)

# --- Prolific (annotation/prolific, annotation/channels/prolific.py) --------------------
# The researcher API (a token from Prolific: Settings -> API tokens), or the local
# Prolific-compatible endpoint (python -m annotation.prolific.local --port 8766).
PROLIFIC_API_URL = env.str("PROLIFIC_API_URL", default="https://api.prolific.com")
PROLIFIC_API_TOKEN = env.str("PROLIFIC_API_TOKEN", default="")
# Where a participant's browser goes at the end (?cc=<code> is appended).
PROLIFIC_COMPLETION_URL = env.str("PROLIFIC_COMPLETION_URL", default="https://app.prolific.com/submissions/complete")
# The cost shown before publishing: Prolific's fee (academic 33.3 %, corporate 42.8 %) and VAT
# on it by the workspace's billing country (GB: 20 %; empty: no VAT).
PROLIFIC_CORPORATE = env.bool("PROLIFIC_CORPORATE", default=False)
# The workspace's currency (Prolific workspaces pay in GBP or USD): rewards, bonuses and costs.
PROLIFIC_CURRENCY = env.str("PROLIFIC_CURRENCY", default="GBP")
PROLIFIC_VAT_COUNTRY = env.str("PROLIFIC_VAT_COUNTRY", default="GB")

# --- Language models (annotation/llm, docs/models.md) -----------------------------------------
# Each call's timeout and the openai client's retries (429, 5xx, timeouts: backoff, retry-after).
LLM_TIMEOUT_SECONDS = env.float("LLM_TIMEOUT_SECONDS", default=60.0)
LLM_MAX_RETRIES = env.int("LLM_MAX_RETRIES", default=4)
# The local endpoint scripts/demo starts: load_demo points the demo team's connection at it.
LLM_LOCAL_URL = env.str("LLM_LOCAL_URL", default="http://127.0.0.1:8767/v1")
