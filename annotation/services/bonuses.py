"""Bonuses on a recruiting site, once per participant and round (``label``), whatever happens.

A site that pays one by one (MTurk) gets one call per participant with a request token that makes
a repeat a no-op there. A site that pays in bulk (Prolific) gets one order per round (split only
where the site caps the rows per order): set up, then paid. Paying an order again pays again, so
its state is saved before each step (``BulkPayment``): an order whose pay call got no usable
answer stays ``paying`` and is never sent again; one refused (a short balance) goes back to
``set_up`` and the next run pays that same order; one never set up is dropped and made afresh.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from annotation.channels import Channel, ChannelError, ChannelOutcomeUnknown, request_token
from annotation.channels.calls import records_calls
from annotation.models import Batch, BulkPayment, Payment, Submission

from .review import Decisions, ReviewError, ReviewReport, review_check, submissions_chosen

OPEN = (BulkPayment.State.NEW, BulkPayment.State.SET_UP)


def bonus_amount(amount: str) -> Decimal:
    """``amount`` as money: positive, whole cents (or pence); ReviewError otherwise."""
    try:
        value = Decimal(str(amount))
    except InvalidOperation:
        raise ReviewError(f"{amount!r} is not an amount of money") from None
    if not value.is_finite() or value <= 0 or value != value.quantize(Decimal("0.01")):
        raise ReviewError("a bonus is a positive amount with at most two decimals (cents or pence)")
    return value


@records_calls
def bonus_pay(
    *,
    batch: Batch,
    amount: str,
    reason: str,
    who: str = "kept",
    decisions: Decisions | None = None,
    label: str = "bonus",
) -> ReviewReport:
    """Pay ``amount`` once per participant ``who`` names (the quality run's kept ones by default),
    on their latest verified submission; the same ``label`` again pays nobody twice.

    Safe to repeat after any failure: see the module's docstring. ``reason`` is kept with each
    payment (and shown to MTurk workers; Prolific's bulk bonus has no text).
    """
    value = bonus_amount(amount)
    if not reason.strip():
        raise ReviewError("a bonus needs a reason (the worker sees it)")
    if not label.strip():
        raise ReviewError("name the bonus round (a label), so a repeat pays nobody twice")
    channel = review_check(batch=batch, operation="bonus")
    chosen = submissions_chosen(batch=batch, who=who, decisions=decisions)
    if channel.bulk_bonus_rows:
        return _in_bulk(batch, channel, chosen, value=value, reason=reason, label=label)
    return _one_by_one(batch, channel, chosen, value=value, reason=reason, label=label)


def _token(batch: Batch, sub: Submission, label: str) -> str:
    return request_token("bonus", batch.pk, batch.created_at.isoformat(), sub.participant_ref, label)


def _one_by_one(
    batch: Batch, channel: Channel, chosen: list[Submission], *, value: Decimal, reason: str, label: str
) -> ReviewReport:
    report = ReviewReport()
    for sub in chosen:
        if sub.assignment is None:  # chosen submissions are verified work of ours: never the case
            continue
        token = _token(batch, sub, label)
        # recorded before paying: a crash or a lost answer never leads to paying it again
        payment, created = Payment.objects.get_or_create(
            request_token=token, defaults=dict(submission=sub, amount=value, reason=reason)
        )
        if not created:
            report.skipped[sub.participant_ref] = f"already paid this bonus ({label})"
            continue
        try:
            channel.bonus(sub.assignment, amount=f"{value:.2f}", reason=reason, request_token=token)
        except ChannelError as exc:  # refused, or unknown: the token makes sending it again safe
            payment.delete()
            report.failed[sub.participant_ref] = str(exc)
            continue
        report.paid += 1
    return report


def _in_bulk(
    batch: Batch, channel: Channel, chosen: list[Submission], *, value: Decimal, reason: str, label: str
) -> ReviewReport:
    report, fresh = ReviewReport(), []
    for sub in chosen:
        payment, created = Payment.objects.select_related("bulk").get_or_create(
            request_token=_token(batch, sub, label), defaults=dict(submission=sub, amount=value, reason=reason)
        )
        if created:
            fresh.append(payment)
        elif payment.bulk is None or payment.bulk.state not in OPEN:
            report.skipped[sub.participant_ref] = f"already paid this bonus ({label})"
    _orders_make(batch, label, fresh, rows=channel.bulk_bonus_rows)
    for order in BulkPayment.objects.filter(batch=batch, label=label, state__in=OPEN).order_by("part"):
        _order_send(channel, batch, order, report)
    return report


def _orders_make(batch: Batch, label: str, payments: list[Payment], *, rows: int) -> None:
    """New orders of at most ``rows`` payments each (state ``new``: nothing sent yet)."""
    with transaction.atomic():
        Batch.objects.select_for_update().filter(pk=batch.pk).first()  # one runner numbers the parts
        part = BulkPayment.objects.filter(batch=batch, label=label).aggregate(top=Max("part"))["top"] or 0
        for start in range(0, len(payments), rows):
            chunk = payments[start : start + rows]
            part += 1
            order = BulkPayment.objects.create(
                batch=batch, label=label, part=part, total=sum((p.amount for p in chunk), start=Decimal(0))
            )
            Payment.objects.filter(pk__in=[p.pk for p in chunk]).update(bulk=order)


def _order_send(channel: Channel, batch: Batch, order: BulkPayment, report: ReviewReport) -> None:
    """Set the order up (when new), claim it, pay it: each step saved before the next."""
    payments = list(order.payments.select_related("submission"))
    who = [p.submission.participant_ref for p in payments]
    orders = BulkPayment.objects.filter(pk=order.pk)
    if order.state == BulkPayment.State.NEW:
        try:
            ref = channel.bonuses_set_up(batch, {p.submission.ref: p.amount for p in payments})
        except ChannelError as exc:  # nothing paid: drop it, the next run makes it afresh
            with transaction.atomic():
                order.payments.all().delete()
                order.delete()
            report.failed.update({w: f"not set up: {exc}" for w in who})
            return
        if not orders.filter(state=BulkPayment.State.NEW).update(ref=ref, state=BulkPayment.State.SET_UP, error=""):
            return  # another run set it up meanwhile (ours stays unpaid on the site) and pays it
        order.ref = ref
    if not orders.filter(state=BulkPayment.State.SET_UP).update(state=BulkPayment.State.PAYING):
        return  # another run is paying it
    try:
        channel.bonuses_pay(batch, order.ref)
    except ChannelOutcomeUnknown as exc:
        orders.update(error=str(exc))
        report.failed.update(
            {w: f"{exc} (recorded as paid: check on {channel.title} before paying again)" for w in who}
        )
        return
    except ChannelError as exc:  # refused or never sent: nothing paid; the next run pays this order
        orders.update(state=BulkPayment.State.SET_UP, error=str(exc))
        report.failed.update({w: str(exc) for w in who})
        return
    orders.update(state=BulkPayment.State.PAID, paid_at=timezone.now(), error="")
    report.paid += len(payments)
