"""A CoSimLex project end to end on the server side: annotators rate through the assignment
service, a quality run calibrates and excludes with reasons, exports write the release format,
the kit gold, and cleaned ratings; Table 1 and the scorer run on the project's own data."""

from __future__ import annotations

import csv
import io
import json
import re

import numpy as np
import pandas as pd
import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotation.kinds.cosimlex.records import RELEASE_COLUMNS, plain_context
from annotation.kinds.cosimlex.scorers import project_gold, project_summary, release_file_summary
from annotation.models import Response
from annotation.services.assignments import NoWorkLeft, assignment_next
from annotation.services.batches import batch_create
from annotation.services.imports import items_import
from quality.exports import export_open
from quality.models import AnnotatorDecision, ResponseDecision
from quality.scoring import StoredProjectResults
from quality.services.runs import quality_run_create
from quality.stats.semeval_scoring import score_submission
from tests.conftest import data_file
from tests.factories import AnnotatorFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def rate_everything(project, batch, people: dict[str, callable]) -> dict[int, str]:
    """Each annotator takes units until none is left and answers every item with `rate(payload)`."""
    behaviour = {}
    now = timezone.now()
    for name, rate in people.items():
        annotator = AnnotatorFactory(project=project, batch=batch, external_id=name)
        behaviour[annotator.pk] = name
        while True:
            try:
                assignment = assignment_next(annotator=annotator, batch=batch)
            except NoWorkLeft:
                break
            for response in Response.objects.filter(assignment=assignment).select_related("item"):
                words = inspired_by(response.item.payload) if name != "lazy" else {"word_1": "asdf", "word_2": "asdf"}
                response.answers = {"inspired": words, "rating": {"rating": int(rate(response.item.payload))}}
                response.timings = {"inspired": {"seconds": 9.0}, "rating": {"seconds": 3.0}}
                response.completed_at = now
                response.save()
            assignment.status = "submitted"
            assignment.save()
    return behaviour


def inspired_by(payload) -> dict[str, str]:
    """Two words of the context itself, different for every context: an engaged reader."""
    words = [w for w in re.findall(r"\w{5,}", plain_context(payload[f"context{payload['context']}"]))]
    return {"word_1": words[0], "word_2": words[-1] if words[-1] != words[0] else words[1]}


def truth(payload) -> float:
    """The released mean of this context, back on the 0-6 scale."""
    return float(payload["reference"][f"sim{payload['context']}"]) * 6 / 10


@pytest.fixture
def rated_project():
    rng = np.random.default_rng(3)
    project = ProjectFactory(kind="cosimlex", language="hr", name="CoSimLex hr")
    items_import(project=project, data=data_file("cosimlex", "cosimlex_hr.sample.csv").read_bytes())
    batch = batch_create(project=project, name="b", items_per_unit=10, assignments_per_unit=6)
    honest = {f"honest-{k}": (lambda p: np.clip(round(truth(p) + rng.normal(0, 0.5)), 0, 6)) for k in range(10)}
    people = {**honest, "random": lambda p: rng.integers(0, 7), "lazy": lambda p: np.clip(round(truth(p)), 0, 6)}
    names = rate_everything(project, batch, people)
    return project, names


def test_quality_run_keeps_honest_raters_and_explains_every_exclusion(rated_project):
    project, names = rated_project
    run = quality_run_create(project=project)
    assert run.status == "done", run.error
    verdicts = {names[d.annotator_id]: d for d in AnnotatorDecision.objects.filter(run=run)}
    assert all(verdicts[n].keep for n in names.values() if n.startswith("honest"))
    assert not verdicts["random"].keep and any("pairwise Spearman" in r for r in verdicts["random"].reasons)
    assert not verdicts["lazy"].keep
    assert verdicts["lazy"].reasons == [
        "page-1 words fail the engagement check in 30 of 30 responses (100%), above the maximum of 50%"
    ]
    dropped = ResponseDecision.objects.filter(run=run, keep=False)
    assert dropped.exists() and all(d.reasons for d in dropped)
    kept = ResponseDecision.objects.filter(run=run, keep=True).select_related("response")
    for decision in kept[:20]:
        rating = decision.response.answers["rating"]["rating"]
        assert decision.values["rating_calibrated"] == pytest.approx(rating, abs=1)
        assert decision.values["rating_scaled"] == pytest.approx(decision.values["rating_calibrated"] * 10 / 6)
    summary = run.report["summary"]
    assert summary["annotations_per_entry_before"] == pytest.approx(6)
    assert summary["annotations_per_entry_after"] < 6
    assert 0.5 < summary["agreement_spearman"] <= 1
    assert summary["n_pairs"] == 30


