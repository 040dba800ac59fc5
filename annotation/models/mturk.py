"""What the database remembers of MTurk: publish jobs, the HIT of each unit, and every MTurk
assignment as sync last saw it (matched with our own Assignment, or flagged)."""
from django.conf import settings
from django.db import models
from django.db.models import Q

from .work import Assignment, Batch, Unit


class MTurkPublishJob(models.Model):
    """One run of "publish this batch": progress n of N and the units that failed, with why."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for a worker"
        RUNNING = "running", "Publishing"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="mturk_jobs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    base_url = models.CharField(max_length=500, help_text="Public address of this site (the ExternalQuestion URL).")
    total = models.PositiveIntegerField(default=0, help_text="Units of the batch.")
    done = models.PositiveIntegerField(default=0, help_text="Units that have their HIT.")
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
        verbose_name = "MTurk publish job"

    def __str__(self) -> str:
        return f"Publish {self.batch} ({self.done} of {self.total})"

    @property
    def open(self) -> bool:
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class MTurkHit(models.Model):
    """The HIT a unit was published as. A unit has one per round (round 1 unless re-published);
    ``Unit.channel_ref`` holds the HIT id of the latest round."""

    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="mturk_hits")
    round = models.PositiveIntegerField(default=1)
    hit_id = models.CharField(max_length=100, unique=True)
    hit_type_id = models.CharField(max_length=100)
    status = models.CharField(max_length=20, blank=True, help_text="MTurk's HITStatus when last seen.")
    max_assignments = models.PositiveIntegerField()
    expiration = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["unit_id", "round"]
        verbose_name = "MTurk HIT"
        constraints = [models.UniqueConstraint(fields=["unit", "round"], name="mturkhit_unique_round")]

    def __str__(self) -> str:
        return self.hit_id


class MTurkSubmission(models.Model):
    """One MTurk assignment as sync last saw it, matched with our Assignment.

    ``verified`` only when MTurk knows it, its worker and HIT are ours, the answer carries our
    completion token and every item was saved on our side; nothing unverified is approved or
    paid. An MTurk assignment with no Assignment of ours has ``assignment`` empty; one of ours
    that MTurk does not know has ``mturk_status`` empty.
    """

    class Review(models.TextChoices):
        NONE = "", "Not reviewed"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="mturk_submissions")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="mturk_submissions"
    )
    mturk_assignment_id = models.CharField(max_length=100, help_text="MTurk's assignmentId.")
    hit_id = models.CharField(max_length=100, blank=True)
    worker_id = models.CharField(max_length=100, blank=True)
    mturk_status = models.CharField(max_length=20, blank=True, help_text="Empty: MTurk does not know it.")
    verified = models.BooleanField(default=False)
    problem = models.TextField(blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    review = models.CharField(max_length=10, choices=Review.choices, blank=True, default=Review.NONE)
    feedback = models.TextField(blank=True, help_text="What the worker was told with the review.")
    reviewed_at = models.DateTimeField(null=True, blank=True)
    synced_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["batch_id", "id"]
        verbose_name = "MTurk submission"
        constraints = [
            models.UniqueConstraint(
                fields=["assignment"], condition=Q(assignment__isnull=False), name="mturksubmission_unique_ours"
            ),
            models.UniqueConstraint(
                fields=["batch", "mturk_assignment_id"], condition=Q(assignment__isnull=True),
                name="mturksubmission_unique_orphan",
            ),
        ]
        indexes = [models.Index(fields=["batch", "verified"]), models.Index(fields=["mturk_assignment_id"])]

    def __str__(self) -> str:
        return self.mturk_assignment_id


class MTurkBonus(models.Model):
    """A bonus sent (its request token makes a repeat a no-op on MTurk and here)."""

    submission = models.ForeignKey(MTurkSubmission, on_delete=models.CASCADE, related_name="bonuses")
    amount = models.DecimalField(max_digits=8, decimal_places=2)
    reason = models.TextField()
    request_token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "MTurk bonus"
        verbose_name_plural = "MTurk bonuses"

    def __str__(self) -> str:
        return f"${self.amount} to {self.submission.worker_id}"
