"""manage.py mturk: the older name of ``manage.py recruit`` (the same operations, on any
recruiting site); kept so that scripts written for it go on working."""

from __future__ import annotations

from .recruit import Command as RecruitCommand


class Command(RecruitCommand):
    help = "The older name of `recruit`: " + RecruitCommand.help
