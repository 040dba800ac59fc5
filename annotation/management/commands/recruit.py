"""Recruiting from the shell, on the batch's own site (MTurk, Prolific): the same services as the
batch admin's recruiting actions, named by nothing but the batch.

manage.py recruit estimate 7
manage.py recruit publish 7 [--base-url https://annotate.example.org] [--yes]
manage.py recruit sync [7]
manage.py recruit review 7 --reject-feedback "..." [--approve-feedback "..."]
manage.py recruit reject-unverified 7 --feedback "..."
manage.py recruit expire 7 [--units 0 3]
manage.py recruit extend 7 --hours 24 [--units 0 3]
manage.py recruit add-places 7 --number 2 --label "re-annotate block 3" [--units 3] [--yes]
manage.py recruit watchdog

(`manage.py mturk ...` is the same command under its older name.)
"""

from __future__ import annotations

import functools

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.channels import ChannelError, ChannelNotSupported, get_channel, money
from annotation.models import Batch, PublishJob
from annotation.services.postings import places_add, postings_expire, postings_extend
from annotation.services.publish import (
    CostEstimate,
    PublishRefused,
    batch_publish_request,
    check_balance,
    check_publishable,
    cost_estimate,
    publish_watchdog,
)
from annotation.services.review import ReviewError, decisions_apply, decisions_for, reject_unverified
from annotation.services.sync import batch_sync, open_batches_sync

from ._common import add_base_url_argument, base_url, batch_or_error


