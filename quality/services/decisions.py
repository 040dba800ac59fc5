"""A researcher's own verdict on one annotation, and how quality runs respect it.

The automatic rules decide who is kept; a researcher who has read an item's annotations side by
side (the item page) may overrule them for one annotation. Every run after that keeps an accepted
annotation whatever the rules say and drops a rejected one, with the note as its reason, so the
clean exports, the agreement figures and the review follow the researcher.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd
from django.db import transaction
from django.utils import timezone

from annotation.kinds import QualityOutcome
from annotation.models import Project, Response
from quality.models import ResearcherDecision

#: the value column a run adds (when a project has researcher decisions): who decided, and when
VALUE_COLUMN = "researcher_decision"
PAST = {ResearcherDecision.Decision.ACCEPT: "accepted", ResearcherDecision.Decision.REJECT: "rejected"}


class DecisionRefused(ValueError):
    """The decision cannot be recorded as asked (an unknown decision, a rejection without a note)."""


def response_decide(*, response: Response, decision: str, note: str, by: Any) -> ResearcherDecision:
    """Accept or reject `response` (the researcher `by` may reach its project: the caller checks),
    replacing an earlier decision on it. A rejection needs a note: it is the reason the
    annotation is dropped. Takes effect at the next quality run."""
    if decision not in ResearcherDecision.Decision.values:
        raise DecisionRefused(f"a decision is one of {', '.join(ResearcherDecision.Decision.values)}, not {decision!r}")
    note = note.strip()
    if decision == ResearcherDecision.Decision.REJECT and not note:
        raise DecisionRefused("a rejection needs a note: it is the reason the annotation is dropped")
    with transaction.atomic():
        found, _created = ResearcherDecision.objects.update_or_create(
            response=response,
            defaults={"decision": decision, "note": note, "decided_by": by, "decided_at": timezone.now()},
        )
    return found


def decisions_respected(outcome: QualityOutcome, project: Project) -> QualityOutcome:
    """`outcome` with the project's researcher decisions over the rules' verdicts: accepted
    annotations kept (the rules' reasons stay, marked overruled), rejected ones dropped with
    "rejected by researcher: <note>" first; and a value column saying who decided and when."""
    fields = ("response_id", "decision", "note", "decided_by__username", "decided_at")
    decided = {
        rid: rest
        for rid, *rest in ResearcherDecision.objects.filter(response__item__project=project).values_list(*fields)
    }
    responses = outcome.responses
    if not decided or responses.empty:
        return outcome
    keep: list[bool] = []
    reasons: list[list[str]] = []
    provenance: list[str | None] = []
    for rid, kept, why in zip(responses.index, responses["keep"], responses["reasons"], strict=True):
        found = decided.get(int(rid))
        if found is None:
            keep.append(bool(kept))
            reasons.append(list(why))
            provenance.append(None)
            continue
        decision, note, who, when = found
        if decision == ResearcherDecision.Decision.ACCEPT:
            keep.append(True)
            accepted = f"accepted by researcher: {note}" if note else "accepted by researcher"
            reasons.append([accepted, *(f"overruled: {r}" for r in why)])
        else:
            keep.append(False)
            reasons.append([f"rejected by researcher: {note}", *why])
        provenance.append(f"{PAST[decision]} by {who or 'a deleted account'} on {when:%Y-%m-%d %H:%M}")
    changed = responses.assign(
        keep=pd.Series(keep, index=responses.index, dtype=bool),
        reasons=pd.Series(reasons, index=responses.index, dtype=object),
        **{VALUE_COLUMN: pd.Series(provenance, index=responses.index, dtype=object)},
    )
    return dataclasses.replace(outcome, responses=changed)
