"""Making batches of a project's items and the links that hand them out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction

from annotation.channels import get_channel
from annotation.kinds import kind_of
from annotation.models import Batch, InviteLink, Item, ModelConnection, Project, Unit, UnitItem
from annotation.studies import build as build_study


class BatchError(ValueError):
    pass


#: how a batch shows its model's labels to annotators (`Batch.suggestions`)
SUGGESTION_MODES = ("off", "hint", "preselect")
#: a batch's model settings, beside the adaptive ones
SUGGESTION_FIELDS = ("model", "suggestions")
ADAPTIVE_FIELDS = ("adaptive", "min_annotators", "max_annotators", "target_confidence", "min_competence", "model_votes")


def adaptive_problem(values: dict[str, Any]) -> str:
    """What is wrong with a batch's adaptive redundancy settings ("": nothing)."""
    unknown = sorted(set(values) - set(ADAPTIVE_FIELDS))
    if unknown:
        return f"unknown adaptive setting(s): {', '.join(unknown)}"
    low, high = values.get("min_annotators", 2), values.get("max_annotators", 5)
    if low < 1 or high < 1:
        return "min_annotators and max_annotators must be at least 1"
    if low > high:
        return f"min_annotators ({low}) cannot be above max_annotators ({high})"
    target = values.get("target_confidence", 0.98)
    if not 0.5 <= target <= 0.9999:
        return f"target_confidence must be between 0.5 and 0.9999, not {target}"
    competence = values.get("min_competence")
    if competence is not None and not 0 <= competence <= 1:
        return f"min_competence must be between 0 and 1, not {competence}"
    return ""


def suggestions_problem(*, project: Project, model: ModelConnection | None, suggestions: str) -> str:
    """What is wrong with a batch's model and suggestions ("": nothing): the model must be one of
    the project's team's, and suggestions need a model."""
    if suggestions not in SUGGESTION_MODES:
        return f"suggestions must be one of {', '.join(SUGGESTION_MODES)}, not {suggestions!r}"
    if model is not None and model.team_id != project.team_id:
        return "the model must be one of the project's team's model connections"
    if suggestions != "off" and model is None:
        return "suggestions need a model: choose the model whose labels annotators see"
    return ""


