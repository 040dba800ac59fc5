"""The report page's headline figures, agreement table and plots; the run's plots as SVG; the
self-contained HTML download; the state polled while a run is computed."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from quality.models import QualityRun, RunPlot
from quality.services.runs import quality_run_create

pytestmark = pytest.mark.django_db


def test_report_shows_figures_and_plots_above_the_exports(staff_client, annotated):
    project = annotated.project
    run = quality_run_create(project=project)
    page = staff_client.get(reverse("quality:report", args=[project.pk])).content.decode()
    assert (
        page.index('id="headline"')
        < page.index('id="agreement"')
        < page.index('id="plots"')
        < page.index("<h2>Exports</h2>")
    )
    assert "Annotators kept / dropped" in page and '<td class="num">3 / 1</td>' in page
    post = run.report["agreement"]["post_choice"]
    row = re.search(r'<tr data-field="post_choice">(.*?)</tr>', page, re.S).group(1)
    assert f'data-figure="alpha">{post["alpha"]["value"]:.3f}<' in row
    assert f'data-figure="n_items">{post["n_items"]}<' in row
    assert f"[{post['alpha']['low']:.3f}, {post['alpha']['high']:.3f}]" in row
    sources = re.findall(r'<img src="([^"]+)"', page)
    assert len(sources) == RunPlot.objects.filter(run=run).count() >= 4
    for source in sources:
        image = staff_client.get(source)
        assert image.status_code == 200 and image["Content-Type"] == "image/svg+xml"
        assert b"<svg" in image.content
    assert 'src="/static/quality/report.js"' in page and "<script>" not in page


def test_plot_urls_are_staff_only_and_per_run(staff_client, annotated):
    run = quality_run_create(project=annotated.project)
    url = reverse("quality:plot", args=[annotated.project.pk, run.pk, "fields"])
    assert Client().get(url).status_code == 302
    assert (
        staff_client.get(reverse("quality:plot", args=[annotated.project.pk + 1, run.pk, "fields"])).status_code == 404
    )
    assert staff_client.get(reverse("quality:plot", args=[annotated.project.pk, run.pk, "nope"])).status_code == 404


def test_report_download_is_one_self_contained_html_file(staff_client, annotated):
    run = quality_run_create(project=annotated.project)
    response = staff_client.get(reverse("quality:report_download", args=[annotated.project.pk, run.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert response["Content-Disposition"].startswith("attachment;")
    html = response.content.decode()
    assert html.count("<svg") == RunPlot.objects.filter(run=run).count()
    assert "<?xml" not in html  # the plots are inlined as elements
    assert not re.search(r"<(?:link|script|img|iframe)\b", html)
    assert not re.search(r'(?:src|href)="(?:https?:)?//', html)
    assert not re.search(r"url\((?!#)", html)  # only references inside the document (clip paths)
    assert "Krippendorff" in html and 'data-field="difficulty"' in html


def test_running_run_is_polled_by_a_static_script(staff_client, annotated):
    run = QualityRun.objects.create(project=annotated.project)
    page = staff_client.get(reverse("quality:report", args=[annotated.project.pk])).content.decode()
    status_url = reverse("quality:run_status", args=[annotated.project.pk, run.pk])
    assert f'data-status-url="{status_url}"' in page
    assert staff_client.get(status_url).json() == {"id": run.pk, "status": "running", "error": ""}
    assert staff_client.get("/static/quality/report.js").status_code in (
        200,
        404,
    )  # served by whitenoise when collected


def test_run_admin_page_shows_the_figures_and_plots(admin_client, annotated):
    run = quality_run_create(project=annotated.project)
    page = admin_client.get(reverse("admin:quality_qualityrun_change", args=[run.pk])).content.decode()
    assert 'id="headline"' in page and 'data-field="post_choice"' in page
    assert page.count('data-plot="') == RunPlot.objects.filter(run=run).count()
    assert reverse("quality:report_download", args=[annotated.project.pk, run.pk]) in page


def test_api_returns_headline_agreement_and_aggregation(staff_client, annotated):
    run = quality_run_create(project=annotated.project)
    body = staff_client.get(reverse("api-quality-run-detail", args=[run.pk])).json()
    assert body["headline"] == run.report["headline"]
    assert [f["field"] for f in body["agreement"]] == [
        "post_choice",
        "pre_choice",
        "second_choice",
        "relation",
        "difficulty",
    ]
    post = body["agreement"][0]
    assert post["alpha"] == run.report["agreement"]["post_choice"]["alpha"]
    assert post["cohen"]["mean"] == run.report["agreement"]["post_choice"]["cohen"]["mean"]
    assert post["level"] == "nominal" and body["agreement"][-1]["level"] == "ordinal"
    assert {a["field"] for a in body["aggregation"]} == {
        "post_choice",
        "pre_choice",
        "second_choice",
        "relation",
        "difficulty",
    }
    listed = staff_client.get(reverse("api-project-quality-runs", args=[annotated.project.pk])).json()
    runs = listed["results"] if isinstance(listed, dict) else listed
    assert runs[0]["agreement"] == body["agreement"]


def test_run_quality_command_prints_the_figures(annotated):
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("run_quality", str(annotated.project.pk), stdout=out)
    text = out.getvalue()
    run = QualityRun.objects.get()
    alpha = run.report["agreement"]["post_choice"]["alpha"]["value"]
    line = next(line for line in text.splitlines() if line.startswith("post_choice "))
    assert f"{alpha:.3f}" in line.split() and "nominal" in line.split()
    assert "Annotators dropped: accuracy 0.0% on 10 labeled items is not above the minimum of 40%: 1" in text
    assert "aggregation difficulty: 20 items" in text
