"""Projects made before teams go into one team, "Default team", whose members are every staff
account at the time of the migration: before teams every staff user saw every project, so nobody
loses access by upgrading. Split the team in the admin (Teams) afterwards; superusers see all."""

from django.conf import settings
from django.db import migrations

DEFAULT_TEAM = "Default team"


def forwards(apps, schema_editor):
    Project = apps.get_model("annotation", "Project")
    if not Project.objects.filter(team__isnull=True).exists():
        return
    Team = apps.get_model("annotation", "Team")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    team, _ = Team.objects.get_or_create(name=DEFAULT_TEAM)
    team.members.add(*User.objects.filter(is_staff=True))
    Project.objects.filter(team__isnull=True).update(team=team)


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0015_teams_team"),
    ]

    operations = [
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