def batch_create(
    *,
    project: Project,
    name: str,
    items: Iterable[Item] | None = None,
    items_per_unit: int = 5,
    assignments_per_unit: int = 3,
    channel: str = "invite",
    release_after_minutes: int = 60,
    channel_settings: dict | None = None,
    handout: str = Batch.Handout.OVERLAP,
    pilot_items: int = 0,
    study: str = "",
    adaptive: dict[str, Any] | None = None,
    model: ModelConnection | None = None,
    suggestions: str = "off",
) -> Batch:
    """Split the items (default: all of the project's) into units of `items_per_unit`, in order.

    Each unit is then handed to `assignments_per_unit` distinct annotators, in the `handout`
    order (`Batch.Handout`; overlap first by default: with two or more annotators per item they
    share units from the start, so agreement and adjudication need not wait for the whole batch;
    with one the two orders are the same). For kinds with exclusive groups, the members of a
    group go to different units (first members first). The project's consistency set
    (`settings["consistency_items"]`, external ids) becomes one unit that every annotator does
    first; its groups leave the regular units. The first `pilot_items` of the rest become pilot
    units, which every annotator does next (for exclusive groups: one item of a group each, and
    their groups leave the regular units, as the consistency set's do). `model` and `suggestions`:
    the model whose labels the pages show, and how (docs/models.md).
    """
    get_channel(channel)  # unknown channel: fail before writing
    if problem := suggestions_problem(project=project, model=model, suggestions=suggestions):
        raise BatchError(problem)
    adaptive = adaptive or {}
    if adaptive_problem(adaptive):
        raise BatchError(adaptive_problem(adaptive))
    study_check(study)
    problem = study_project_problem(project, study)
    if problem:
        raise BatchError(problem)
    if items_per_unit < 1 or assignments_per_unit < 1:
        raise BatchError("items per unit and annotators per item must both be at least 1")
    if pilot_items < 0 or handout not in Batch.Handout.values:
        raise BatchError(f"pilot items must be 0 or more and the hand-out order one of {Batch.Handout.values}")
    item_ids = (
        [i.pk for i in items]
        if items is not None
        else list(Item.objects.data().filter(project=project).order_by("id").values_list("id", flat=True))
    )
    if not item_ids:
        raise BatchError("the batch has no items: import items into the project first")
    if Item.objects.filter(pk__in=item_ids).exclude(project=project).exists():
        raise BatchError("every item of a batch must belong to the batch's project")
    checks = list(
        Item.objects.filter(pk__in=item_ids, check_answer__isnull=False).values_list("external_id", flat=True)
    )
    if checks:
        raise BatchError(
            f"check items are mixed into the work by the batch's study, never handed out as items: {', '.join(checks[:10])}"
        )
    exclusive = kind_of(project).exclusive_groups
    consistency_ids, item_ids = _split_consistency(project, item_ids)
    pilot_ids, item_ids = _split_pilot(item_ids, pilot_items, exclusive)
    if exclusive:
        item_ids = _spread_groups(item_ids, items_per_unit)
    if not item_ids:
        raise BatchError("the batch has no items besides the consistency set and the pilot")
    with transaction.atomic():
        batch = Batch.objects.create(
            project=project,
            name=name,
            channel=channel,
            items_per_unit=items_per_unit,
            assignments_per_unit=assignments_per_unit,
            release_after_minutes=release_after_minutes,
            channel_settings=channel_settings or {},
            handout=handout,
            pilot_items=len(pilot_ids),
            study=study,
            model=model,
            suggestions=suggestions,
            **adaptive,
        )
        pilots, chunks = _chunks(pilot_ids, items_per_unit), _chunks(item_ids, items_per_unit)
        kinds = [(True, False)] * bool(consistency_ids) + [(True, True)] * len(pilots) + [(False, False)] * len(chunks)
        chunks = [consistency_ids] * bool(consistency_ids) + pilots + chunks
        units = Unit.objects.bulk_create(
            [
                Unit(batch=batch, position=n, every_annotator=every, pilot=pilot)
                for n, (every, pilot) in enumerate(kinds)
            ]
        )
        UnitItem.objects.bulk_create(
            [
                UnitItem(unit=unit, item_id=item_id, position=p)
                for unit, chunk in zip(units, chunks)
                for p, item_id in enumerate(chunk)
            ],
            batch_size=2000,
        )
    return batch


def _chunks(item_ids: list[int], size: int) -> list[list[int]]:
    return [item_ids[i : i + size] for i in range(0, len(item_ids), size)]


def _split_pilot(item_ids: list[int], size: int, exclusive: bool) -> tuple[list[int], list[int]]:
    """(the first `size` items, the rest). Exclusive groups: one item of a group in the pilot, and
    no item of a pilot group in the rest, since everyone does the pilot and may not do a second
    item of its groups."""
    if not size:
        return [], item_ids
    if not exclusive:
        return item_ids[:size], item_ids[size:]
    groups = dict(Item.objects.filter(pk__in=item_ids).values_list("id", "group_key"))
    pilot: list[int] = []
    taken: set[str] = set()
    for item_id in item_ids:
        key = groups[item_id] or f"#{item_id}"
        if len(pilot) < size and key not in taken:
            pilot.append(item_id)
            taken.add(key)
    return pilot, [i for i in item_ids if (groups[i] or f"#{i}") not in taken]


