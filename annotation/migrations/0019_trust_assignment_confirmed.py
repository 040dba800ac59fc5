"""Work entered under a recruiting site's ids is held apart until the site confirms it.

Work recorded before this migration came under ids nobody confirmed: finished or released work of
a recruiting site (a channel assignment id) without a verified submission is marked unconfirmed,
and the next sync confirms what the site knows. Work in progress is left as it is (marking it
would release a real person's place at the next sweep); sync judges it once it is submitted."""

from django.db import migrations, models

REASON = "recorded before the platform kept confirmation; the next sync confirms it"


def forwards(apps, schema_editor):
    Assignment = apps.get_model("annotation", "Assignment")
    Submission = apps.get_model("annotation", "Submission")
    verified = Submission.objects.filter(verified=True, assignment__isnull=False).values("assignment_id")
    (
        Assignment.objects.exclude(channel_assignment_id="")
        .exclude(status="active")
        .exclude(pk__in=verified)
        .update(confirmed=False, unconfirmed_reason=REASON)
    )


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0018_overlap_handout_and_pilot"),
    ]

    operations = [
        migrations.AddField(
            model_name="assignment",
            name="confirmed",
            field=models.BooleanField(
                default=True,
                help_text="The recruiting site confirmed the ids the work came under (always so for work the "
                "platform hands out itself). Unconfirmed work is held apart: never counted for or against "
                "anybody, paid or reviewed.",
            ),
        ),
        migrations.AddField(
            model_name="assignment",
            name="unconfirmed_reason",
            field=models.CharField(
                blank=True, help_text="Why the work is not confirmed yet (empty once it is).", max_length=300
            ),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
