"""What the database remembers of recruiting on a channel (MTurk, Prolific, ...), in the channel's
own ids: publish jobs, the posting of each unit (a HIT, a study place), every submission as sync
last saw it (matched with our own Assignment, or flagged), and the payments made beyond the
reward (bonuses). The batch's `channel` says which channel the ids belong to."""
from django.conf import settings
from django.db import models
from django.db.models import Q

from .work import Assignment, Batch, Unit


class PublishJob(models.Model):
    """One run of "publish this batch": progress n of N and the units that failed, with why."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Publishing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="publish_jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    base_url = models.CharField(max_length=500, help_text="Public address of this site (what the channel links participants to).")
    total = models.PositiveIntegerField(default=0, help_text="Units of the batch.")
    done = models.PositiveIntegerField(default=0, help_text="Units that have their posting.")
    failures = models.JSONField(
        default=list, blank=True, help_text='[{"unit", "position", "reason", "transient"}] of the last attempt.'
    )
    error = models.TextField(blank=True, help_text="Why the whole job stopped (e.g. the balance).")
    celery_task_id = models.CharField(max_length=255, blank=True)
    dispatches = models.PositiveIntegerField(
        default=1, help_text="Times the job was handed to the Celery workers (the watchdog resends a stuck one).")
    progress_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life: every unit published or failed saves it.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "publish job"

    def __str__(self) -> str:
        return f"Publish {self.batch} ({self.done} of {self.total})"

    @property
    def open(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class Posting(models.Model):
    """What a unit was published as on its channel (an MTurk HIT). A unit has one per round
    (round 1 unless re-published); ``Unit.channel_ref`` holds the ref of the latest round."""

    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="postings")
    round = models.PositiveIntegerField(default=1)
    ref = models.CharField(max_length=100, unique=True, help_text="The channel's id (HIT id).")
    group_ref = models.CharField(max_length=100, blank=True, help_text="The channel's group of postings (HIT type).")
    status = models.CharField(max_length=20, blank=True, help_text="The channel's status of it when last seen.")
    places = models.PositiveIntegerField(help_text="How many people may take it (MaxAssignments).")
    expiration = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["unit_id", "round"]
        constraints = [models.UniqueConstraint(fields=["unit", "round"], name="posting_unique_round")]

    def __str__(self) -> str:
        return self.ref


class Submission(models.Model):
    """One piece of work as the channel reported it at the last sync (an MTurk assignment, a
    Prolific submission), matched with our Assignment.

    ``verified`` only when the channel knows it, its participant and posting are ours, it carries
    our completion token and every item was saved on our side; nothing unverified is approved or
    paid. Work with no Assignment of ours has ``assignment`` empty; one of ours that the channel
    does not know has ``channel_status`` empty.
    """

    class Review(models.TextChoices):
        NONE = "", "Not reviewed"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="submissions")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="submissions"
    )
    ref = models.CharField(max_length=100, help_text="The channel's id of the work (MTurk's assignmentId).")
    posting_ref = models.CharField(max_length=100, blank=True, help_text="The channel's id of the posting (HIT id).")
    participant_ref = models.CharField(max_length=100, blank=True, help_text="The channel's id of the person (workerId).")
    channel_status = models.CharField(max_length=20, blank=True, help_text="Empty: the channel does not know it.")
    verified = models.BooleanField(default=False)
    problem = models.TextField(blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    review = models.CharField(max_length=10, choices=Review.choices, blank=True, default=Review.NONE)
    feedback = models.TextField(blank=True, help_text="What the participant was told with the review.")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["batch_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["assignment"], condition=Q(assignment__isnull=False), name="submission_unique_ours"
            ),
            models.UniqueConstraint(
                fields=["batch", "ref"], condition=Q(assignment__isnull=True), name="submission_unique_orphan",
            ),
        ]
        indexes = [
            models.Index(fields=["batch", "verified"], name="submission_batch_verified"),
            models.Index(fields=["ref"], name="submission_ref"),
        ]

    def __str__(self) -> str:
        return self.ref


class Payment(models.Model):
    """A payment beyond the reward (a bonus), sent through the channel; its request token makes
    a repeat a no-op on the channel and here."""

    class Kind(models.TextChoices):
        BONUS = "bonus", "Bonus"


    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="payments")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.BONUS)
    amount = models.DecimalField(max_digits=8, decimal_places=2)
    reason = models.TextField()
    request_token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.amount} to {self.submission.participant_ref}"
