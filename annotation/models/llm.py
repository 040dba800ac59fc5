"""Language models in the loop (DESIGN.md, "Models in the loop"): a team's connection to an
OpenAI-compatible server, a model run over a project's items, and each call it made. A call's
validated labels are the model's labels of the item: they become predictions for the report
(one more annotator, never mixed into human labels), suggestions on annotator pages and votes in
adaptive redundancy. The API key is never stored: the connection names the environment variable
that holds it."""

from decimal import Decimal
from typing import Any

from django.conf import settings as django_settings
from django.core.validators import MinValueValidator
from django.db import models

from .projects import Item, Project
from .teams import Team

PRICE: dict[str, Any] = {
    "max_digits": 12,
    "decimal_places": 6,
    "default": Decimal(0),
    "validators": [MinValueValidator(Decimal(0))],
}


class ModelConnection(models.Model):
    """A model on an OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama, the local endpoint),
    with its prices and the limits the platform keeps to when it calls it."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="model_connections")
    name = models.SlugField(
        max_length=100, help_text='The researcher\'s name for it, e.g. "gpt-x-zero-shot": its predictions carry it.'
    )
    base_url = models.URLField(
        max_length=300, help_text="The server's OpenAI-compatible API, e.g. http://127.0.0.1:8767/v1"
    )
    model = models.CharField(max_length=200, help_text="The model's name at the server.")
    api_key_env = models.CharField(
        "API key environment variable",
        max_length=100,
        blank=True,
        help_text="The name of the environment variable holding the key (never the key itself). Empty: no key.",
    )
    input_price = models.DecimalField(
        "input price", **PRICE, help_text="Price per million input (prompt) tokens, in the account's currency."
    )
    output_price = models.DecimalField(
        "output price", **PRICE, help_text="Price per million output (completion) tokens."
    )
    concurrency = models.PositiveIntegerField(default=4, validators=[MinValueValidator(1)])
    requests_per_minute = models.PositiveIntegerField(default=60, validators=[MinValueValidator(1)])
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["team", "name"]
        constraints = [models.UniqueConstraint(fields=["team", "name"], name="model_connection_unique_name")]

    def __str__(self) -> str:
        return self.name


class ModelRun(models.Model):
    """One pass of a model over a project's items: estimated first, then run as a job that can be
    cancelled and resumed (a call already made is never paid again: `ModelCall` is its cache)."""

    class Status(models.TextChoices):
        ESTIMATED = "estimated"
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="model_runs")
    connection = models.ForeignKey(ModelConnection, on_delete=models.PROTECT, related_name="runs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ESTIMATED)
    prompt = models.TextField(
        blank=True, help_text="The instructions sent to the model. Empty: the task's own instructions."
    )
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0, help_text="Items labeled or recorded as invalid.")
    items_invalid = models.PositiveIntegerField(default=0)
    estimated_input_tokens = models.PositiveBigIntegerField(default=0)
    estimated_output_tokens = models.PositiveBigIntegerField(default=0)
    estimated_cost = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal(0))
    spent = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal(0))
    cancel_requested = models.BooleanField(default=False)
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.connection} on {self.project} ({self.status})"


class ModelCall(models.Model):
    """A model's answer for one item under one prompt: the request and reply as sent and received,
    tokens, cost and latency, and the labels the reply gave once checked as a prediction is (or
    why it was refused). One per (connection, item, prompt hash): the cache that makes a run
    resumable without paying twice."""

    class Outcome(models.TextChoices):
        LABELED = "labeled"
        INVALID = "invalid"
        FAILED = "failed"

    connection = models.ForeignKey(ModelConnection, on_delete=models.CASCADE, related_name="calls")
    run = models.ForeignKey(ModelRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="calls")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="model_calls")
    prompt_hash = models.CharField(max_length=64, help_text="SHA-256 of the request's messages and answer schema.")
    request = models.JSONField(default=dict, blank=True)
    reply = models.JSONField(default=dict, blank=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    reason = models.TextField(blank=True, help_text="Why the reply gave no labels.")
    labels = models.JSONField(default=dict, blank=True, help_text="Label field -> the model's value, as checked.")
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=Decimal(0))
    latency_ms = models.PositiveIntegerField(default=0)
    attempts = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["connection", "item", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["connection", "item", "prompt_hash"], name="model_call_unique_prompt")
        ]
        indexes = [models.Index(fields=["connection", "item"], name="model_call_connection_item")]

    def __str__(self) -> str:
        return f"{self.connection} on item {self.item_id}: {self.outcome}"
