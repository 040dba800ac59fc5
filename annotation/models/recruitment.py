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
    base_url = models.CharField(
        max_length=500, help_text="Public address of this site (what the channel links participants to)."
    )
    total = models.PositiveIntegerField(default=0, help_text="Units of the batch.")
    done = models.PositiveIntegerField(default=0, help_text="Units that have their posting.")
    failures = models.JSONField(
        default=list, blank=True, help_text='[{"unit", "position", "reason", "transient"}] of the last attempt.'
    )
    error = models.TextField(blank=True, help_text="Why the whole job stopped (e.g. the balance).")
    celery_task_id = models.CharField(max_length=255, blank=True)
    dispatches = models.PositiveIntegerField(
        default=1, help_text="Times the job was handed to the Celery workers (the watchdog resends a stuck one)."
    )
    progress_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life: every unit published or failed saves it."
    )
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
        RETURN_ASKED = "return_asked", "Asked to return (never rejected)"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="submissions")
    assignment = models.ForeignKey(
        Assignment, null=True, blank=True, on_delete=models.CASCADE, related_name="submissions"
    )
    ref = models.CharField(max_length=100, help_text="The channel's id of the work (MTurk's assignmentId).")
    posting_ref = models.CharField(max_length=100, blank=True, help_text="The channel's id of the posting (HIT id).")
    participant_ref = models.CharField(
        max_length=100, blank=True, help_text="The channel's id of the person (workerId)."
    )
    channel_status = models.CharField(max_length=20, blank=True, help_text="Empty: the channel does not know it.")
    verified = models.BooleanField(default=False)
    problem = models.TextField(blank=True)
    ended = models.CharField(
        max_length=200,
        blank=True,
        help_text="Why the study ended the person's part (consent declined, comprehension check failed, stopped "
        "by live quality; or the site's sign: the study's return code, screened out). Such work is never rejected.",
    )
    submitted_at = models.DateTimeField(null=True, blank=True)
    review = models.CharField(max_length=12, choices=Review.choices, blank=True, default=Review.NONE)
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
                fields=["batch", "ref"],
                condition=Q(assignment__isnull=True),
                name="submission_unique_orphan",
            ),
        ]
        indexes = [
            models.Index(fields=["batch", "verified"], name="submission_batch_verified"),
            models.Index(fields=["ref"], name="submission_ref"),
        ]

    def __str__(self) -> str:
        return self.ref


class BulkPayment(models.Model):
    """Bonuses sent as one order to a site that pays in bulk (set up, then paid in a second
    call that pays again if repeated). Its state is saved before each step, so a crash or a lost
    answer never pays an order twice: ``paying`` means the pay call went out and its outcome is
    unknown (look on the site; the platform never sends it again)."""

    class State(models.TextChoices):
        NEW = "new", "Not set up yet"
        SET_UP = "set_up", "Set up on the site, not paid"
        PAYING = "paying", "Payment sent, outcome unknown: check on the site"
        PAID = "paid", "Paid"

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="bulk_payments")
    label = models.CharField(max_length=60, help_text="The bonus round: the same label never pays anyone twice.")
    part = models.PositiveIntegerField(
        default=1, help_text="Orders of one round, when the site caps the rows per order."
    )
    ref = models.CharField(max_length=100, blank=True, help_text="The site's id of the order (a bulk bonus).")
    state = models.CharField(max_length=10, choices=State.choices, default=State.NEW)
    total = models.DecimalField(max_digits=10, decimal_places=2, help_text="The bonuses, before the site's fees.")
    error = models.TextField(blank=True, help_text="Why the last step failed.")
    created_at = models.DateTimeField(auto_now_add=True)
    paid_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["batch_id", "label", "part"]
        constraints = [models.UniqueConstraint(fields=["batch", "label", "part"], name="bulkpayment_unique_part")]

    def __str__(self) -> str:
        return f"{self.label} #{self.part} of {self.batch}"


class Payment(models.Model):
    """A payment beyond the reward (a bonus), sent through the channel; its request token makes
    a repeat a no-op on the channel and here. On a site that pays in bulk it belongs to the
    ``bulk`` order that pays it."""

    class Kind(models.TextChoices):
        BONUS = "bonus", "Bonus"

    bulk = models.ForeignKey(BulkPayment, null=True, blank=True, on_delete=models.PROTECT, related_name="payments")
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="payments")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.BONUS)
    amount = models.DecimalField(max_digits=8, decimal_places=2)
    reason = models.TextField()
    request_token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.amount} to {self.submission.participant_ref}"


class ChannelCall(models.Model):
    """One call to a recruiting site's API and how it ended, recorded on the batch it was made
    for (empty: an account-wide call, such as the balance). Written by the channel's client hook
    for every call; never holds credentials (the token travels in a header, which is not kept)."""

    class Outcome(models.TextChoices):
        OK = "ok", "Done"
        REFUSED = "refused", "Refused (4xx)"
        FAILED = "failed", "Site error or throttled (5xx/429)"
        NO_ANSWER = "no_answer", "No answer (may have taken effect)"

    batch = models.ForeignKey(Batch, null=True, blank=True, on_delete=models.CASCADE, related_name="channel_calls")
    channel = models.CharField(max_length=20)
    operation = models.CharField(max_length=80, help_text="The client's name for the call (create_study, CreateHIT).")
    request = models.TextField(blank=True, help_text="Method, path and a summary of the body (no credentials).")
    status = models.PositiveIntegerField(null=True, blank=True, help_text="The HTTP status; empty: no answer.")
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True, help_text="Including the client's retries.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["batch", "created_at"], name="channelcall_batch_time")]
        verbose_name = "call to a recruiting site"
        verbose_name_plural = "calls to recruiting sites"

    def __str__(self) -> str:
        return f"{self.channel} {self.operation} ({self.get_outcome_display()})"

    @staticmethod
    def outcome_of(status: int | None) -> str:
        """The outcome of an answer with HTTP ``status`` (None: no answer came)."""
        if status is None or status == 0:
            return ChannelCall.Outcome.NO_ANSWER
        if status < 400:
            return ChannelCall.Outcome.OK
        if status == 429 or status >= 500:
            return ChannelCall.Outcome.FAILED
        return ChannelCall.Outcome.REFUSED
