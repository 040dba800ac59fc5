"""Model runs against the local endpoint over HTTP: an estimate first, calls with retries, each
item labeled or invalid with its reason, a crash mid-run resumed without paying any call twice
(the endpoint's own count), cancel, the estimate within 10 % of what was spent, and the command."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.management import call_command
from django.test import override_settings

from annotation.models import ModelCall, ModelConnection, ModelRun
from annotation.services import model_runs
from annotation.services.model_runs import model_run_cancel, model_run_estimate, model_run_execute
from tests.annotation.llm_helpers import admin
from tests.factories import ItemFactory, ProjectFactory

pytestmark = [pytest.mark.django_db, pytest.mark.filterwarnings("ignore::ResourceWarning")]
FAST = override_settings(LLM_TIMEOUT_SECONDS=0.5, LLM_MAX_RETRIES=4)


def project_with(items: int):
    project = ProjectFactory()
    for n in range(items):
        ItemFactory(project=project, external_id=f"q{n}")
    return project


def connection_for(project, server, **fields) -> ModelConnection:
    values = {"input_price": Decimal(10), "output_price": Decimal(30), "concurrency": 4, "requests_per_minute": 60_000}
    values.update(fields)
    return ModelConnection.objects.create(
        team=project.team, name="local-zero-shot", base_url=server.base_url, model="m", **values
    )


#: no fault here is slow: a timeout long enough that a loaded machine's slow reply is no retry
#: (the attempts below count the 429's and the 500's retries only)
@override_settings(LLM_TIMEOUT_SECONDS=30, LLM_MAX_RETRIES=4)
def test_a_run_labels_every_item_and_keeps_each_call(local_model):
    project = project_with(12)
    connection = connection_for(project, local_model)
    admin(local_model, "POST", "faults", {"next": ["429", "500", "malformed", "refusal"], "retry_after": 0.01})
    run = model_run_estimate(project=project, connection=connection)
    assert run.status == "estimated" and run.items_total == 12 and run.estimated_cost > 0
    assert admin(local_model, "GET", "requests")["total"] == 0  # an estimate calls nothing
    run = model_run_execute(run=run)
    assert run.status == "done", run.error
    assert (run.items_done, run.items_invalid) == (12, 2)
    calls = ModelCall.objects.filter(run=run)
    invalid = calls.filter(outcome="invalid")
    assert {c.reason.split(":")[0] for c in invalid} == {"the reply is not JSON", "the model refused"}
    labeled = calls.filter(outcome="labeled")
    assert labeled.count() == 10 and all(set(c.labels) >= {"post_choice", "difficulty"} for c in labeled)
    assert max(c.attempts for c in calls) == 2 and all(c.input_tokens and c.latency_ms >= 0 for c in calls)
    assert run.spent == sum(c.cost for c in calls) and run.spent > 0
    assert admin(local_model, "GET", "requests")["paid"] == 12


@FAST
def test_a_crashed_run_resumes_without_paying_any_call_twice(local_model, monkeypatch):
    project = project_with(30)
    connection = connection_for(project, local_model, concurrency=3)
    record, made = model_runs._record, []

    def crash_after_ten(*args, **kwargs):
        if len(made) == 10:
            raise RuntimeError("the worker died")
        made.append(1)
        return record(*args, **kwargs)

    monkeypatch.setattr(model_runs, "_record", crash_after_ten)
    run = model_run_estimate(project=project, connection=connection)
    with pytest.raises(RuntimeError):
        model_run_execute(run=run)
    assert ModelCall.objects.count() == 10
    monkeypatch.setattr(model_runs, "_record", record)
    again = model_run_estimate(project=project, connection=connection)
    assert again.estimated_cost < run.estimated_cost * Decimal("0.75")  # the answered ten are free
    again = model_run_execute(run=again)
    assert again.status == "done" and again.items_done == 30
    kept_before = set(ModelCall.objects.filter(run=run).values_list("item__external_id", flat=True))
    paid = [row["item"] for row in admin(local_model, "GET", "requests/rows") if row["status"] == 200]
    assert len(kept_before) == 10 and all(paid.count(item) == 1 for item in kept_before)  # never asked again
    # only the replies in flight when it died (at most `concurrency`), never kept, were asked again
    assert admin(local_model, "GET", "requests")["paid_twice"] <= connection.concurrency
    assert ModelCall.objects.filter(connection=connection).count() == 30 and set(paid) == {f"q{n}" for n in range(30)}


@FAST
def test_a_cancelled_run_stops_before_its_next_calls(local_model, monkeypatch):
    project = project_with(20)
    connection = connection_for(project, local_model, concurrency=2)
    run = model_run_estimate(project=project, connection=connection)
    record, made = model_runs._record, []

    def cancel_after_four(run_, *args, **kwargs):
        made.append(1)
        if len(made) == 4:
            model_run_cancel(run=run)
        return record(run_, *args, **kwargs)

    monkeypatch.setattr(model_runs, "_record", cancel_after_four)
    run = model_run_execute(run=run)
    # the call still in flight when it was cancelled is kept: nothing paid is lost
    assert run.status == "cancelled" and 4 <= run.items_done <= 4 + connection.concurrency - 1
    assert admin(local_model, "GET", "requests")["paid"] == run.items_done == ModelCall.objects.count()


def test_cancelling_an_estimate_ends_it(local_model):
    project = project_with(2)
    run = model_run_cancel(run=model_run_estimate(project=project, connection=connection_for(project, local_model)))
    assert run.status == "cancelled" and run.cancel_requested


@FAST
def test_the_estimate_is_within_ten_percent_of_what_was_spent(local_model):
    project = project_with(300)
    connection = connection_for(project, local_model, concurrency=8)
    admin(local_model, "POST", "faults", {"rates": {"429": 0.05, "500": 0.03, "malformed": 0.02}, "retry_after": 0.01})
    run = model_run_execute(run=model_run_estimate(project=project, connection=connection))
    assert run.status == "done" and run.items_done == 300
    assert abs(run.spent - run.estimated_cost) <= run.estimated_cost * Decimal("0.10"), (run.spent, run.estimated_cost)


def test_a_connection_error_fails_the_run_and_names_it(local_model):
    project = project_with(3)
    connection = connection_for(project, local_model, api_key_env="NO_SUCH_LLM_KEY_SET")
    run = model_run_execute(run=model_run_estimate(project=project, connection=connection))
    assert run.status == "failed" and "NO_SUCH_LLM_KEY_SET" in run.error


@FAST
def test_the_command_prints_the_estimate_and_runs_when_told(local_model, capsys):
    project = project_with(5)
    connection_for(project, local_model)
    call_command("run_model", str(project.pk), "local-zero-shot", "--estimate-only")
    assert "5 item(s)" in capsys.readouterr().out and not ModelCall.objects.exists()
    call_command("run_model", str(project.pk), "local-zero-shot", "--yes")
    out = capsys.readouterr().out
    assert "done; 5 of 5 item(s) answered" in out and ModelRun.objects.filter(status="done").count() == 1


@FAST
def test_a_run_stuck_as_running_is_cancelled_then_started_again(local_model, django_capture_on_commit_callbacks):
    project = project_with(3)
    run = model_run_estimate(project=project, connection=connection_for(project, local_model))
    ModelRun.objects.filter(pk=run.pk).update(status="running")  # its worker died
    run.refresh_from_db()
    assert model_runs.model_run_start(run=run).status == "running"  # not started twice
    run = model_run_cancel(run=run)
    with django_capture_on_commit_callbacks(execute=True):
        model_runs.model_run_start(run=run)
    run.refresh_from_db()
    assert run.status == "done" and run.items_done == 3 and not run.cancel_requested
