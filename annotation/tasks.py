"""Celery tasks: thin, idempotent, retry-safe; each calls one service."""
from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from annotation.services.assignments import assignments_release_abandoned


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def release_abandoned_assignments() -> int:
    """The periodic sweep (CELERY_BEAT_SCHEDULE): idle work goes back to the pool. Running it
    twice releases nothing more, so a retry after a lost connection is harmless."""
    return assignments_release_abandoned()
