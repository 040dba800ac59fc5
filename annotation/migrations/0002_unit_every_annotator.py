from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="every_annotator",
            field=models.BooleanField(
                default=False,
                help_text="The consistency set: every annotator of the batch does this unit first; it has no slot limit.",
            ),
        ),
    ]