class Command(BaseCommand):
    help = "Estimate, publish, sync, review, expire, extend or add places to a batch on its recruiting site."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="operation", required=True)
        estimate = sub.add_parser("estimate", help="The cost of publishing a batch, and the balance.")
        estimate.add_argument("batch", type=int)
        publish = sub.add_parser("publish", help="Publish a batch on its site, after the cost check.")
        publish.add_argument("batch", type=int)
        publish.add_argument("--yes", action="store_true", help="Publish without asking.")
        add_base_url_argument(publish)
        sync = sub.add_parser("sync", help="Sync one batch, or every open batch of a recruiting site.")
        sync.add_argument("batch", type=int, nargs="?")
        review = sub.add_parser("review", help="Approve kept / reject dropped work (quality decisions).")
        review.add_argument("batch", type=int)
        review.add_argument("--reject-feedback", required=True, help="What rejected participants are told.")
        review.add_argument("--approve-feedback", default="")
        unverified = sub.add_parser(
            "reject-unverified", help="Reject submissions sync could not verify, before the site approves them."
        )
        unverified.add_argument("batch", type=int)
        unverified.add_argument("--feedback", required=True, help="What the participants are told.")
        expire = sub.add_parser("expire", help="Close the batch's postings (expire HITs, stop the study).")
        expire.add_argument("batch", type=int)
        _units_argument(expire)
        extend = sub.add_parser("extend", help="Keep the postings open longer.")
        extend.add_argument("batch", type=int)
        extend.add_argument("--hours", type=int, required=True, help="How many hours longer (1 to 8760).")
        _units_argument(extend)
        places = sub.add_parser("add-places", help="Let more people take the postings (re-annotate a block).")
        places.add_argument("batch", type=int)
        places.add_argument("--number", type=int, required=True, help="More assignments per posting.")
        places.add_argument("--label", required=True, help="Names the request: the same label never adds twice.")
        places.add_argument("--yes", action="store_true", help="Add without asking.")
        _units_argument(places)
        sub.add_parser("watchdog", help="Resend publish jobs stuck without progress; give up after the last try.")

    def handle(self, *args, operation: str, **options) -> None:
        try:
            getattr(self, f"do_{operation.replace('-', '_')}")(**options)
        except (PublishRefused, ReviewError, ChannelError, ChannelNotSupported) as exc:
            raise CommandError(str(exc)) from exc

    def _recruiting(self, batch_id: int) -> Batch:
        """The batch, if it recruits on a site (its channel and settings are checked)."""
        batch = batch_or_error(batch_id)
        check_publishable(batch)
        return batch

    def _estimate_line(self, e: CostEstimate) -> str:
        m = functools.partial(money, currency=e.currency)
        line = (
            f"{e.units} unit(s) x {e.assignments_per_unit} assignment(s) x ({m(e.reward)} reward + {m(e.fee)} fee) = "
            f"{m(e.total)} (rewards {m(e.rewards_total)}, fees {m(e.fees_total)})"
        )
        if e.balance is not None:
            line += f"; balance {m(e.balance)}" + ("" if e.enough else f"; {m(e.shortfall)} short")
        return line

    def do_estimate(self, *, batch: int, **_) -> None:
        self.stdout.write(self._estimate_line(cost_estimate(batch=self._recruiting(batch))))

    def do_publish(self, *, batch: int, yes: bool, base_url: str | None, **_) -> None:
        target = self._recruiting(batch)
        estimate = cost_estimate(batch=target)
        check_balance(estimate)
        self.stdout.write(self._estimate_line(estimate))
        self._confirm(yes, f"Publish on {get_channel(target.channel).short_title}?", "Not published.")
        job = batch_publish_request(batch=target, base_url=_base(base_url))
        job = PublishJob.objects.get(pk=job.pk)  # without a broker the task has run inline
        self.stdout.write(f"Job #{job.pk}: {job.get_status_display()}, {job.done} of {job.total} units published.")
        for failure in job.failures:
            self.stdout.write(f"  unit #{failure['position']} failed: {failure['reason']}")

    def do_sync(self, *, batch: int | None, **_) -> None:
        reports = [batch_sync(batch=self._recruiting(batch))] if batch else open_batches_sync()
        for report in reports:
            self.stdout.write(f"Batch {report.batch}: {report.summary()}")

    def do_review(self, *, batch: int, reject_feedback: str, approve_feedback: str, **_) -> None:
        target = self._recruiting(batch)
        decisions = decisions_for(target)
        report = decisions_apply(
            batch=target, decisions=decisions, reject_feedback=reject_feedback, approve_feedback=approve_feedback
        )
        self.stdout.write(f"{decisions.source}: {report.summary()}")
        for ref, why in report.skipped.items():
            self.stdout.write(f"  skipped {ref}: {why}")

    def do_reject_unverified(self, *, batch: int, feedback: str, **_) -> None:
        report = reject_unverified(batch=self._recruiting(batch), feedback=feedback)
        self.stdout.write(f"Unverified submissions: {report.summary()}")

    def do_expire(self, *, batch: int, units: list[int] | None, **_) -> None:
        self.stdout.write(postings_expire(batch=self._recruiting(batch), positions=units).summary("Closed") + ".")

    def do_extend(self, *, batch: int, hours: int, units: list[int] | None, **_) -> None:
        report = postings_extend(batch=self._recruiting(batch), hours=hours, positions=units)
        self.stdout.write(report.summary("Extended") + ".")

    def do_add_places(self, *, batch: int, number: int, label: str, yes: bool, units: list[int] | None, **_) -> None:
        target = self._recruiting(batch)
        note = get_channel(target.channel).added_places_note
        if note:
            self.stdout.write(note)
        self._confirm(yes, f"Add {number} place(s) to each posting?", "Nothing added.")
        report = places_add(batch=target, number=number, label=label, positions=units)
        self.stdout.write(report.summary("Added places to") + ".")

    def do_watchdog(self, **_) -> None:
        report = publish_watchdog()
        for pk in report.resent:
            self.stdout.write(f"Job #{pk}: no progress; sent to the workers again.")
        for pk in report.failed:
            self.stdout.write(f"Job #{pk}: no progress after the last try; marked failed.")
        if not (report.resent or report.failed):
            self.stdout.write("No stuck publish jobs.")

    def _confirm(self, yes: bool, question: str, refused: str) -> None:
        """Money is spent only after a yes (``--yes``, or typed)."""
        if not yes and input(f"{question} [y/N] ").strip().lower() != "y":
            raise CommandError(refused)


def _units_argument(parser: CommandParser) -> None:
    parser.add_argument(
        "--units", type=int, nargs="+", default=None, help="Only the units at these positions (default: all)."
    )


def _base(option: str | None) -> str:
    return base_url(option)
