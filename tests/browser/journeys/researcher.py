"""The researcher of a journey, in a real browser: the admin's own forms and actions for the
project, its import, batches, invite links and adjudication stage; the quality report's run
button, figures and download buttons; the scores API through a real HTTP client.

Nothing here calls a service: every step is what a person clicks, so a seam that breaks between
the parts (a form that refuses what the next step needs, a button that downloads nothing)
breaks the journey."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

from annotation.models import Batch, Project
from quality.models import ExportJob
from tests.factories import TeamFactory
from tests.security.conftest import staff_with

PASSWORD = "a-long-journey-password"
FORMATS = ("csv", "tsv", "jsonl")


@dataclass
class Download:
    """One export as downloaded: its file name, header (first line's cells) and parsed rows."""

    name: str
    header: list[str]
    rows: list[dict[str, Any]]


def parse_export(name: str, data: bytes) -> Download:
    text = data.decode("utf-8")
    assert not text.startswith("\ufeff") or name.endswith((".csv", ".tsv")), f"{name}: a BOM outside CSV/TSV"
    text = text.removeprefix("\ufeff")
    if name.endswith(".json"):  # one JSON array (Label Studio's tasks)
        rows = json.loads(text)
        assert isinstance(rows, list), f"{name}: not a JSON array"
        return Download(name, list(rows[0]) if rows else [], rows)
    if name.endswith(".jsonl"):
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
        return Download(name, list(rows[0]) if rows else [], rows)
    reader = csv.DictReader(io.StringIO(text, newline=""), dialect="excel-tab" if name.endswith(".tsv") else "excel")
    rows = list(reader)
    return Download(name, list(reader.fieldnames or []), rows)


class Researcher:
    """A staff member of one team, with the annotation and quality permissions (not a superuser)."""

    def __init__(self, page: Any, live_server: Any, *, username: str = "lead"):
        self.page, self.base = page, live_server.url
        self.team = TeamFactory(name=f"{username}'s lab")
        self.user = staff_with("add_", "change_", "view_", "delete_", "spend_on_channel", teams=[self.team])
        self.user.username = username
        self.user.set_password(PASSWORD)
        self.user.save()
        self.username = username

    # --- the admin ---------------------------------------------------------------------

    def log_in(self) -> None:
        self.page.goto(self.base + "/admin/login/")
        self.page.fill("#id_username", self.username)
        self.page.fill("#id_password", PASSWORD)
        with self.page.expect_navigation():
            self.page.click("input[type=submit]")
        assert "Site administration" in self.page.title()

    def messages(self) -> str:
        return self.page.inner_text(".messagelist") if self.page.locator(".messagelist").count() else ""

    def create_project(self, *, name: str, kind: str, language: str, settings: dict | None = None) -> Project:
        """The admin's "Add project" form; `settings` typed into its settings box (the quality
        rules' parameters over the kind's defaults)."""
        self.page.goto(self.base + "/admin/annotation/project/add/")
        self.page.fill("#id_name", name)
        self.page.select_option("#id_kind", kind)
        self.page.select_option("#id_language", language)
        if settings is not None:
            self.page.fill("#id_settings", json.dumps(settings))
        with self.page.expect_navigation():
            self.page.click("input[name=_continue]")
        project = Project.objects.get(name=name)
        assert project.team == self.team and project.kind == kind
        return project

    def create_project_from_task_file(self, *, name: str, task_file: Path, language: str) -> Project:
        """The admin's "Add project" form with a task file uploaded (no kind chosen: the task is
        the file's)."""
        self.page.goto(self.base + "/admin/annotation/project/add/")
        self.page.fill("#id_name", name)
        self.page.set_input_files("#id_task_file_upload", str(task_file))
        self.page.select_option("#id_language", language)
        with self.page.expect_navigation():
            self.page.click("input[name=_continue]")
        assert not self.page.locator(".errorlist").count(), self.page.inner_text(".errorlist")
        project = Project.objects.get(name=name)
        assert project.team == self.team and project.task_file == task_file.read_text(encoding="utf-8")
        return project

    def import_file(self, project: Project, path: Path) -> str:
        """The project's "Import items" page with the file; the message it answers with."""
        self.page.goto(self.base + f"/admin/annotation/project/{project.pk}/change/")
        with self.page.expect_navigation():
            self.page.click("text=Import items")
        self.page.set_input_files("input[type=file]", str(path))
        with self.page.expect_navigation():
            self.page.click("input[type=submit][value=Import]")
        assert not self.page.locator(".errorlist").count(), self.page.inner_text(".errorlist")
        return self.messages()

    def create_batch(
        self,
        project: Project,
        *,
        name: str,
        items_per_unit: int,
        annotators_per_item: int,
        channel: str = "invite",
        external_ids: Sequence[str] = (),
        use_preset: bool = False,
        channel_settings: dict[str, Any] | None = None,
        study: str = "",
    ) -> Batch:
        self.page.goto(self.base + "/admin/annotation/batch/add/")
        self.page.select_option("#id_project", str(project.pk))
        self.page.fill("#id_name", name)
        self.page.fill("#id_items_per_unit", str(items_per_unit))
        self.page.fill("#id_assignments_per_unit", str(annotators_per_item))
        self.page.select_option("#id_channel", channel)
        if channel_settings is not None:
            self.page.fill("#id_channel_settings", json.dumps(channel_settings))
        if use_preset:
            self.page.check("#id_use_preset")
        if external_ids:
            self.page.fill("#id_external_ids", "\n".join(external_ids))
        if study:
            self.page.fill("#id_study", study)
        with self.page.expect_navigation():
            self.page.click("input[name=_continue]")
        assert not self.page.locator(".errornote").count(), self.page.inner_text("#content-main")
        return Batch.objects.get(project=project, name=name)

    def run_batch_action(self, batch: Batch, action: str) -> None:
        """Tick the batch in the batch list and run one of its actions (by its label)."""
        self.page.goto(self.base + "/admin/annotation/batch/")
        self.page.check(f"input[name=_selected_action][value='{batch.pk}']")
        self.page.select_option("select[name=action]", label=action)
        with self.page.expect_navigation():
            self.page.click("button[name=index]")

    def enable_adjudication(self, batch: Batch) -> None:
        """Tick the adjudication stage on the batch's page and save."""
        self.page.goto(self.base + f"/admin/annotation/batch/{batch.pk}/change/")
        self.page.check("#id_adjudication-0-enabled")
        with self.page.expect_navigation():
            self.page.click("input[name=_continue]")
        assert "was changed successfully" in self.messages(), self.page.inner_text("#content-main")

    def invite_link(self, batch: Batch, *, action: str = "Create invite link") -> str:
        """A new link from one of the batch list's link actions, as the page shows it to copy."""
        self.run_batch_action(batch, action)
        boxes = self.page.locator("#content-main input[data-select-on-focus]")
        assert boxes.count() == 1, self.page.inner_text("#content-main")
        url = boxes.input_value()
        assert re.fullmatch(re.escape(self.base) + r"/i/[\w-]+/", url), url
        return url

    # --- recruiting sites -----------------------------------------------------------------

    def publish(self, batch: Batch) -> str:
        """ "Publish on the recruiting site": the cost page first, then "Publish"; the message."""
        self.run_batch_action(batch, "Publish on the recruiting site (shows the cost first)")
        assert self.page.locator("input[type=submit][value^=Publish]").count() == 1, self.page.inner_text("h1")
        with self.page.expect_navigation():
            self.page.click("input[type=submit][value^=Publish]")
        assert f"Publishing “{batch.name}”" in self.messages(), self.messages()
        return self.messages()

    def sync(self, batch: Batch) -> str:
        self.run_batch_action(batch, "Sync submissions from the recruiting site now")
        return self.messages()

    def review(self, batch: Batch, *, reject_feedback: str) -> str:
        """Approve and reject the site's submissions as the latest quality run decided."""
        self.run_batch_action(batch, "Review the recruiting site's work from the quality run…")
        self.page.check("input[name=operation][value=review]")
        self.page.fill("textarea[name=reject_feedback]", reject_feedback)
        with self.page.expect_navigation():
            self.page.click("input[type=submit][name=apply]")
        return self.messages()

    # --- the quality report -------------------------------------------------------------

    def open_report(self, project: Project) -> None:
        self.page.goto(self.base + f"/admin/annotation/project/{project.pk}/change/")
        with self.page.expect_navigation():
            self.page.click("text=Quality report")

    def run_quality(self, project: Project) -> str:
        """ "Run quality now" on the project's report; the report's text once the run is shown."""
        self.open_report(project)
        with self.page.expect_navigation():
            self.page.click("input[type=submit][value='Run quality now']")
        assert "finished" in self.messages(), self.messages()
        return self.page.inner_text("#content-main")

    def download_exports(self, project: Project) -> dict[str, Download]:
        """Every dataset x format the report offers, downloaded with its button and parsed back."""
        self.open_report(project)
        hrefs = self.page.locator("#exports a.button[download]").evaluate_all("links => links.map(a => a.href)")
        found: dict[str, Download] = {}
        for href in hrefs:
            key = href.rsplit("/", 1)[-1]  # <dataset>.<format>
            self.open_report(project)
            button = self.page.locator(f"#exports a.button[download][href$='/{key}']")
            try:
                with self.page.expect_download() as info:
                    button.click()
                download = info.value
            except Exception as exc:  # the page instead of a file: say which button and what it shows
                raise AssertionError(f"{key}: no download ({self.messages() or self.page.url})") from exc
            assert download.suggested_filename.endswith(key.rsplit(".", 1)[-1]), download.suggested_filename
            found[key] = parse_export(key, Path(download.path()).read_bytes())
        return found

    def prepare_hub_folder(self, project: Project, target: Path, *, license: str, splits: str = "") -> str:
        """The report's "Prepare Hub folder" form (a licence; by batch with `splits` such as
        "test=3"), then the job's Download button; the zip unpacked into `target`. The message."""

        self.open_report(project)
        form = self.page.locator("form.hub-form")
        form.get_by_label("Licence").fill(license)
        if splits:
            form.get_by_label("Splits").select_option("batch")
            form.get_by_label("Mapping").fill(splits)
        with self.page.expect_navigation():
            form.locator("input[type=submit]").click()
        message = self.messages()
        job = ExportJob.objects.filter(project=project, dataset="hub").latest("pk")
        self.open_report(project)  # the page lists the job once written
        with self.page.expect_download() as info:
            self.page.locator(f"table.export-jobs a[href$='/exports/{job.pk}/download']").click()
        with zipfile.ZipFile(info.value.path()) as archive:
            archive.extractall(target)
        return message

    def download_bytes(self, project: Project, dataset: str, fmt: str) -> bytes:
        """One export's bytes, through its button on the report (to hand to a scorer as a file)."""
        self.open_report(project)
        with self.page.expect_download() as info:
            self.page.locator(f"#exports a.button[download][href$='/{dataset}.{fmt}']").click()
        return Path(info.value.path()).read_bytes()

    # --- the API, through a real HTTP client ----------------------------------------------

    def api(self) -> requests.Session:
        session = requests.Session()
        session.auth = (self.username, PASSWORD)
        return session

    def scorers(self, project: Project) -> list[str]:
        """The names of the scorers the project's kind offers (the scores API's listing)."""
        listing = self.api().get(f"{self.base}/api/projects/{project.pk}/scores/", timeout=30)
        assert listing.status_code == 200, listing.text
        return [scorer["name"] for scorer in listing.json()]

    def score(
        self, project: Project, scorer: str, *, files: dict[str, tuple[str, bytes]] | None = None
    ) -> dict[str, Any]:
        """One scorer run on the project with the files given (field -> (file name, bytes))."""
        answer = self.api().post(
            f"{self.base}/api/projects/{project.pk}/scores/{scorer}/",
            files={field: (name, data) for field, (name, data) in (files or {}).items()},
            timeout=60,
        )
        assert answer.status_code == 200, (scorer, answer.status_code, answer.text)
        return answer.json()
