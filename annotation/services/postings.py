"""Changing a batch's postings on its channel: close them, extend them, add places
(re-annotating a block)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta

from django.utils import timezone

from annotation.channels import ChannelError, UnitState, get_channel, request_token
from annotation.channels.calls import records_calls
from annotation.models import Batch, Posting, Unit

from .publish import PublishRefused, check_balance, check_publishable, cost_estimate


@dataclass
class PostingsReport:
    changed: int = 0
    failed: dict[int, str] = field(default_factory=dict)  # unit position -> reason

    def summary(self, verb: str) -> str:
        text = f"{verb} {self.changed} posting(s)"
        if self.failed:
            text += "; failed: " + "; ".join(f"unit #{p}: {r}" for p, r in sorted(self.failed.items()))
        return text


def _published(batch: Batch, positions: Iterable[int] | None) -> list[Unit]:
    units = batch.units.exclude(channel_ref="").order_by("position")
    if positions is not None:
        wanted = set(positions)
        units = units.filter(position__in=wanted)
        missing = wanted - set(units.values_list("position", flat=True))
        if missing:
            raise PublishRefused(f"no published unit at position(s) {', '.join(map(str, sorted(missing)))}")
    return list(units)


def _each(batch: Batch, positions: Iterable[int] | None, change: Callable[[Unit], UnitState]) -> PostingsReport:
    check_publishable(batch)
    report = PostingsReport()
    asked: set[str] = set()  # units sharing one posting (a Prolific study) change it once
    for unit in _published(batch, positions):
        if unit.channel_ref in asked:
            continue
        asked.add(unit.channel_ref)
        try:
            state = change(unit)
        except ChannelError as exc:
            report.failed[unit.position] = str(exc)
            continue
        Posting.objects.filter(ref=state.ref).update(
            status=state.status,
            expiration=state.expiration,
            places=state.max_assignments,
            updated_at=timezone.now(),
        )
        report.changed += 1
    return report


@records_calls
def postings_expire(*, batch: Batch, positions: Iterable[int] | None = None) -> PostingsReport:
    """Stop new participants from taking the batch's postings (work already taken may still come in)."""
    channel = get_channel(batch.channel)
    return _each(batch, positions, lambda unit: channel.close_unit(unit.channel_ref))


@records_calls
def postings_pause(*, batch: Batch) -> PostingsReport:
    """Stop new participants for now (people already in finish); ``postings_resume`` reopens."""
    channel = get_channel(batch.channel)
    return _each(batch, None, lambda unit: channel.pause_unit(unit.channel_ref))


@records_calls
def postings_resume(*, batch: Batch) -> PostingsReport:
    channel = get_channel(batch.channel)
    return _each(batch, None, lambda unit: channel.resume_unit(unit.channel_ref))


@records_calls
def postings_extend(*, batch: Batch, hours: int, positions: Iterable[int] | None = None) -> PostingsReport:
    """Keep the postings open ``hours`` longer than now or their current expiration, whichever is later."""
    if not 1 <= hours <= 365 * 24:
        raise PublishRefused("extend by 1 hour to 365 days")
    channel = get_channel(batch.channel)
    now = timezone.now()

    def extend(unit: Unit) -> UnitState:
        hit = unit.postings.filter(ref=unit.channel_ref).first()
        start = max(now, hit.expiration) if hit is not None and hit.expiration else now
        return channel.extend_unit(unit.channel_ref, until=start + timedelta(hours=hours))

    return _each(batch, positions, extend)


@records_calls
def places_add(*, batch: Batch, number: int, label: str, positions: Iterable[int] | None = None) -> PostingsReport:
    """``number`` more assignments on each chosen HIT (re-annotating a bad block).

    ``label`` names this request: the same label again (a second click, a retry) adds nothing
    more, through the request token. Refused when the balance cannot cover the extra work;
    MTurk refuses to take a HIT from fewer than 10 assignments to 10 or more (the unit fails
    with that reason).
    """
    if number < 1:
        raise PublishRefused("add at least one assignment")
    if not label.strip():
        raise PublishRefused("name the request (a label), so a repeat adds nothing twice")
    check_publishable(batch)
    units = _published(batch, positions)
    top = max((h.places for u in units for h in u.postings.all()), default=batch.assignments_per_unit)
    check_balance(
        cost_estimate(batch=batch, units=len(units), assignments_per_unit=number, max_assignments=top + number)
    )
    channel = get_channel(batch.channel)
    chosen = [u.position for u in units]
    return _each(
        batch,
        chosen,
        lambda unit: channel.add_assignments(
            unit.channel_ref, number=number, request_token=request_token("add", unit.channel_ref, label, number)
        ),
    )
