from django.db import migrations, models
import django.db.models.deletion


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0016_teams_default_team"),
    ]

    operations = [
        migrations.AlterField(
            model_name="project",
            name="team",
            field=models.ForeignKey(
                help_text="Only the team's members (and superusers) see and change the project.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="projects",
                to="annotation.team",
            ),
        ),
    ]
