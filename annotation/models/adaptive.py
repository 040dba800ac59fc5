"""What adaptive redundancy knows of a batch's items and annotators: the estimates the
aggregation task writes after each completed unit (`annotation.services.adaptive`) and the
hand-out reads (`annotation.selectors.work.next_unit`). Never written in a request."""

from django.db import models

from .llm import ModelConnection
from .projects import Item
from .work import Annotator, Batch


class ItemEstimate(models.Model):
    """An item's aggregated label in a batch, how sure it is, and whether it needs more labels."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="item_estimates")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="estimates")
    label = models.CharField(max_length=200, blank=True)
    posterior = models.FloatField(help_text="P(the label is the true one | the labels so far).")
    labels = models.PositiveIntegerField(help_text="Labels the estimate is made of.")
    settled = models.BooleanField(default=False, help_text="Posterior at the target after the minimum labels.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch", "item"], name="item_estimate_unique")]
        indexes = [models.Index(fields=["batch", "settled"], name="item_estimate_settled")]

    def __str__(self) -> str:
        return f"{self.item_id} in {self.batch_id}: {self.label} ({self.posterior:.3f})"


class AnnotatorEstimate(models.Model):
    """An annotator's estimated competence in a batch; `excluded`: the hand-out gives them no more."""

    batch = models.ForeignKey(Batch, on_delete=models.CASCADE, related_name="annotator_estimates")
    annotator = models.ForeignKey(Annotator, on_delete=models.CASCADE, related_name="estimates")
    competence = models.FloatField(help_text="MACE's probability that they label knowingly.")
    labels = models.PositiveIntegerField()
    settles_from = models.FloatField(
        default=1.0,
        help_text="The lowest posterior of an item's label that one agreeing label of theirs lifts to the "
        "batch's target: the hand-out gives them such items first.",
    )
    excluded = models.BooleanField(default=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["batch", "annotator"], name="annotator_estimate_unique")]

    def __str__(self) -> str:
        return f"{self.annotator_id} in {self.batch_id}: {self.competence:.3f}"


class ModelEstimate(models.Model):
    """The estimated competence of the model whose label counts as one vote in an adaptive batch
    (`Batch.model_votes`): fitted as a person's, never assumed."""

    batch = models.OneToOneField(Batch, on_delete=models.CASCADE, related_name="model_estimate")
    connection = models.ForeignKey(ModelConnection, on_delete=models.CASCADE, related_name="estimates")
    competence = models.FloatField(help_text="MACE's probability that the model labels knowingly.")
    items = models.PositiveIntegerField(help_text="Items people labelled too: its labels were judged against theirs.")
    gold = models.PositiveIntegerField(default=0, help_text="Gold items it answered, judged by their expected answer.")
    counted = models.BooleanField(
        default=True, help_text="False: the spammer rule judged it below the batch's minimum competence; no vote."
    )
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.connection_id} in {self.batch_id}: {self.competence:.3f}"