def read(export) -> bytes:
    return b"".join(export.chunks)


def test_release_format_export_has_the_released_columns_and_our_scores(rated_project):
    project, _ = rated_project
    quality_run_create(project=project)
    text = read(export_open(project=project, dataset="items", fmt="tsv")).decode()
    lines = text.split("\n")
    assert lines[0].split("\t") == RELEASE_COLUMNS
    released = data_file("cosimlex", "cosimlex_hr.sample.csv").read_text(encoding="utf-8").split("\n")
    for ours, theirs in zip(lines[1:31], released[1:31]):
        ours, theirs = ours.split("\t"), theirs.split("\t")
        assert ours[:4] == theirs[:4] and ours[9:] == theirs[9:]  # pair, contexts with <strong>, forms: exact
        assert all(cell for cell in ours[4:9])
        # honest raters follow the released means, so ours land near them
        assert abs(float(ours[4]) - float(theirs[4])) < 2.5
    assert len([line for line in lines if line]) == 31
    # the file reads back through our own importer, as any release file does
    assert release_file_summary(text)["n_pairs"] == 30


def test_kit_gold_and_data_exports_line_up(rated_project):
    project, _ = rated_project
    quality_run_create(project=project)
    gold = read(export_open(project=project, dataset="kit_gold", fmt="tsv")).decode().split("\n")
    data = read(export_open(project=project, dataset="kit_data", fmt="tsv")).decode().split("\n")
    assert gold[0] == "sim_context1\tsim_context2\tchange"
    kit = data_file("cosimlex", "data_hr.sample.tsv").read_text(encoding="utf-8").split("\n")
    assert data[: len(kit)] == kit[: len(data)] and len([x for x in data if x]) == 31
    for row in gold[1:31]:
        c1, c2, change = map(float, row.split("\t"))
        assert change == pytest.approx(c2 - c1, abs=0.02)


def test_clean_export_carries_calibrated_ratings(rated_project):
    project, _ = rated_project
    run = quality_run_create(project=project)
    rows = list(csv.DictReader(io.StringIO(read(export_open(project=project, dataset="clean", fmt="csv")).decode())))
    assert len(rows) == ResponseDecision.objects.filter(run=run, keep=True).count()
    assert {"rating", "rating_calibrated", "rating_scaled", "inspired_word_1", "pair", "context"} <= set(rows[0])
    lines = read(export_open(project=project, dataset="clean", fmt="jsonl")).decode().splitlines()
    first = json.loads(lines[0])
    assert first["rating_scaled"] == pytest.approx(first["rating_calibrated"] * 10 / 6)


def test_table1_and_scoring_on_the_projects_own_data(rated_project, capsys):
    project, _ = rated_project
    quality_run_create(project=project)
    summary = project_summary(StoredProjectResults(project))
    assert summary["n_pairs"] == 30 and 0 <= summary["share_p_below_0_05"] <= summary["share_p_below_0_1"] <= 1
    gold = project_gold(StoredProjectResults(project))
    perfect = gold[["change"]].to_csv(sep="\t", index=False)
    both = gold[["sim_context1", "sim_context2"]].to_csv(sep="\t", index=False)
    scores = score_submission(gold, subtask1=perfect, subtask2=both)
    assert scores["subtask1"]["uncentered_pearson"] == pytest.approx(1.0)
    assert scores["subtask2"]["harmonic_mean"] == pytest.approx(1.0)
    call_command("score", str(project.pk), "table1", "--release", str(data_file("cosimlex", "cosimlex_hr.sample.csv")))
    out = capsys.readouterr().out
    assert "cosimlex_hr.sample.csv" in out and f"project {project.pk}" in out and "p < 0.05" in out


def test_table1_api_of_the_project_and_uploaded_release_files(rated_project, client):
    project, _ = rated_project
    quality_run_create(project=project)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    release = io.BytesIO(data_file("cosimlex", "cosimlex_hr.sample.csv").read_bytes())
    release.name = "cosimlex_hr.csv"
    response = client.post(reverse("api-project-score", args=[project.pk, "table1"]), {"release": [release]})
    assert response.status_code == 200
    rows = response.json()
    assert list(rows) == ["cosimlex_hr.csv", f"project {project.pk}: {project.name}"]
    assert rows["cosimlex_hr.csv"]["n_pairs"] == 30 and rows[f"project {project.pk}: {project.name}"]["n_pairs"] == 30


