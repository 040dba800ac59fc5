"""The recruitment records become channel-neutral (plain-house issue, item 6): MTurk's publish
jobs, HITs, submissions and bonuses are now PublishJob, Posting, Submission and Payment, holding
the channel's own ids under neutral names. Renames only: the rows stay as they are."""
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("annotation", "0007_plain_orderings"),
    ]

    operations = [
        # constraints and indexes named after the old fields go first, then come back renamed
        migrations.RemoveConstraint(model_name="mturkhit", name="mturkhit_unique_round"),
        migrations.RemoveConstraint(model_name="mturksubmission", name="mturksubmission_unique_ours"),
        migrations.RemoveConstraint(model_name="mturksubmission", name="mturksubmission_unique_orphan"),
        migrations.RemoveIndex(model_name="mturksubmission", name="annotation__batch_i_a009b1_idx"),
        migrations.RemoveIndex(model_name="mturksubmission", name="annotation__mturk_a_964ab6_idx"),
        migrations.RenameModel("MTurkPublishJob", "PublishJob"),
        migrations.RenameModel("MTurkHit", "Posting"),
        migrations.RenameModel("MTurkSubmission", "Submission"),
        migrations.RenameModel("MTurkBonus", "Payment"),
        migrations.RenameField("posting", "hit_id", "ref"),
        migrations.RenameField("posting", "hit_type_id", "group_ref"),
        migrations.RenameField("posting", "max_assignments", "places"),
        migrations.RenameField("submission", "mturk_assignment_id", "ref"),
        migrations.RenameField("submission", "hit_id", "posting_ref"),
        migrations.RenameField("submission", "worker_id", "participant_ref"),
        migrations.RenameField("submission", "mturk_status", "channel_status"),
        migrations.AddField(
            model_name="payment",
            name="kind",
            field=models.CharField(choices=[("bonus", "Bonus")], default="bonus", max_length=10),
        ),
        migrations.AddConstraint(
            model_name="posting",
            constraint=models.UniqueConstraint(fields=("unit", "round"), name="posting_unique_round"),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.UniqueConstraint(
                condition=models.Q(("assignment__isnull", False)), fields=("assignment",), name="submission_unique_ours"
            ),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.UniqueConstraint(
                condition=models.Q(("assignment__isnull", True)), fields=("batch", "ref"), name="submission_unique_orphan"
            ),
        ),
        migrations.AddIndex(
            model_name="submission", index=models.Index(fields=["batch", "verified"], name="submission_batch_verified")
        ),
        migrations.AddIndex(model_name="submission", index=models.Index(fields=["ref"], name="submission_ref")),
    ]
