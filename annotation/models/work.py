"""Batches, the units they hand out, who takes them, and what they answer."""

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from .projects import Item, Project


def new_key() -> str:
    return secrets.token_urlsafe(24)


#: how a batch shows its model's labels to annotators (`Batch.suggestions`; the API's choices too)
SUGGESTION_CHOICES = [("off", "off"), ("hint", "shown as a hint"), ("preselect", "pre-selected")]


class Batch(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        OPEN = "open", "Open"
        CLOSED = "closed", "Closed"

    class Handout(models.TextChoices):
        """Which free unit a new annotator gets (`annotation.selectors.work.next_unit`)."""

        OVERLAP = "overlap", "Overlap first: the unit others have started, so people share items early"
        SPREAD = "spread", "Spread: the unit fewest people hold, so the batch is covered once first"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="batches")
    name = models.CharField(max_length=200)
    channel = models.CharField(max_length=20, default="invite", help_text="Channel slug (see annotation.channels).")
    items_per_unit = models.PositiveIntegerField(default=5)
    assignments_per_unit = models.PositiveIntegerField(default=3, help_text="Distinct annotators per item.")
    release_after_minutes = models.PositiveIntegerField(
        default=60, help_text="An assignment idle this long is released to somebody else."
    )
    channel_settings = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    handout = models.CharField(
        "hand-out order",
        max_length=10,
        choices=Handout.choices,
        default=Handout.OVERLAP,
        help_text="Overlap first: a new annotator gets the unit closest to its N annotators, so agreement and "
        "adjudication start within minutes. Spread: the unit fewest hold (every unit once before any twice). "
        "Alike with one annotator per item.",
    )
    pilot_items = models.PositiveIntegerField(
        default=0,
        help_text="The batch's first N items go to every annotator, before anything else, whatever the annotators "
        "per item; the quality report shows their agreement apart. 0: no pilot. Fixed when the batch is made.",
    )
    study = models.TextField(
        blank=True,
        help_text="The study file (YAML or JSON, docs/study-checks.md): a consent text, a comprehension check with "
        "its answers and attempts, an exit survey. Empty: none of them.",
    )
    adaptive = models.BooleanField(
        "adaptive redundancy",
        default=False,
        help_text="Hand an item out only until its label is sure enough (docs/adaptive-redundancy.md): at least "
        "the minimum and at most the maximum annotators, least certain items first. Off: every item gets "
        "the annotators per item above.",
    )
    min_annotators = models.PositiveIntegerField(
        default=2, validators=[MinValueValidator(1)], help_text="Adaptive: labels an item gets before it may settle."
    )
    max_annotators = models.PositiveIntegerField(
        default=5, validators=[MinValueValidator(1)], help_text="Adaptive: labels an item gets at most."
    )
    target_confidence = models.FloatField(
        default=0.98,
        validators=[MinValueValidator(0.5), MaxValueValidator(0.9999)],
        help_text="Adaptive: an item settles once its label's posterior reaches this (after the minimum).",
    )
    min_competence = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(1.0)],
        help_text="Adaptive: stop handing work to an annotator whose competence (MACE) is below this with 90 % "
        "posterior probability, once they gave enough labels to judge. Empty: nobody is stopped (0.3 when the "
        "study has live quality on). 0.6 also stops annotators right about 60 % of the time on 4 classes.",
    )
    model = models.ForeignKey(
        "annotation.ModelConnection",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="batches",
        help_text="The model whose labels this batch shows as suggestions or counts as a vote (docs/models.md).",
    )
    suggestions = models.CharField(
        max_length=10,
        choices=SUGGESTION_CHOICES,
        default="off",
        help_text="Show the model's label to annotators: as a hint beside the question, or chosen for them "
        "to keep or change. Recorded with each answer, so the report can show anchoring.",
    )
    model_votes = models.BooleanField(
        default=False,
        help_text="Adaptive: count the model's label as one vote, with its competence estimated like an "
        "annotator's, so items the model and the minimum number of people settle get no more paid labels.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name_plural = "batches"
        # Spending money on a recruiting site is more than changing a batch: publishing, adding
        # assignments, resuming a study, approving/rejecting work and paying bonuses need this.
        permissions = [("spend_on_channel", "Can publish, pay and review on recruiting sites")]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        super().clean()
        if self.min_annotators > self.max_annotators:
            raise ValidationError({"max_annotators": "The maximum annotators cannot be below the minimum."})

    @property
    def slots_per_unit(self) -> int:
        """Annotators a unit may have: the adaptive maximum, else the fixed annotators per item."""
        return self.max_annotators if self.adaptive else self.assignments_per_unit


class Unit(models.Model):
    """What one HIT or one invite hands out: an ordered handful of a batch's items."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="units")
    position = models.PositiveIntegerField()
    items = models.ManyToManyField(Item, through="UnitItem", related_name="units")
    channel_ref = models.CharField(max_length=100, blank=True, help_text="HIT id / study id on the channel.")
    every_annotator = models.BooleanField(
        default=False,
        help_text="The consistency set or a pilot unit: every annotator of the batch does this unit first; it has "
        "no slot limit.",
    )
    pilot = models.BooleanField(
        default=False,
        help_text="One of the batch's pilot units (every-annotator too): the quality report measures its agreement apart.",
    )

    class Meta:
        ordering = ["batch_id", "position"]
        constraints = [models.UniqueConstraint(fields=["batch", "position"], name="unit_unique_position")]

    def __str__(self) -> str:
        return f"{self.batch} #{self.position}"


class UnitItem(models.Model):
    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="unit_items")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="unit_items")
    position = models.PositiveIntegerField()

    class Meta:
        ordering = ["unit_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["unit", "item"], name="unititem_unique_item"),
            models.UniqueConstraint(fields=["unit", "position"], name="unititem_unique_position"),
        ]

    def __str__(self) -> str:
        return f"item {self.item_id} at {self.position} of unit {self.unit_id}"


class Annotator(models.Model):
    """A person on a channel: an invited participant, an MTurk worker, a Prolific participant."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="annotators")
    channel = models.CharField(max_length=20)
    external_id = models.CharField(max_length=200)
    access_key = models.CharField(max_length=64, unique=True, default=new_key, editable=False)
    batch = models.ForeignKey(
        "Batch",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="recruits",
        help_text="The batch this annotator was recruited into (invite links).",
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    role = models.CharField(max_length=12, default="annotator", help_text="annotator or adjudicator (models.Role).")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "channel", "external_id"], name="annotator_unique_per_channel")
        ]

    def __str__(self) -> str:
        return f"{self.channel}:{self.external_id}"