def test_score_api_against_the_project_and_against_an_uploaded_gold(rated_project, client):
    project, _ = rated_project
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    url = reverse("api-project-score", args=[project.pk, "semeval2020"])
    early = client.post(url, {"subtask1": io.BytesIO(b"change\n1\n")})
    assert early.status_code == 409 and "quality run" in early.json()["detail"]
    quality_run_create(project=project)
    gold = project_gold(StoredProjectResults(project))
    upload = io.BytesIO(gold[["change"]].to_csv(sep="\t", index=False).encode())
    upload.name = "results_subtask1_hr.tsv"
    ok = client.post(url, {"subtask1": upload})
    assert ok.status_code == 200 and ok.json()["subtask1"]["uncentered_pearson"] == pytest.approx(1.0)
    bad = io.BytesIO(b"change\n1\nnot-a-number\n")
    response = client.post(url, {"subtask1": bad})
    assert response.status_code == 400 and "line 3" in response.json()["detail"]
    kit_gold = data_file("cosimlex", "practice_kit_gold_hr.tsv").read_bytes()
    prediction = io.BytesIO(
        b"sim_context1\tsim_context2\n"
        + b"\n".join(line.rsplit(b"\t", 1)[0] for line in kit_gold.splitlines()[1:])
        + b"\n"
    )
    vs_kit = client.post(url, {"subtask2": prediction, "gold": io.BytesIO(kit_gold)})
    assert vs_kit.status_code == 200 and vs_kit.json()["subtask2"]["harmonic_mean"] == pytest.approx(1.0)
    assert vs_kit.json()["pairs"] == 5


def test_score_api_needs_staff(rated_project, client):
    project, _ = rated_project
    client.force_login(UserFactory(is_staff=False))
    assert client.post(reverse("api-project-score", args=[project.pk, "semeval2020"]), {}).status_code == 403


def test_score_command_against_the_practice_kit(capsys, tmp_path):
    gold = data_file("cosimlex", "practice_kit_gold_en.tsv")
    rows = gold.read_text(encoding="utf-8").splitlines()[1:]
    predicted = tmp_path / "results_subtask1_en.tsv"
    changes = [float(r.split("\t")[2]) for r in rows]
    predicted.write_text("change\n" + "\n".join(str(c * 2 + 0.1) for c in changes) + "\n")
    call_command("score", "cosimlex", "semeval2020", "--gold", str(gold), "--subtask1", str(predicted))
    result = json.loads(capsys.readouterr().out)
    x, y = np.array([c * 2 + 0.1 for c in changes]), np.array(changes)
    assert result["subtask1"]["uncentered_pearson"] == pytest.approx(float(x @ y / np.sqrt((x @ x) * (y @ y))))
    assert result["pairs"] == 10


def test_report_page_shows_table1_figures_and_the_kit_exports(rated_project, client):
    project, _ = rated_project
    run = quality_run_create(project=project)
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    html = client.get(reverse("quality:report", args=[project.pk])).content.decode()
    summary = run.report["summary"]
    assert "Pairs whose change has p &lt; 0.05" in html and f"{summary['share_p_below_0_05'] * 100:.1f} %" in html
    assert f"{summary['mean_similarity']:.3f}" in html
    assert "kit_gold" in html and "kit_data" in html
    assert client.get(reverse("quality:export", args=[project.pk, "kit_gold", "tsv"])).status_code == 200
    assert client.get(reverse("quality:export", args=[project.pk, "kit_gold", "xlsx"])).status_code == 404


def test_rating_agreement_is_interval_with_spearman_and_a_rating_plot(rated_project):
    from annotation.kinds import get_kind
    from quality.agreement import BOOTSTRAP, agreement_json
    from quality.frames import annotation_frame, kept_frame, label_frame
    from quality.models import RunPlot
    from quality.stats.agreement import field_agreement

    project, _ = rated_project
    run = quality_run_create(project=project)
    rating = run.report["agreement"]["rating"]
    assert rating["level"] == "interval" and run.report["aggregation"] == {}  # ratings are not voted on
    keep = pd.Series(dict(ResponseDecision.objects.filter(run=run).values_list("response_id", "keep")))
    field = get_kind("cosimlex").label_fields()[0]
    direct = field_agreement(
        label_frame(kept_frame(annotation_frame(project), keep), field), level="interval", **BOOTSTRAP
    )
    assert rating == agreement_json(direct, field)
    assert rating["spearman_vs_rest_mean"] is not None and rating["alpha"]["low"] <= rating["alpha"]["value"]
    plots = set(RunPlot.objects.filter(run=run).values_list("name", flat=True))
    assert {"rating_distribution", "annotators_kappa_vs_majority", "fields", "progress"} <= plots
