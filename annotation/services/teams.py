"""Writing teams: made in the admin by superusers, and by the demo and the commands here."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import Team


@transaction.atomic
def team_ensure(*, name: str, members: Iterable[User] = ()) -> Team:
    """The team of this name (made when missing) with `members` in it; members already there
    and other members stay, so running it again changes nothing."""
    team, _ = Team.objects.get_or_create(name=name)
    team.members.add(*members)
    return team
