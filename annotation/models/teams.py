"""Teams: the research groups sharing one deployment. A project belongs to one team, and a
researcher reaches only the projects of the teams they are a member of (superusers reach all);
`annotation.selectors.teams` is the one place that says so."""

from django.conf import settings as django_settings
from django.db import models


class Team(models.Model):
    name = models.CharField(max_length=200, unique=True)
    members = models.ManyToManyField(
        django_settings.AUTH_USER_MODEL,
        blank=True,
        related_name="teams",
        help_text="Researchers (staff accounts) who see and change the team's projects; one may be in several teams.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name
