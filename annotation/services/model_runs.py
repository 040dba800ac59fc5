"""Model runs: a model's labels for every item of a project, as an export-style job.

`model_run_estimate` builds the request of each item (`annotation.llm.prompts`) and prices what
is still to be asked (items already answered under the same prompt are free: their call is the
cache); `model_run_start` queues the run (a Celery task calls `model_run_execute`);
`model_run_execute` calls the model with the connection's concurrency (threads that only talk
HTTP; this thread writes) and its requests per minute, records each call as it comes back, and
keeps the run's counters; `model_run_cancel` asks it to stop before its next calls. A call's
result is kept by (connection, item, prompt hash), so a run stopped by a crash, a restart or a
cancel continues where it was without paying for any call twice; only failed calls are tried
again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from annotation.kinds import TaskKind, kind_of
from annotation.llm import client
from annotation.llm.prompts import ModelRequest, build_request, check_reply, instructions_text
from annotation.models import Item, ModelCall, ModelConnection, ModelRun, Project

CHUNK = 200
#: how often a run writes its counters while it runs
PROGRESS_SECONDS = 1.0
DONE_OUTCOMES = (ModelCall.Outcome.LABELED, ModelCall.Outcome.INVALID)
MILLION = Decimal(1_000_000)


def call_cost(connection: ModelConnection, input_tokens: int, output_tokens: int) -> Decimal:
    cost = (input_tokens * connection.input_price + output_tokens * connection.output_price) / MILLION
    return cost.quantize(Decimal("0.000001"))


def _requests(run: ModelRun, kind: TaskKind) -> Iterator[list[tuple[int, Any, ModelRequest]]]:
    """The run's items a chunk at a time (by id, each chunk read in full: no cursor stays open
    while the run writes, which SQLite would refuse once another process wrote), each with its
    payload and request."""
    instructions = instructions_text(kind=kind, project_instructions=run.project.instructions, override=run.prompt)
    items = Item.objects.filter(project=run.project).order_by("id").values_list("id", "external_id", "payload")
    last = 0
    while rows := list(items.filter(id__gt=last)[:CHUNK]):
        last = rows[-1][0]
        yield [
            (
                item_id,
                payload,
                build_request(
                    kind=kind,
                    payload=payload,
                    item_key=external_id,
                    instructions=instructions,
                    model=run.connection.model,
                ),
            )
            for item_id, external_id, payload in rows
        ]


def _answered(run: ModelRun, chunk: list[tuple[int, Any, ModelRequest]]) -> dict[tuple[int, str], str]:
    """(item, prompt hash) -> outcome of the chunk's calls already answered: never asked again."""
    calls = ModelCall.objects.filter(
        connection=run.connection, item_id__in=[item_id for item_id, _, _ in chunk], outcome__in=DONE_OUTCOMES
    )
    return {
        (item_id, digest): outcome
        for item_id, digest, outcome in calls.values_list("item_id", "prompt_hash", "outcome")
    }


def model_run_estimate(*, project: Project, connection: ModelConnection, prompt: str = "", by: Any = None) -> ModelRun:
    """A new run in status `estimated`: items, the tokens and cost of the calls still to be
    made (a token per four characters of each built request; the reply's from its schema).
    Precondition: the connection is the project's team's."""
    if connection.team_id != project.team_id:
        raise ValueError("the connection belongs to another team")
    run = ModelRun(project=project, connection=connection, prompt=prompt, created_by=by)
    kind = kind_of(project)
    total = input_tokens = output_tokens = 0
    for chunk in _requests(run, kind):
        answered = _answered(run, chunk)
        total += len(chunk)
        for item_id, _payload, request in chunk:
            if (item_id, request.prompt_hash) not in answered:
                input_tokens += request.input_tokens()
                output_tokens += request.output_tokens()
    run.items_total = total
    run.estimated_input_tokens, run.estimated_output_tokens = input_tokens, output_tokens
    run.estimated_cost = call_cost(connection, input_tokens, output_tokens)
    run.save()
    return run


def model_run_start(*, run: ModelRun) -> ModelRun:
    """Queue the run (again, after a crash, a cancel or a failure: what was answered is kept).
    The Celery task is sent once the transaction commits."""
    from annotation.tasks import run_model  # the tasks module imports the services

    if run.status in (ModelRun.Status.QUEUED, ModelRun.Status.RUNNING) and not run.cancel_requested:
        return run
    ModelRun.objects.filter(pk=run.pk).update(status=ModelRun.Status.QUEUED, cancel_requested=False, error="")
    run.refresh_from_db()
    transaction.on_commit(lambda: run_model.delay(run.pk))
    return run


def model_run_cancel(*, run: ModelRun) -> ModelRun:
    """Ask the run to stop: it stops before its next calls (those under way are kept)."""
    ModelRun.objects.filter(pk=run.pk).update(cancel_requested=True)
    ModelRun.objects.filter(pk=run.pk, status__in=[ModelRun.Status.ESTIMATED, ModelRun.Status.QUEUED]).update(
        status=ModelRun.Status.CANCELLED, finished_at=timezone.now()
    )
    run.refresh_from_db()
    return run


class _Pace:
    """Requests per minute: each call starts no sooner than 60/rpm seconds after the one before."""

    def __init__(self, per_minute: int) -> None:
        self.gap, self.next = 60.0 / per_minute, time.monotonic()

    def wait(self) -> None:
        now = time.monotonic()
        if self.next > now:
            time.sleep(self.next - now)
        self.next = max(now, self.next) + self.gap


