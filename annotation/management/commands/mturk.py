"""MTurk from the shell: estimate, publish, sync and review a batch.

manage.py mturk estimate 7
manage.py mturk publish 7 [--base-url https://annotate.example.org] [--yes]
manage.py mturk sync [7]
manage.py mturk review 7 --reject-feedback "..." [--approve-feedback "..."]
manage.py mturk reject-unverified 7 --feedback "..."
manage.py mturk watchdog
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.channels import ChannelError
from annotation.models import PublishJob
from annotation.services.publish import (
    PublishRefused,
    batch_publish_request,
    check_balance,
    cost_estimate,
    publish_watchdog,
)
from annotation.services.review import ReviewError, decisions_apply, decisions_for, reject_unverified
from annotation.services.sync import batch_sync, open_batches_sync

from ._common import add_base_url_argument, base_url, batch_or_error


class Command(BaseCommand):
    help = "Estimate, publish, sync or review an MTurk batch."

    def add_arguments(self, parser: CommandParser) -> None:
        sub = parser.add_subparsers(dest="operation", required=True)
        estimate = sub.add_parser("estimate", help="The cost of publishing a batch, and the balance.")
        estimate.add_argument("batch", type=int)
        publish = sub.add_parser("publish", help="Publish a batch (one HIT per unit), after the cost check.")
        publish.add_argument("batch", type=int)
        publish.add_argument("--yes", action="store_true", help="Publish without asking.")
        add_base_url_argument(publish)
        sync = sub.add_parser("sync", help="Sync one batch, or every open MTurk batch.")
        sync.add_argument("batch", type=int, nargs="?")
        unverified = sub.add_parser(
            "reject-unverified", help="Reject submissions sync could not verify, before MTurk approves them."
        )
        unverified.add_argument("batch", type=int)
        unverified.add_argument("--feedback", required=True, help="What the workers are told.")
        sub.add_parser("watchdog", help="Resend publish jobs stuck without progress; give up after the last try.")
        review = sub.add_parser("review", help="Approve kept / reject dropped work (quality decisions).")
        review.add_argument("batch", type=int)
        review.add_argument("--reject-feedback", required=True, help="What rejected workers are told.")
        review.add_argument("--approve-feedback", default="")

    def handle(self, *args, operation: str, **options) -> None:
        try:
            getattr(self, f"do_{operation.replace('-', '_')}")(**options)
        except (PublishRefused, ReviewError, ChannelError) as exc:
            raise CommandError(str(exc)) from exc

    def do_estimate(self, *, batch: int, **_) -> None:
        e = cost_estimate(batch=batch_or_error(batch))
        self.stdout.write(
            f"{e.units} unit(s) x {e.assignments_per_unit} assignment(s) x (${e.reward} reward + ${e.fee} fee) = "
            f"${e.total} (rewards ${e.rewards_total}, fees ${e.fees_total}); balance ${e.balance}"
            + ("" if e.enough else f"; ${e.shortfall} short")
        )

    def do_publish(self, *, batch: int, yes: bool, base_url: str | None, **opts) -> None:
        target = batch_or_error(batch)
        estimate = cost_estimate(batch=target)
        check_balance(estimate)
        self.do_estimate(batch=batch)
        if not yes and input("Publish? [y/N] ").strip().lower() != "y":
            raise CommandError("Not published.")
        job = batch_publish_request(batch=target, base_url=_base(base_url))
        job = PublishJob.objects.get(pk=job.pk)  # without a broker the task has run inline
        self.stdout.write(f"Job #{job.pk}: {job.get_status_display()}, {job.done} of {job.total} units published.")
        for failure in job.failures:
            self.stdout.write(f"  unit #{failure['position']} failed: {failure['reason']}")

    def do_sync(self, *, batch: int | None, **_) -> None:
        reports = [batch_sync(batch=batch_or_error(batch))] if batch else open_batches_sync()
        for report in reports:
            self.stdout.write(f"Batch {report.batch}: {report.summary()}")

    def do_reject_unverified(self, *, batch: int, feedback: str, **_) -> None:
        report = reject_unverified(batch=batch_or_error(batch), feedback=feedback)
        self.stdout.write(f"Unverified submissions: {report.summary()}")

    def do_watchdog(self, **_) -> None:
        report = publish_watchdog()
        for pk in report.resent:
            self.stdout.write(f"Job #{pk}: no progress; sent to the workers again.")
        for pk in report.failed:
            self.stdout.write(f"Job #{pk}: no progress after the last try; marked failed.")
        if not (report.resent or report.failed):
            self.stdout.write("No stuck publish jobs.")

    def do_review(self, *, batch: int, reject_feedback: str, approve_feedback: str, **_) -> None:
        target = batch_or_error(batch)
        decisions = decisions_for(target)
        report = decisions_apply(
            batch=target, decisions=decisions, reject_feedback=reject_feedback, approve_feedback=approve_feedback
        )
        self.stdout.write(f"{decisions.source}: {report.summary()}")
        for ref, why in report.skipped.items():
            self.stdout.write(f"  skipped {ref}: {why}")


def _base(option: str | None) -> str:
    return base_url(option)
