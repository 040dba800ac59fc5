"""Recruiting in the admin: the batch actions (`actions`, mixed into BatchAdmin), their forms
(`forms`) and the read-only pages of jobs, postings and submissions (`records`, registered on
import)."""

from . import records  # noqa: F401  (registers)
from .actions import RecruitmentActions

__all__ = ["RecruitmentActions"]
