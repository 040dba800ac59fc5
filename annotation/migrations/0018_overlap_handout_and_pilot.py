"""A batch's hand-out order and pilot (issue 25).

Batches made before this keep today's order, "spread" (each unit once before any twice), except
those whose adjudication stage is on: they switch to "overlap" first, the default of new batches,
so their adjudicator gets work once the annotators share a unit rather than at the end of the
batch. Either order keeps the batch's rules (N distinct annotators per item, nobody an item
twice), so switching a running batch is safe; the admin can switch back. No batch has a pilot."""

from django.db import migrations, models

HANDOUT_CHOICES = [
    ("overlap", "Overlap first: the unit others have started, so people share items early"),
    ("spread", "Spread: the unit fewest people hold, so the batch is covered once first"),
]
HANDOUT_HELP = (
    "Overlap first: a new annotator gets the unit closest to its N annotators, so agreement and "
    "adjudication start within minutes. Spread: the unit fewest hold (every unit once before any twice). "
    "Alike with one annotator per item."
)


def adjudicating_batches_overlap(apps, schema_editor):
    Batch = apps.get_model("annotation", "Batch")
    Batch.objects.filter(adjudication__enabled=True).update(handout="overlap")


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0017_teams_team_required"),
    ]

    operations = [
        migrations.AddField(
            model_name="batch",
            name="handout",
            field=models.CharField(
                choices=HANDOUT_CHOICES,
                default="spread",
                help_text=HANDOUT_HELP,
                max_length=10,
                verbose_name="hand-out order",
            ),
        ),
        migrations.RunPython(adjudicating_batches_overlap, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="batch",
            name="handout",
            field=models.CharField(
                choices=HANDOUT_CHOICES,
                default="overlap",
                help_text=HANDOUT_HELP,
                max_length=10,
                verbose_name="hand-out order",
            ),
        ),
        migrations.AddField(
            model_name="batch",
            name="pilot_items",
            field=models.PositiveIntegerField(
                default=0,
                help_text="The batch's first N items go to every annotator, before anything else, whatever the "
                "annotators per item; the quality report shows their agreement apart. 0: no pilot. Fixed when the "
                "batch is made.",
            ),
        ),
        migrations.AddField(
            model_name="unit",
            name="pilot",
            field=models.BooleanField(
                default=False,
                help_text="One of the batch's pilot units (every-annotator too): the quality report measures its "
                "agreement apart.",
            ),
        ),
        migrations.AlterField(
            model_name="unit",
            name="every_annotator",
            field=models.BooleanField(
                default=False,
                help_text="The consistency set or a pilot unit: every annotator of the batch does this unit first; "
                "it has no slot limit.",
            ),
        ),
    ]
