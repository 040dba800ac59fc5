"""Entries under a recruiting site's ids (DESIGN.md, "Trust in channel ids"): anybody can type
a worker's id and a made-up assignment or session id into our entry URL, so the site's word is
asked before work is handed out where it can give it (``Channel.confirm_entry``), and work it
has not confirmed is held apart (``Assignment.confirmed``) until sync confirms it."""

from __future__ import annotations

from annotation.channels import Channel, EntryCheck
from annotation.models import Assignment, Batch


def entry_confirm(*, channel: Channel, batch: Batch, participant: str, posting: str, work: str) -> EntryCheck:
    """The site's word on an entry into ``batch``. Work already confirmed under the same ids (a
    reload, a return after the last page) is not asked about again; a channel whose entries
    need no confirmation (an invite link's token was made here) is never asked."""
    if not channel.entries_need_confirmation:
        return EntryCheck(confirmed=True)
    known = Assignment.objects.filter(
        unit__batch=batch,
        annotator__channel=channel.slug,
        annotator__external_id=participant,
        channel_assignment_id=work,
        confirmed=True,
    )
    if known.exists():
        return EntryCheck(confirmed=True)
    return channel.confirm_entry(participant=participant, posting=posting, work=work)


def unconfirmed_reason(check: EntryCheck) -> str:
    """What an admitted entry records as the reason it is held apart ("" when confirmed)."""
    return "" if check.confirmed else (check.reason or "not confirmed by the recruiting site yet")
