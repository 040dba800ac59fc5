"""The reason of an adjudicator's own value quoted the two annotations as stored (GCRC's
supporting sentences as indexes from 0) while the pages and the final-labels export number them
from 1: rewrite those reasons as `own_value_reason` now writes them. Only reasons whose values
the kind shows otherwise change (every other kind shows values as stored); a reason that does not
read as the two quoted values is left as it is."""

import ast

from django.db import migrations

PREFIX = "the adjudicator's own value, given by neither annotator (the annotations: "


def quoted_values(reason):
    """The two values a reason quotes (as `repr` wrote them), or None when it does not read so."""
    if not reason.startswith(PREFIX) or not reason.endswith(")"):
        return None
    try:
        values = ast.literal_eval("(" + reason[len(PREFIX) : -1] + ",)")
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return values if isinstance(values, tuple) and len(values) == 2 else None


def numbered_as_shown(apps, schema_editor):
    from annotation.kinds import TaskFileError, UnknownKind, kind_of
    from annotation.services.adjudication import own_value_reason

    FinalLabel = apps.get_model("annotation", "FinalLabel")
    Project = apps.get_model("annotation", "Project")
    kinds = {}
    labels = FinalLabel.objects.filter(reason__startswith=PREFIX).select_related("item")
    for label in labels.iterator(2000):
        values = quoted_values(label.reason)
        if values is None:
            continue
        project_id = label.item.project_id
        if project_id not in kinds:
            try:
                kinds[project_id] = kind_of(Project.objects.get(pk=project_id))
            except (UnknownKind, TaskFileError):  # a kind no longer registered, a file no longer loading
                kinds[project_id] = None
        kind = kinds[project_id]
        if kind is None:
            continue
        reason = own_value_reason(kind, label.field, *values)
        if reason != label.reason:
            FinalLabel.objects.filter(pk=label.pk).update(reason=reason)


class Migration(migrations.Migration):
    dependencies = [("annotation", "0025_submission_ended")]

    operations = [migrations.RunPython(numbered_as_shown, migrations.RunPython.noop)]
