"""Helpers shared by the annotation commands (the underscore keeps Django from listing it)."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from annotation.models import Batch, Project


def add_base_url_argument(parser: CommandParser) -> None:
    parser.add_argument(
        "--base-url",
        default=None,
        help="Public address of this site for printed links (default: settings.PUBLIC_BASE_URL).",
    )


def base_url(option: str | None) -> str:
    """Links printed by a command have no request to take a host from."""
    return (option or settings.PUBLIC_BASE_URL).rstrip("/")


def project_or_error(project_id: int) -> Project:
    project = Project.objects.filter(pk=project_id).first()
    if project is None:
        raise CommandError(f"There is no project with id {project_id}.")
    return project


def batch_or_error(batch_id: int) -> Batch:
    batch = Batch.objects.filter(pk=batch_id).first()
    if batch is None:
        raise CommandError(f"There is no batch with id {batch_id}.")
    return batch
