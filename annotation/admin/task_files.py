"""The project form of the admin: a project of a registered kind, or one made from a task file
(uploaded or pasted), whose problems are shown on the field they came from, one a line."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.utils.html import format_html
from django.utils.safestring import SafeString

from annotation.kinds import (
    TaskFileError,
    TaskKind,
    get_kind,
    kind_choices,
    kind_of,
    task_file_kind,
    task_file_replacement_problem,
)
from annotation.models import Project, Response
from annotation.validators import LoaderDecoder

UPLOAD, PASTE = "task_file_upload", "task_file_text"


def task_file_problems(error: TaskFileError) -> list[str]:
    """One message per problem, with its line and key path ("line 14, pages[0].questions[1].type: ...")."""
    return [str(problem) for problem in error.problems] or ["The task file is not valid."]


def task_file_pretty(text: str) -> SafeString | str:
    """The file as the researcher wrote it (YAML keeps its lines, so error lines match); a JSON
    file written on one line is indented to be readable."""
    if not text:
        return "—"
    try:
        shown = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        shown = text
    return format_html("<pre class='json-value task-file'>{}</pre>", shown)


def _lines(text: str) -> str:
    """A browser posts a text area's lines ending in CRLF: stored (and compared) with LF."""
    return text.replace("\r\n", "\n")


def _read_upload(upload: UploadedFile) -> str:
    try:
        return _lines(upload.read().decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise forms.ValidationError("The task file must be UTF-8 text (YAML or JSON).") from None


class ProjectForm(forms.ModelForm):
    """New project: a kind, or a task file (the kind is then the file's). An existing project's
    task file may be replaced by a new one here (pasted or uploaded); the change is checked the
    way `project_task_file_change` checks it, so a refusal is shown on the field."""

    kind = forms.ChoiceField(
        choices=[("", "—"), *kind_choices()],
        required=False,
        label="Task kind",
        help_text="Decides the import format, the annotator pages and the quality rules. Fixed once created. "
        "Leave empty when you give a task file.",
    )
    task_file_upload = forms.FileField(
        required=False,
        label="Task file (upload)",
        help_text="A task file (YAML or JSON, see docs/task-files.md): the task is then the file's.",
    )
    task_file_text = forms.CharField(
        required=False,
        strip=False,
        label="Task file (paste)",
        widget=forms.Textarea(attrs={"rows": 16, "cols": 100, "class": "vLargeTextField task-file-text"}),
        help_text="Or paste the task file's text here.",
    )
    language = forms.ChoiceField(choices=settings.LANGUAGES, help_text="Language of the annotator pages.")
    # read by the one loader: NUL, a lone surrogate, NaN or deep nesting is "Enter a valid JSON."
    settings = forms.JSONField(required=False, decoder=LoaderDecoder, initial=dict)

    class Meta:
        model = Project
        fields = ["name", "team", "kind", "language", "instructions", "settings"]
        help_texts = {
            "settings": "JSON overrides of the kind's default settings (listed below once saved), "
            'e.g. {"min_accuracy": 0.5}.',
        }

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.task_file = ""  # the new file's text, once clean() has read it
        self.task_kind: TaskKind | None = None
        if self.instance.pk is not None and PASTE in self.fields:
            self.fields[PASTE].initial = self.instance.task_file
            self.fields[PASTE].label = "Task file"
            self.fields[PASTE].help_text = (
                "Edit the text, or upload a new file below. Once the project has annotations only the "
                "file's words may change (titles, prompts, labels, translations)."
            )
            self.fields[UPLOAD].label = "Replace the task file (upload)"
            self.fields[UPLOAD].help_text = "A new version of the task file, instead of editing it above."

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        text, source = self._task_file_text(data)
        if text is not None and source is not None:
            try:
                self.task_kind = task_file_kind(text)
            except TaskFileError as exc:
                self.add_error(source, task_file_problems(exc))
                return data
            if self.instance.pk is not None:
                self._check_change(text, source)
            self.task_file = text
        elif self.instance.pk is None:
            if not data.get("kind"):
                self.add_error("kind", "Choose a task kind, or give a task file.")
            else:
                self.task_kind = get_kind(data["kind"])
        else:
            self.task_kind = kind_of(self.instance)
        self._check_settings(data)
        return data

    def _task_file_text(self, data: dict[str, Any]) -> tuple[str | None, str | None]:
        """(text, field it came from), or (None, None) when no new file is given. On a change
        page the pasted text is the current file, so only a different text is a new one."""
        upload, pasted = data.get(UPLOAD), _lines(data.get(PASTE) or "")
        existing = self.instance.task_file if self.instance.pk is not None else ""
        if upload and pasted.strip() and pasted != existing:
            self.add_error(UPLOAD, "Give the task file once: uploaded or pasted, not both.")
            return None, None
        if upload:
            try:
                return _read_upload(upload), UPLOAD
            except forms.ValidationError as exc:
                self.add_error(UPLOAD, exc)
                return None, None
        if pasted.strip() and pasted != existing:
            return pasted, PASTE
        if self.instance.pk is not None and existing and not pasted.strip():
            self.add_error(PASTE, "A project made from a task file keeps one; paste or upload its new version.")
        return None, None

    def _check_change(self, text: str, source: str) -> None:
        """The service's rule, checked here so a refusal is shown on the field instead of after
        the save (the service checks it again when saving)."""
        answered = Response.objects.filter(item__project=self.instance).exists()
        problem = task_file_replacement_problem(self.instance, text, answered=answered)
        if problem is not None:
            self.add_error(source, problem[:1].upper() + problem[1:] + ".")

    def _check_settings(self, data: dict[str, Any]) -> None:
        """A misspelt setting would be silently ignored by the quality run; name it instead."""
        value = data.get("settings") or {}
        if not isinstance(value, dict):
            self.add_error("settings", "Settings must be a JSON object.")
            return
        if self.task_kind is None:
            return
        known = self.task_kind.settings_for(None)
        unknown = sorted(set(value) - set(known))
        if unknown:
            self.add_error("settings", f"Unknown setting(s) {unknown}; this kind knows: {sorted(known)}.")
        for problem in self.task_kind.settings_problems(value):
            self.add_error("settings", problem[:1].upper() + problem[1:] + ".")
