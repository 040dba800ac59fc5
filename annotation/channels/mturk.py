"""Amazon Mechanical Turk (or any MTurk-compatible endpoint): one HIT per unit, whose page is
our ExternalQuestion URL. Everything MTurk-specific the services need lives here: boto3 calls
through ``annotation.mturk``, its errors translated to ``ChannelError``/``ChannelUnavailable``.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils.translation import gettext as _

from annotation import mturk
from annotation.kinds import kind_of
from annotation.mturk.assignments import MAX_FEEDBACK
from annotation.mturk.ids import malformed_ids
from annotation.mturk.workers import MAX_MESSAGE, MAX_SUBJECT
from annotation.selectors.batches import publishable_units

from .base import (
    UNKNOWN,
    Channel,
    ChannelError,
    ChannelUnavailable,
    MessageResult,
    PublishResult,
    SubmissionInfo,
    UnitCallback,
    UnitCost,
    UnitState,
    submission_problems,
)
from .mturk_calls import watch
from .mturk_hits import external_url, publish_token, to_submission, translated, unit_refs
from .mturk_settings import HitSettings, hit_settings_for
from .mturk_tests import test_of, test_texts
from .registry import register
from .review_rules import REVIEW_OPERATIONS, ReviewRules

if TYPE_CHECKING:
    from annotation.models import Assignment, Batch, Unit


@register
class MTurkChannel(Channel):
    slug = "mturk"
    title = "Amazon Mechanical Turk"
    short_name = "MTurk"
    published_as = "published as HITs"
    cost_note = (
        "One HIT per unit that has none yet. MTurk charges the reward and its fee when an assignment is "
        "approved; bonuses are not included here and cost 20 % on top of the amount."
    )
    posting_noun = "HITs"
    added_places_note = "Each assignment costs the reward plus MTurk's fee, charged on approval."
    settings_help = (
        f"HIT settings as JSON; empty keys take the defaults {json.dumps(HitSettings().as_json())} "
        "(title and description default to the project's)."
    )
    recruits_remotely = True
    awaiting_review_status = "Submitted"
    #: everything; RequesterFeedback is required to reject and at most 1,024 characters either
    #: way, NotifyWorkers' subject at most 200 and its text 4,096 (botocore's service model)
    review_rules = ReviewRules(
        operations=REVIEW_OPERATIONS,
        reject_feedback_max=MAX_FEEDBACK,
        approve_feedback=True,
        approve_feedback_max=MAX_FEEDBACK,
        message_subject_max=MAX_SUBJECT,
        message_text_max=MAX_MESSAGE,
    )
    #: anybody can type a worker's id and a made-up assignmentId into our page, and MTurk knows
    #: an assignment only once it is submitted: the work is held apart until sync confirms it
    entries_need_confirmation = True

    def entry_problem(self, *, participant: str, posting: str, work: str) -> str:
        bad = malformed_ids(assignment_id=work, hit_id=posting, worker_id=participant)
        if not bad:
            return ""
        return _(
            "The task's ids (%(names)s) are not in Mechanical Turk's form (capital letters and digits only). "
            "Please open the task again from Mechanical Turk."
        ) % {"names": ", ".join(bad)}

    # --- plumbing ---------------------------------------------------------------------------
    def client(self) -> mturk.MTurkClient:
        """The client of the settings, every call of which goes to the call log."""
        return watch(mturk.client_from_settings())

    @property
    def endpoint(self) -> str:
        return getattr(settings, "MTURK_ENDPOINT", mturk.LOCAL)

    def settings_for(self, batch: "Batch") -> HitSettings:
        return hit_settings_for(batch)

    def reviewed_status(self, *, approved: bool) -> str:
        return "Approved" if approved else "Rejected"

    def grant_batch_qualification(self, annotator_ids: list[str], *, batch: "Batch", description: str) -> str:
        return self.grant_qualification(
            annotator_ids, name=self.settings_for(batch).private_qualification, description=description
        )

    def check_settings(self, batch: "Batch") -> None:
        if self.settings_for(batch).qualification_test:  # raises HitSettingsError, a ChannelSettingsError
            test_of(batch)

    def asks_comprehension_itself(self, batch: "Batch") -> bool:
        """With `qualification_test`, workers pass the comprehension check as MTurk's test."""
        return self.settings_for(batch).qualification_test

    def audience(self, batch: "Batch") -> str:
        return "Masters" if self.settings_for(batch).masters else ""

    def requirements(self, hs: HitSettings, batch: "Batch | None" = None) -> list[dict[str, Any]]:
        """The qualification requirements of the settings' presets (finds/creates our own, and
        the batch's qualification test)."""
        found: list[dict[str, Any]] = []
        if hs.locales:
            found.append(mturk.locale_requirement(hs.locales))
        if hs.min_approval_rate is not None:
            found.append(mturk.approval_rate_requirement(hs.min_approval_rate))
        if hs.min_hits_approved is not None:
            found.append(mturk.hits_approved_requirement(hs.min_hits_approved))
        if hs.masters:
            found.append(mturk.masters_requirement(self.endpoint))
        if hs.require_private_qualification:
            type_id = hs.private_qualification_id or self._qualification(
                hs.private_qualification, "Workers the researcher trusts."
            )
            found.append(mturk.private_requirement(type_id))
        if hs.qualification_test and batch is not None:
            found.append(
                mturk.private_requirement(
                    self._test_qualification(batch), at_least=hs.qualification_test_min_score, actions_guarded="Accept"
                )
            )
        return found

    def _test_qualification(self, batch: "Batch") -> str:
        """The batch's qualification type with its test (created once, found again by name)."""
        instructions = batch.project.instructions or str(kind_of(batch.project).default_instructions)
        with translated():
            return mturk.create_qualification_type(
                self.client(), reuse_existing=True, **test_texts(batch, instructions)
            ).qualification_type_id

    def _qualification(self, name: str, description: str) -> str:
        with translated():
            return mturk.create_qualification_type(
                self.client(),
                name=name,
                description=description,
                reuse_existing=True,
            ).qualification_type_id

    # --- publishing ---------------------------------------------------------------------------
    def hit_type(self, batch: "Batch", hs: HitSettings) -> mturk.HitType:
        """The batch's HIT type (identical values give the same id, so this is idempotent)."""
        with translated():
            return mturk.create_hit_type(
                self.client(),
                title=hs.title,
                description=hs.description,
                reward=hs.reward,
                assignment_duration_seconds=hs.assignment_duration_seconds,
                auto_approval_delay_seconds=hs.auto_approval_delay_seconds,
                keywords=hs.keywords,
                qualification_requirements=self.requirements(hs, batch),
            )

    def publish(self, batch: "Batch", *, base_url: str, on_unit: UnitCallback | None = None) -> PublishResult:
        """One HIT per unit not published yet, each with a deterministic UniqueRequestToken: a
        retry, a crashed worker or a second click finds the same HIT instead of a second one.

        A unit that fails is reported with its reason and the others go on. Raises
        ``HitSettingsError`` (bad settings) or ``ChannelError`` (no HIT type) before any HIT.
        """
        hs = self.settings_for(batch)
        hit_type = self.hit_type(batch, hs)
        question = mturk.external_question_xml(external_url(base_url), hs.frame_height)
        refs: dict[int, str] = {}
        failed: dict[int, str] = {}
        retryable: set[int] = set()
        for unit in publishable_units(batch).order_by("position"):
            ref, reason = unit.channel_ref, None
            if not ref:
                try:
                    ref = self._publish_unit(batch, unit, hs, hit_type.hit_type_id, question)
                except ChannelError as exc:
                    reason = failed[unit.pk] = str(exc)
                    if isinstance(exc, ChannelUnavailable):
                        retryable.add(unit.pk)
            if ref:
                refs[unit.pk] = ref
            if on_unit is not None:
                on_unit(unit, ref or None, reason)
        return PublishResult(
            published=len(refs),
            failed=failed,
            links=[self.preview(hit_type.hit_type_id)],
            refs=refs,
            retryable=frozenset(retryable),
        )

    def _publish_unit(self, batch: "Batch", unit: "Unit", hs: HitSettings, hit_type_id: str, question: str) -> str:
        from annotation.models import Posting, Unit

        # One statement reads both: a concurrent runner commits the HIT row and channel_ref
        # together, so this sees neither or both (never a stale ref with a new round).
        ref, earlier = (
            Unit.objects.filter(pk=unit.pk).annotate(n=Count("postings")).values_list("channel_ref", "n").get()
        )
        if ref:
            return ref
        round_ = earlier + 1
        with translated():
            hit = mturk.create_hit_with_type(
                self.client(),
                hit_type_id=hit_type_id,
                question_xml=question,
                lifetime_seconds=hs.lifetime_seconds,
                max_assignments=batch.assignments_per_unit,
                unique_request_token=publish_token(batch, unit, round_),
                requester_annotation=f"batch {batch.pk} unit {unit.pk} round {round_}",
            )
        with transaction.atomic():
            Posting.objects.get_or_create(
                ref=hit.hit_id,
                defaults=dict(
                    unit=unit,
                    round=round_,
                    group_ref=hit.hit_type_id,
                    status=hit.status,
                    places=hit.max_assignments,
                    expiration=hit.expiration,
                ),
            )
            Unit.objects.filter(pk=unit.pk).update(channel_ref=hit.hit_id)
        unit.channel_ref = hit.hit_id
        return hit.hit_id

    def preview(self, hit_type_id: str) -> str:
        return mturk.preview_url(self.endpoint, hit_type_id, local_url=getattr(settings, "MTURK_LOCAL_URL", None))

    # --- money ----------------------------------------------------------------------------
    def unit_cost(self, batch: "Batch", *, max_assignments: int | None = None) -> UnitCost:
        hs = self.settings_for(batch)
        n = max_assignments or batch.assignments_per_unit
        return UnitCost(reward=hs.reward, fee=mturk.assignment_fee(hs.reward, max_assignments=n, masters=hs.masters))

    def balance(self) -> Decimal:
        with translated():
            return mturk.get_account_balance(self.client()).available

    # --- HITs -----------------------------------------------------------------------------
    def _state(self, hit_id: str) -> UnitState:
        hit = mturk.get_hit(self.client(), hit_id)
        return UnitState(
            ref=hit.hit_id, status=hit.status, expiration=hit.expiration, max_assignments=hit.max_assignments
        )

    def close_unit(self, unit_ref: str) -> UnitState:
        with translated():
            mturk.expire_hit(self.client(), unit_ref)
            return self._state(unit_ref)

    def extend_unit(self, unit_ref: str, *, until: datetime) -> UnitState:
        with translated():
            mturk.update_expiration_for_hit(self.client(), unit_ref, expire_at=until)
            return self._state(unit_ref)

    def add_assignments(self, unit_ref: str, *, number: int, request_token: str) -> UnitState:
        with translated():
            mturk.create_additional_assignments_for_hit(
                self.client(), unit_ref, number=number, unique_request_token=request_token
            )
            return self._state(unit_ref)

    # --- submissions ----------------------------------------------------------------------------
    def submissions(self, unit_ref: str) -> list[SubmissionInfo]:
        with translated():
            return [to_submission(info) for info in mturk.list_assignments_for_hit(self.client(), unit_ref)]

    def submission(self, ref: str) -> SubmissionInfo | None:
        try:
            with translated():
                info, _hit = mturk.get_assignment(self.client(), ref)
        except ChannelUnavailable:
            raise
        except ChannelError:
            return None
        return to_submission(info)

    def verify_submission(self, assignment: "Assignment") -> tuple[bool, str]:
        """Ask MTurk (GetAssignment): it knows the assignment, on our HIT, by our worker, with
        our completion token, and every item was saved here."""
        ref = assignment.channel_assignment_id
        found = self.submission(ref) if ref else None
        if found is None:
            return False, UNKNOWN
        problems = submission_problems(assignment, found, unit_refs(assignment.unit), channel=self.slug)
        return (not problems), "; ".join(problems)

    def approve(self, assignment: "Assignment", *, feedback: str = "") -> None:
        with translated():
            mturk.approve_assignment(self.client(), assignment.channel_assignment_id, feedback=feedback)

    def reject(self, assignment: "Assignment", *, feedback: str, category: str = "") -> None:
        with translated():
            mturk.reject_assignment(self.client(), assignment.channel_assignment_id, feedback=feedback)

    def reject_ref(self, ref: str, *, feedback: str, category: str = "") -> None:
        """Reject an MTurk assignment by its id: also one with no assignment of ours (forged)."""
        with translated():
            mturk.reject_assignment(self.client(), ref, feedback=feedback)

    def bonus(self, assignment: "Assignment", *, amount: str, reason: str, request_token: str = "") -> None:
        ref = assignment.channel_assignment_id
        token = request_token or mturk.unique_request_token("bonus", ref, amount, reason)
        with translated():
            mturk.send_bonus(
                self.client(),
                worker_id=assignment.annotator.external_id,
                assignment_id=ref,
                amount=amount,
                reason=reason,
                unique_request_token=token,
            )

    # --- workers --------------------------------------------------------------------------
    def message(self, annotator_ids: list[str], *, subject: str, text: str) -> MessageResult:
        with translated():
            result = mturk.notify_workers(self.client(), worker_ids=annotator_ids, subject=subject, message=text)
        return MessageResult(
            calls=result.calls, failed={f.worker_id: f"{f.code}: {f.message}" for f in result.failures}
        )

    def block(self, annotator_id: str, *, reason: str) -> None:
        with translated():
            mturk.create_worker_block(self.client(), annotator_id, reason=reason)

    def grant_qualification(self, annotator_ids: list[str], *, name: str, description: str) -> str:
        type_id = self._qualification(name, description)
        with translated():
            for worker_id in dict.fromkeys(annotator_ids):
                mturk.associate_qualification_with_worker(
                    self.client(), qualification_type_id=type_id, worker_id=worker_id
                )
        return type_id
