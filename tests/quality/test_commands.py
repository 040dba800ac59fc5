"""`manage.py run_quality` and `manage.py export`."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.kinds import GENERIC_SETTINGS
from quality.models import QualityRun

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_run_quality_prints_the_outcome(annotated):
    project = annotated.project
    output = run("run_quality", str(project.pk))
    run_ = QualityRun.objects.get()
    assert f"Quality run 1 (id {run_.pk}): done" in output
    assert "responses kept: 39 of 60" in output and "annotators kept: 3 of 4" in output
    careless = annotated.annotators["careless"].external_id
    assert f"dropped {careless}: accuracy 0.0% on 10 labeled items is not above the minimum of 40%" in output


def test_run_quality_settings_and_errors(annotated):
    run("run_quality", str(annotated.project.pk), "--set", "min_accuracy=0.96", "--set", "require_spans=false")
    assert QualityRun.objects.get().parameters == {
        **GENERIC_SETTINGS,
        "min_accuracy": 0.96,
        "require_spans": False,
        "easy_must_be_correct": True,
    }
    with pytest.raises(CommandError, match="unknown setting"):
        run("run_quality", str(annotated.project.pk), "--set", "min_acc=0.5")
    with pytest.raises(CommandError, match="key=value"):
        run("run_quality", str(annotated.project.pk), "--set", "oops")
    with pytest.raises(CommandError, match="no project"):
        run("run_quality", "999999")


def test_export_to_stdout_and_file(annotated, tmp_path):
    project = annotated.project
    body = run("export", str(project.pk), "--dataset", "raw", "--format", "csv")
    assert len(list(csv.DictReader(io.StringIO(body, newline="")))) == 60
    target = tmp_path / "items.jsonl"
    run("export", str(project.pk), "--dataset", "items", "--format", "jsonl", "--output", str(target))
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 20 and list(rows[0])[:2] == ["article", "question"]


def test_export_clean_after_run_and_errors(annotated, tmp_path):
    project = annotated.project
    with pytest.raises(CommandError, match="needs a finished quality run"):
        run("export", str(project.pk), "--dataset", "clean")
    run("run_quality", str(project.pk))
    target = tmp_path / "clean.csv"
    run("export", str(project.pk), "--dataset", "clean", "--output", str(target))
    assert len(list(csv.DictReader(target.open(encoding="utf-8", newline="")))) == 39
    with pytest.raises(CommandError):
        run("export", str(project.pk), "--dataset", "everything")
    with pytest.raises(CommandError, match="no project"):
        run("export", "999999")