def _split_consistency(project: Project, item_ids: list[int]) -> tuple[list[int], list[int]]:
    """(the consistency items, the remaining items without any item of a consistency group)."""
    wanted = [str(e) for e in (project.settings or {}).get("consistency_items") or []]
    if not wanted:
        return [], item_ids
    found = dict(Item.objects.filter(project=project, external_id__in=wanted).values_list("external_id", "id"))
    missing = [e for e in wanted if e not in found]
    if missing:
        raise BatchError(f"the project's consistency set names items that do not exist: {', '.join(missing[:5])}")
    consistency = [found[e] for e in wanted]
    groups = set(Item.objects.filter(pk__in=consistency).exclude(group_key="").values_list("group_key", flat=True))
    taken = set(consistency) | set(
        Item.objects.filter(project=project, group_key__in=groups).values_list("id", flat=True)
    )
    return consistency, [i for i in item_ids if i not in taken]


def _spread_groups(item_ids: list[int], items_per_unit: int) -> list[int]:
    """Order items so that no unit of `items_per_unit` consecutive items holds two of a group:
    every group's first member, then every second member, and so on."""
    groups = dict(Item.objects.filter(pk__in=item_ids).values_list("id", "group_key"))
    rank: dict[int, int] = {}
    count: dict[str, int] = {}
    for item_id in item_ids:
        key = groups[item_id] or f"#{item_id}"
        rank[item_id] = count.get(key, 0)
        count[key] = rank[item_id] + 1
    ordered = sorted(item_ids, key=lambda i: rank[i])  # stable: import order within a rank
    for start in range(0, len(ordered), items_per_unit):
        chunk = [groups[i] for i in ordered[start : start + items_per_unit] if groups[i]]
        if len(chunk) != len(set(chunk)):
            raise BatchError(
                f"{items_per_unit} items per unit is too many for {len(count)} groups: a unit would hold two "
                "items of one group (e.g. both contexts of a pair); use fewer items per unit"
            )
    return ordered


def invite_link_create(
    *, batch: Batch, label: str = "", max_annotators: int | None = None, role: str = "annotator"
) -> InviteLink:
    """A link people join the batch by; `role` "adjudicator": they decide its disagreements."""
    return InviteLink.objects.create(batch=batch, label=label, max_annotators=max_annotators, role=role)


def channel_settings_check(*, project: Project, channel: str, channel_settings: dict) -> None:
    """Raise ChannelSettingsError (naming every problem) when `channel_settings` are not valid
    for `channel`, before a batch is made with them: the channel checks an unsaved batch."""
    batch = Batch(project=project, channel=channel, channel_settings=channel_settings)
    get_channel(channel).check_settings(batch)


def study_check(text: str) -> None:
    """Raise StudyFileError naming every mistake of a study file (its key path and line)."""
    build_study(text)


def study_project_problem(project: Project, text: str) -> str:
    """What a (checked) study file asks of the project that it lacks: training items must be
    check items of the project, whose expected answers give the feedback. Empty: nothing."""
    training = build_study(text).training
    if training is None:
        return ""
    found = set(
        Item.objects.filter(project=project, external_id__in=training.items, check_answer__isnull=False).values_list(
            "external_id", flat=True
        )
    )
    missing = [external_id for external_id in training.items if external_id not in found]
    if missing:
        return (
            f"training.items: not check items of the project (mark them with their expected answers first, "
            f"manage.py mark_checks): {', '.join(missing[:10])}"
        )
    return ""


def study_change_problem(batch: Batch, text: str) -> str:
    """Why the batch's study file may not become `text` (empty: it may). Once somebody has
    answered a step, the steps are fixed: their answers were given to these questions."""
    if text.strip() == batch.study.strip() or batch.pk is None:
        return ""
    answered = [
        p for p in batch.participations.only("consent", "attempts", "exit_at") if p.consent or p.attempts or p.exit_at
    ]
    if answered:
        return (
            f"{len(answered)} person(s) have answered this batch's study steps already; "
            "make a new batch for other steps."
        )
    return ""