class InviteLink(models.Model):
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=new_key, editable=False)
    label = models.CharField(max_length=200, blank=True)
    max_annotators = models.PositiveIntegerField(null=True, blank=True, help_text="Empty: no limit.")
    role = models.CharField(
        max_length=12,
        default="annotator",
        help_text="annotator, or adjudicator: its people decide the batch's disagreements.",
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.label or self.token


class Assignment(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "Working"
        SUBMITTED = "submitted", "Submitted"
        RELEASED = "released", "Released (abandoned)"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    #: statuses that hold one of a unit's slots
    HOLDING = (Status.ACTIVE, Status.SUBMITTED, Status.APPROVED, Status.REJECTED)
    #: work whose answers count: in progress, submitted or approved (not rejected, released or returned)
    COUNTED = (Status.ACTIVE, Status.SUBMITTED, Status.APPROVED)

    unit = models.ForeignKey(Unit, on_delete=models.CASCADE, related_name="assignments")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="assignments")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    channel_assignment_id = models.CharField(max_length=100, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    item_count = models.PositiveIntegerField(
        default=0, help_text="Items handed out with the assignment (its responses, fixed when it is made)."
    )
    confirmed = models.BooleanField(
        default=True,
        help_text="The recruiting site confirmed the ids the work came under (always so for work the platform "
        "hands out itself). Unconfirmed work is held apart: never counted for or against anybody, paid or reviewed.",
    )
    unconfirmed_reason = models.CharField(
        max_length=300, blank=True, help_text="Why the work is not confirmed yet (empty once it is)."
    )
    study_hold = models.BooleanField(
        default=False,
        help_text="Held until the person passes the batch's study steps before the work (consent, comprehension "
        "check): no answer is saved while it is held.",
    )

    class Meta:
        ordering = ["id"]
        constraints = [
            # one per person and unit on our own channels (the id is empty); a recruiting site's
            # assignment id binds work to it: another id is another assignment (surveys' entry views)
            models.UniqueConstraint(
                fields=["unit", "annotator", "channel_assignment_id"], name="assignment_unique_channel_assignment"
            ),
        ]
        indexes = [models.Index(fields=["status", "last_activity_at"])]

    def __str__(self) -> str:
        return f"{self.annotator} on {self.unit}"


class Response(models.Model):
    """One annotator's answers to one item, saved page by page; unique per (assignment, item)."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="responses")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="responses")
    position = models.PositiveIntegerField(help_text="Order of the item within the unit.")
    answers = models.JSONField(default=dict, blank=True, help_text="{page slug: cleaned answer}")
    suggestions = models.JSONField(
        default=dict,
        blank=True,
        help_text="{page slug: {field: {model, value, kept}}}: the model's suggestions shown with the page.",
    )
    timings = models.JSONField(default=dict, blank=True, help_text="{page slug: {shown_at, saved_at, seconds}}")
    completed_at = models.DateTimeField(null=True, blank=True)
    check_passed = models.BooleanField(
        null=True, blank=True, help_text="A check item's answer: whether it gave the expected answer (else empty)."
    )
    training = models.BooleanField(
        default=False,
        help_text="A training item of the batch's study: answered with feedback before the work, never counted.",
    )
    version = models.PositiveIntegerField(
        default=0,
        help_text="Moves at every save and at every change of the assignment's status: a page is written only "
        "over the version it was checked against.",
    )

    class Meta:
        ordering = ["assignment_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "item"], name="response_unique_item"),
        ]

    def __str__(self) -> str:
        return f"{self.assignment} / {self.item}"