def _ask(connection: ModelConnection, request: ModelRequest, max_tokens: int) -> client.Completion | client.ModelError:
    """One call in a worker thread: HTTP only, no database."""
    try:
        return client.complete(
            connection,
            messages=request.messages,
            schema=request.schema,
            max_tokens=max_tokens,
            timeout=settings.LLM_TIMEOUT_SECONDS,
            max_retries=settings.LLM_MAX_RETRIES,
        )
    except client.ModelError as error:
        return error


def _record(run: ModelRun, kind: TaskKind, item_id: int, payload: Any, request: ModelRequest, reply: Any) -> str:
    """Keep one call (a failed one is replaced when tried again); its outcome."""
    fields: dict[str, Any] = {"run": run, "request": {"messages": request.messages, "schema": request.schema}}
    if isinstance(reply, client.ModelError):
        fields.update(outcome=ModelCall.Outcome.FAILED, reason=str(reply), labels={}, reply={})
    else:
        checked = check_reply(kind=kind, payload=payload, request=request, completion=reply)
        fields.update(
            outcome=ModelCall.Outcome.LABELED if checked.valid else ModelCall.Outcome.INVALID,
            reason=checked.reason,
            labels=checked.labels,
            reply={"content": reply.text, "refusal": reply.refusal, "model": reply.model},
            input_tokens=reply.input_tokens,
            output_tokens=reply.output_tokens,
            cost=call_cost(run.connection, reply.input_tokens, reply.output_tokens),
            latency_ms=reply.latency_ms,
            attempts=reply.attempts,
        )
    ModelCall.objects.update_or_create(
        connection=run.connection, item_id=item_id, prompt_hash=request.prompt_hash, defaults=fields
    )
    return fields["outcome"]


class _Progress:
    """The run's counters: items answered (before or now) and invalid, and what this run spent."""

    def __init__(self, run: ModelRun) -> None:
        self.run, self.done, self.invalid, self.failed = run, 0, 0, 0

    def count(self, outcome: str) -> None:
        self.done += outcome in DONE_OUTCOMES
        self.invalid += outcome == ModelCall.Outcome.INVALID
        self.failed += outcome == ModelCall.Outcome.FAILED

    def save(self, **more: Any) -> None:
        spent = ModelCall.objects.filter(run=self.run).aggregate(total=Sum("cost"))["total"] or Decimal(0)
        ModelRun.objects.filter(pk=self.run.pk).update(
            items_done=self.done, items_invalid=self.invalid, spent=spent, **more
        )


def _still_wanted(run: ModelRun) -> bool:
    return not ModelRun.objects.filter(pk=run.pk, cancel_requested=True).exists()


def _todo(run: ModelRun, kind: TaskKind, progress: _Progress) -> Iterator[tuple[int, Any, ModelRequest]]:
    """The items still to ask, chunk by chunk; those answered before are counted as done."""
    for chunk in _requests(run, kind):
        answered = _answered(run, chunk)
        for outcome in answered.values():
            progress.count(outcome)
        yield from (entry for entry in chunk if (entry[0], entry[2].prompt_hash) not in answered)


def model_run_execute(*, run: ModelRun) -> ModelRun:
    """Make the run's calls not yet answered (see the module's docstring); safe to run again.
    `concurrency` calls are in flight; as each comes back it is kept, then the cancel is checked
    and the next call starts. On a cancel or a connection's own error (a bad key, an unknown
    model: the run fails) no call starts and those in flight are kept. Calls that failed for a
    transient reason after the client's retries are kept as failed, and asked again when the
    run is started again."""
    run = ModelRun.objects.select_related("project__team", "connection").get(pk=run.pk)
    kind, size = kind_of(run.project), run.connection.concurrency
    ModelRun.objects.filter(pk=run.pk).update(status=ModelRun.Status.RUNNING, started_at=timezone.now(), error="")
    progress, pace = _Progress(run), _Pace(run.connection.requests_per_minute)
    entries = _todo(run, kind, progress)
    status: str = ModelRun.Status.DONE
    error, saved = "", time.monotonic()
    pending: dict[Future, tuple[int, Any, ModelRequest]] = {}
    with ThreadPoolExecutor(max_workers=size, thread_name_prefix="model-run") as pool:
        while True:
            while status == ModelRun.Status.DONE and len(pending) < size and (entry := next(entries, None)):
                pace.wait()
                budget = max(64, entry[2].output_tokens() * 4)
                pending[pool.submit(_ask, run.connection, entry[2], budget)] = entry
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                item_id, payload, request = pending.pop(future)
                reply = future.result()
                if isinstance(reply, client.ModelError) and not reply.transient:
                    status, error = ModelRun.Status.FAILED, str(reply)
                progress.count(_record(run, kind, item_id, payload, request, reply))
            if status == ModelRun.Status.DONE and not _still_wanted(run):
                status = ModelRun.Status.CANCELLED
            if time.monotonic() - saved >= PROGRESS_SECONDS:
                progress.save()
                saved = time.monotonic()
    if status == ModelRun.Status.DONE and progress.failed:
        status = ModelRun.Status.FAILED
        error = f"{progress.failed} call(s) failed after retries; start the run again to retry them"
    progress.save(status=status, error=error, finished_at=timezone.now())
    run.refresh_from_db()
    return run
