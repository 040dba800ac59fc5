"""Issue 38's "done when": each built-in demo project's report, annotated by two people through the
demo's invite links and a quality run, as a researcher would read it: no field id where the field
has a title, no raw parameter dump, no "—" without its reason, and no empty plot frame."""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser

import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.kinds import kind_of
from annotation.models import Project
from quality.models import RunPlot
from quality.services.runs import quality_run_create
from tests.quality.test_hub_demo_folders import ANSWERS, annotate_one_unit, two_annotators

pytestmark = pytest.mark.django_db


class Dashes(HTMLParser):
    """Visible text, and each "—" that has neither a title on itself or an ancestor nor words
    beside it."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, bool]] = []
        self.text: list[str] = []
        self.unexplained: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("br", "img", "input", "meta", "link", "hr", "col"):
            return
        self.stack.append((tag, any(name == "title" for name, _ in attrs)))
        if tag in ("script", "style", "title", "svg"):
            self.hidden += 1

    def handle_endtag(self, tag):
        while self.stack:
            name, _ = self.stack.pop()
            if name in ("script", "style", "title", "svg"):
                self.hidden -= 1
            if name == tag:
                break

    def handle_data(self, data):
        if self.hidden:
            return
        self.text.append(data)
        if "—" in data and data.strip() == "—" and not any(titled for _, titled in self.stack):
            self.unexplained.append(" ".join(" ".join(self.text[-8:]).split())[-90:])


def demo_report(slug: str, client, capture) -> tuple[Project, str]:
    call_command("load_demo", "--password", "pw", stdout=io.StringIO())
    project = Project.objects.get(kind=slug)
    batch, people = two_annotators(project)
    with capture(execute=True):
        for person in people:
            annotate_one_unit(person, batch, ANSWERS[slug])
    quality_run_create(project=project)
    return project, client.get(reverse("quality:report", args=[project.pk])).content.decode()


@pytest.mark.parametrize("slug", ["recam", "cosimlex", "gcrc", "scde"])
def test_each_demo_report_speaks_the_researchers_words(slug, admin_client, django_capture_on_commit_callbacks):
    project, html = demo_report(slug, admin_client, django_capture_on_commit_callbacks)
    page = Dashes()
    page.feed(html)
    text = " ".join(" ".join(page.text).split())
    for field in kind_of(project).label_fields():
        if field.title and field.name.lower() not in field.title.lower():
            assert not re.search(rf"\b{re.escape(field.name)}\b", text), (slug, field.name)
            for plot in RunPlot.objects.filter(run__project=project):
                assert field.name not in plot.title, (slug, plot.title)
    assert not re.search(r"\w+ = [^;<]*; \w+ =", html), "a raw parameter dump"
    assert 'class="parameters"' in html and "default" in text
    assert page.unexplained == [], page.unexplained
    for plot in RunPlot.objects.filter(run__project=project):
        assert plot.svg or plot.note, plot.name  # a drawing or the sentence why not
        if not plot.svg:
            assert f'data-plot="{plot.name}"' in html and plot.note in html
            assert reverse("quality:plot", args=[project.pk, plot.run_id, plot.name]) not in html


def test_parameters_are_named_settings_with_their_defaults():
    from annotation.kinds import get_kind
    from quality.report.format import field_titles
    from quality.report.parameters import parameter_rows

    kind = get_kind("recam")
    parameters = {**kind.settings_for(None), "min_accuracy": 0.6, "annotator_kappa_field": "pre_choice"}
    rows = {row["key"]: row for row in parameter_rows(parameters, kind, field_titles(kind.label_fields()))}
    assert rows["min_accuracy"] == {
        "key": "min_accuracy",
        "label": "Rule: minimum accuracy against gold",
        "value": "60 %",
        "default": False,
        "default_value": "40 %",
    }
    assert rows["annotator_kappa_field"]["value"] == "Answer before reading"
    assert (
        rows["min_annotator_kappa"]["value"] == "not set (the rule is off)" and rows["min_annotator_kappa"]["default"]
    )


def test_each_measure_says_what_it_means(admin_client, annotated):
    quality_run_create(project=annotated.project)
    html = admin_client.get(reverse("quality:report", args=[annotated.project.pk])).content.decode()
    for measure in ("% agreement", "Mean Cohen's κ", "Fleiss' κ", "Krippendorff's α", "α 95 % interval"):
        assert f"<dt>{measure}</dt><dd>" in html.replace("&#x27;", "'")
