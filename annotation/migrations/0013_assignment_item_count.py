from django.db import migrations, models
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce


def count_items(apps, schema_editor):
    """Existing assignments: their item count is the number of their responses."""
    Assignment = apps.get_model("annotation", "Assignment")
    Response = apps.get_model("annotation", "Response")
    counts = (
        Response.objects.filter(assignment=OuterRef("pk")).order_by().values("assignment").annotate(n=Count("pk"))
        .values("n")
    )
    Assignment.objects.update(item_count=Coalesce(Subquery(counts), 0))


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0012_adjudication_claimed_at"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="item_count",
            field=models.PositiveIntegerField(
                default=0, help_text="Items handed out with the assignment (its responses, fixed when it is made)."
            ),
        ),
        migrations.AlterField(
            model_name="response",
            name="version",
            field=models.PositiveIntegerField(
                default=0,
                help_text="Moves at every save and at every change of the assignment's status: a page is written "
                "only over the version it was checked against.",
            ),
        ),
        migrations.RunPython(count_items, migrations.RunPython.noop),
    ]
