"""A person's way through a batch's study steps (`Batch.study`): consent, the comprehension
check's attempts, the exit survey, a live-quality stop. One per annotator and batch, whichever
channel they came by."""

from django.db import models

from .work import Annotator, Batch


class Participation(models.Model):
    class Consent(models.TextChoices):
        NOT_ASKED = "", "Not answered"
        AGREED = "agreed", "Agreed"
        DECLINED = "declined", "Declined"

    class Check(models.TextChoices):
        NOT_TAKEN = "", "Not passed yet"
        PASSED = "passed", "Passed"
        FAILED = "failed", "Failed every attempt"

    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="participations")
    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="participations")
    consent = models.CharField(max_length=10, choices=Consent.choices, blank=True, default="")
    consent_at = models.DateTimeField(null=True, blank=True)
    comprehension = models.CharField(max_length=10, choices=Check.choices, blank=True, default="")
    attempts = models.JSONField(
        default=list,
        blank=True,
        help_text="The comprehension check's attempts in order: [{answers, correct: {question: bool}, passed, at}].",
    )
    comprehension_at = models.DateTimeField(null=True, blank=True, help_text="When it was passed or finally failed.")
    exit_answers = models.JSONField(null=True, blank=True, help_text="The exit survey's answers {question: value}.")
    exit_at = models.DateTimeField(null=True, blank=True)
    stopped_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When live quality stopped the person's work (their check accuracy fell too low).",
    )
    stop_reason = models.CharField(max_length=300, blank=True, help_text="The rule and the figures that stopped it.")
    lifted_at = models.DateTimeField(
        null=True, blank=True, help_text="When a researcher lifted the stop: the person may work again."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["annotator", "batch"], name="participation_unique_per_batch"),
        ]

    def __str__(self) -> str:
        return f"{self.annotator} in {self.batch}"
