"""The Celery app; with no CELERY_BROKER_URL the settings make every task run inline."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("annotation_platform")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
