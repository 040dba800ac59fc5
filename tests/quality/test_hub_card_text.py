"""Issue 37: a Hub split name is matched whole (`test\\n` is refused, not written as
`items/test\\n.parquet`), and text from the project that goes into the dataset card's Markdown body
(its name, key values, field names) is escaped: it cannot add lines, headings or markup."""

from __future__ import annotations

import pytest
from django.core.management import CommandError

from quality.exports.hub import SplitError, SplitPlan
from quality.exports.hub.markdown import md_code, md_text
from quality.services.runs import quality_run_create
from tests.quality.test_hub_folder import card, export_hub, offline_hub  # noqa: F401  (fixture)


@pytest.mark.parametrize("name", ["test\n", "test\r\n", "a b", "", "x/y", "te\nst"])
def test_a_split_name_is_matched_whole(name):
    with pytest.raises(SplitError, match="not a split name the Hub accepts"):
        SplitPlan(default=name)
    with pytest.raises(SplitError):
        SplitPlan(by="key", key="id", mapping={"r1": name})
    SplitPlan(default="validation.v2")  # letters, digits, _ and dots stay fine


def test_the_command_refuses_a_split_name_with_a_final_newline(annotated, tmp_path):
    quality_run_create(project=annotated.project)
    with pytest.raises(CommandError, match="not a split name"):
        export_hub(annotated.project, tmp_path / "x", "--split-default", "test\n")
    assert not (tmp_path / "x" / "items").exists()


def test_markdown_text_stays_one_line_of_literal_text():
    assert md_text("Pilot\n# Injected\n<script>alert(1)</script> [x](http://e) *b* |c|") == (
        "Pilot # Injected &lt;script&gt;alert(1)&lt;/script&gt; \\[x\\](http://e) \\*b\\* \\|c\\|"
    )
    assert md_code("a`b") == "``a`b``" and md_code("`x") == "`` `x ``" and md_code("two\nlines") == "`two lines`"


def test_the_cards_body_holds_the_projects_name_and_key_values_as_text(annotated, tmp_path):
    project = annotated.project
    project.name = "Pilot\n## Injected heading\n<img src=x onerror=alert(1)>"
    project.save(update_fields=["name"])
    quality_run_create(project=project)
    first = project.items.order_by("id").first()
    export_hub(project, tmp_path / "hub", "--split-key", "id", "--split", f"test={first.external_id}")
    header, body = card(tmp_path / "hub")
    assert header["pretty_name"] == project.name  # the YAML header keeps the name as it is, quoted
    assert "\n## Injected heading" not in body and "<img" not in body
    assert body.splitlines()[1] == "# Pilot ## Injected heading &lt;img src=x onerror=alert(1)&gt;"


def test_the_card_names_the_run_as_the_report_numbers_it(annotated, tmp_path):
    """Issue 38: runs count per project; the card says the project's run number, not the id."""
    from tests.factories import ProjectFactory

    quality_run_create(project=ProjectFactory())  # another project's run takes an id first
    run = quality_run_create(project=annotated.project)
    assert run.number == 1 and run.pk != 1
    export_hub(annotated.project, tmp_path / "hub")
    _header, body = card(tmp_path / "hub")
    assert f"Quality run 1 of {run.finished_at:%Y-%m-%d}." in body and f"#{run.pk}" not in body
