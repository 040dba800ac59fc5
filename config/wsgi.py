import os

from config.sqlite_tuning import disable_memory_statistics

disable_memory_statistics()  # before anything imports sqlite3

from django.core.wsgi import get_wsgi_application  # noqa: E402

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
