"""Prolific (or the local Prolific-compatible endpoint): one study per batch, one place per unit
and annotator. Everything Prolific-specific the services need lives here: calls through
``annotation.prolific``, its errors translated to ``ChannelError``/``ChannelUnavailable``.

A participant's Prolific submission (SESSION_ID) is our Assignment's ``channel_assignment_id``;
every unit of the batch carries the study id as ``channel_ref``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils.translation import gettext as _

from annotation import prolific
from annotation.prolific.ids import malformed_ids
from annotation.selectors.batches import publishable_units

from .base import (
    UNKNOWN,
    Channel,
    ChannelError,
    ChannelOutcomeUnknown,
    ChannelUnavailable,
    EntryCheck,
    PublishResult,
    SubmissionInfo,
    UnitCallback,
    UnitCost,
    UnitState,
    request_token,
    submission_problems,
)
from .calls import call_record, request_summary
from .prolific_settings import StudySettings, study_settings_for
from .prolific_work import to_submission
from .registry import register
from .review_rules import ReviewRules

if TYPE_CHECKING:
    from annotation.models import Assignment, Batch

STUDY_URL = "https://app.prolific.com/researcher/workspaces/studies/{}"
#: a submission holding its place on Prolific: taken (RESERVED) or started (ACTIVE)
LIVE = ("RESERVED", "ACTIVE")


@contextmanager
def translated() -> Iterator[None]:
    """Prolific's failures as the channel interface's: refused, temporarily unavailable, or an
    unsafe call whose outcome is unknown."""
    try:
        yield
    except prolific.ProlificOutcomeUnknownError as exc:
        raise ChannelOutcomeUnknown(str(exc)) from exc
    except prolific.ProlificUnavailableError as exc:
        raise ChannelUnavailable(str(exc)) from exc
    except prolific.ProlificError as exc:
        raise ChannelError(str(exc)) from exc
    except ValueError as exc:  # refused by the client before sending (a short rejection message)
        raise ChannelError(str(exc)) from exc


def internal_name(batch: "Batch") -> str:
    """The study's unique private label: finds the study again after a crash or a lost answer."""
    return f"batch-{batch.pk}-{int(batch.created_at.timestamp())}"


def completion_codes(batch: "Batch") -> dict[str, str]:
    """The batch's codes: COMPLETED and FAILED_ATTENTION_CHECK (the same on every call)."""
    seed = request_token("prolific-code", batch.pk, batch.created_at.isoformat())
    return {prolific.COMPLETED: "C" + seed[:7].upper(), prolific.FAILED_ATTENTION_CHECK: "F" + seed[7:14].upper()}


def completion_redirect(batch: "Batch", code_type: str = prolific.COMPLETED) -> str:
    """Where the participant's browser goes at the end (PROLIFIC_COMPLETION_URL, with the code)."""
    return prolific.completion_url(completion_codes(batch)[code_type], base=settings.PROLIFIC_COMPLETION_URL)


def entry_url(base_url: str) -> str:
    """The study URL: this site's ``surveys:prolific`` view with Prolific's three placeholders."""
    return prolific.external_study_url(base_url.rstrip("/") + reverse("surveys:prolific"))


#: Prolific's policy: in a study shorter than this, one failed attention check may be enough to reject
SHORT_STUDY_MINUTES = 5


@register
class ProlificChannel(Channel):
    slug = "prolific"
    title = "Prolific"
    published_as = "published in the batch's study"
    cost_note = (
        "One Prolific study per batch, one place per unit and annotator. Publishing reserves the rewards and "
        "Prolific's fee (with VAT where it applies) from the workspace balance; bonuses are not included here."
    )

    def currency_code(self) -> str:
        """The workspace's currency (PROLIFIC_CURRENCY: GBP or USD), in which rewards are set."""
        return settings.PROLIFIC_CURRENCY

    posting_noun = "studies"
    settings_help = (
        "Study settings as JSON: reward, estimated_minutes, maximum_minutes, first_languages, countries, "
        "min_approval_rate, min_previous_submissions, allow_list, block_list, devices, rejection_category, "
        "screen_out_reward, screen_out_slots "
        "(name and description default to the project's and the batch's; consent is the batch's study file)."
    )
    recruits_remotely = True
    awaiting_review_status = "AWAITING REVIEW"
    sends_back = True
    #: approve, reject and bulk bonuses (no messages, blocks or qualifications here); a rejection
    #: carries a message of at least 100 characters and one of Prolific's categories; an approval
    #: carries no text
    review_rules = ReviewRules(
        operations=("review", "reject_unverified", "bonus"),
        reject_feedback_min=prolific.MIN_REJECTION_MESSAGE,
        rejection_categories=tuple(sorted(prolific.REJECTION_CATEGORIES)),
    )
    #: anybody can type a participant's id and a made-up SESSION_ID into the study URL; Prolific
    #: can look a submission up as it starts, so entries are confirmed before work is handed out
    entries_need_confirmation = True
    confirms_at_entry = True
    #: one bulk bonus per round (at most 200 rows per call): set up, then paid (not idempotent)
    bulk_bonus_rows = prolific.MAX_BONUS_ROWS

    def client(self) -> prolific.ProlificClient:
        """The client of the settings, every call of which goes to the call log."""
        return dataclasses.replace(prolific.client_from_settings(), on_call=self.log_call)

    def log_call(self, outcome: prolific.CallOutcome) -> None:
        call_record(
            channel=self.slug,
            operation=outcome.operation,
            status=outcome.status,
            error=outcome.error,
            seconds=outcome.seconds,
            request=request_summary(outcome.method, outcome.path, params=outcome.params, body=outcome.body),
        )

    def settings_for(self, batch: "Batch") -> StudySettings:
        return study_settings_for(batch)

    def reviewed_status(self, *, approved: bool) -> str:
        return "APPROVED" if approved else "REJECTED"

    def check_settings(self, batch: "Batch") -> None:
        self.settings_for(batch)

    def audience(self, batch: "Batch") -> str:
        return self.settings_for(batch).audience()

    def draft(self, batch: "Batch", *, base_url: str, places: int) -> prolific.StudyDraft:
        ss = self.settings_for(batch)
        codes = completion_codes(batch)
        return prolific.StudyDraft(
            name=ss.name,
            description=ss.description,
            external_study_url=entry_url(base_url),
            total_available_places=places,
            reward=ss.reward_minor,
            estimated_completion_time=ss.estimated_minutes,
            completion_codes=tuple(
                prolific.standard_codes(
                    codes[prolific.COMPLETED],
                    codes[prolific.FAILED_ATTENTION_CHECK],
                    screen_out_reward=ss.screen_out_minor,
                    screen_out_slots=ss.screen_out_slots or places,
                )
            ),
            internal_name=internal_name(batch),
            filters=ss.filters(),
            device_compatibility=ss.devices,
            maximum_allowed_time=ss.maximum_minutes,
            metadata=f"batch {batch.pk}",
        )

    # --- entry ------------------------------------------------------------------------------
    def entry_problem(self, *, participant: str, posting: str, work: str) -> str:
        bad = malformed_ids(PROLIFIC_PID=participant, STUDY_ID=posting, SESSION_ID=work)
        if not bad:
            return ""
        return _(
            "The study's ids (%(names)s) are not in Prolific's form (24 characters 0-9 and a-f). "
            "Please open the study again from Prolific."
        ) % {"names": ", ".join(bad)}

    def confirm_entry(self, *, participant: str, posting: str, work: str) -> EntryCheck:
        """Look the session up (``GET /submissions/{id}/``): it must be this participant's, in this
        study, and holding its place now. No answer from Prolific: held apart, not refused."""
        try:
            with translated():
                found = prolific.get_submission(self.client(), work)
        except ChannelUnavailable as exc:
            return EntryCheck(confirmed=None, reason=f"Prolific did not answer at entry: {exc}"[:300])
        except ChannelError:
            return EntryCheck(confirmed=False, reason=_("Prolific does not know this session."))
        if found.participant_id != participant or found.study_id != posting:
            return EntryCheck(confirmed=False, reason=_("This session belongs to another participant or study."))
        if found.status not in LIVE:
            return EntryCheck(
                confirmed=False, reason=_("This session is not active on Prolific any more (%s).") % found.status
            )
        return EntryCheck(confirmed=True)

    # --- publishing ---------------------------------------------------------------------------
    def publish(self, batch: "Batch", *, base_url: str, on_unit: UnitCallback | None = None) -> PublishResult:
        """The batch's one study, created once (found again by its internal name after a crash
        or a lost answer) and published (a study already published is left as it is)."""
        units = list(publishable_units(batch).order_by("position"))
        places = len(units) * batch.assignments_per_unit
        with translated():
            study = prolific.create_study_once(self.client(), self.draft(batch, base_url=base_url, places=places))
            if study.status == "UNPUBLISHED":
                study = prolific.publish_study(self.client(), study.id)
        self._record(batch, units, study)
        for unit in units:
            if on_unit is not None:
                on_unit(unit, study.id, None)
        return PublishResult(
            published=len(units), failed={}, links=[STUDY_URL.format(study.id)], refs={u.pk: study.id for u in units}
        )

    def _record(self, batch: "Batch", units: list, study: prolific.Study) -> None:
        from annotation.models import Posting, Unit

        if not units:
            return
        with transaction.atomic():
            Posting.objects.update_or_create(
                ref=study.id,
                defaults=dict(
                    unit=units[0],
                    round=1,
                    group_ref=internal_name(batch),
                    status=study.status,
                    places=study.total_available_places,
                ),
            )
            Unit.objects.filter(pk__in=[u.pk for u in units]).update(channel_ref=study.id)
        for unit in units:
            unit.channel_ref = study.id

    # --- money ----------------------------------------------------------------------------
    def unit_cost(self, batch: "Batch", *, max_assignments: int | None = None) -> UnitCost:
        """One place: the reward, and Prolific's fee with VAT on it where it applies."""
        ss = self.settings_for(batch)
        rate = prolific.fees.CORPORATE_FEE_RATE if settings.PROLIFIC_CORPORATE else prolific.fees.ACADEMIC_FEE_RATE
        vat = prolific.vat_rate_for(settings.PROLIFIC_VAT_COUNTRY) if settings.PROLIFIC_VAT_COUNTRY else Decimal(0)
        cost = prolific.cost(ss.reward_minor, fee_rate=rate, vat_rate=vat)
        return UnitCost(reward=ss.reward, fee=(Decimal(cost.fees + cost.vat) / 100).quantize(Decimal("0.01")))

    def balance(self) -> Decimal:
        with translated():
            client = self.client()
            workspaces = prolific.list_workspaces(client)
            if not workspaces:
                raise ChannelError("the Prolific account has no workspace")
            return (Decimal(prolific.get_balance(client, workspaces[0].id).available_balance) / 100).quantize(
                Decimal("0.01")
            )

    # --- the study --------------------------------------------------------------------------
    def _state(self, study: prolific.Study) -> UnitState:
        return UnitState(
            ref=study.id, status=study.status, expiration=None, max_assignments=study.total_available_places
        )

    def close_unit(self, unit_ref: str) -> UnitState:
        with translated():
            return self._state(prolific.stop_study(self.client(), unit_ref))

    def pause_unit(self, unit_ref: str) -> UnitState:
        with translated():
            return self._state(prolific.pause_study(self.client(), unit_ref))

    def resume_unit(self, unit_ref: str) -> UnitState:
        with translated():
            return self._state(prolific.start_study(self.client(), unit_ref))

    # --- submissions ----------------------------------------------------------------------------
    def submissions(self, unit_ref: str) -> list[SubmissionInfo]:
        with translated():
            study = prolific.get_study(self.client(), unit_ref)
            return [to_submission(s, study) for s in prolific.iter_submissions(self.client(), unit_ref)]

    def submission(self, ref: str) -> SubmissionInfo | None:
        try:
            with translated():
                found = prolific.get_submission(self.client(), ref)
                study = prolific.get_study(self.client(), found.study_id)
        except ChannelUnavailable:
            raise
        except ChannelError:
            return None
        return to_submission(found, study)

    def verify_submission(self, assignment: "Assignment") -> tuple[bool, str]:
        """Ask Prolific: it knows the submission (our session id), in our study, by our
        participant, with our completion code, and every item was saved here."""
        ref = assignment.channel_assignment_id
        found = self.submission(ref) if ref else None
        if found is None:
            return False, UNKNOWN
        refs = {assignment.unit.channel_ref} - {""}
        problems = submission_problems(assignment, found, refs, channel=self.slug)
        return (not problems), "; ".join(problems)

    def approve(self, assignment: "Assignment", *, feedback: str = "") -> None:
        with translated():
            prolific.approve_submission(self.client(), assignment.channel_assignment_id)

    def reject(self, assignment: "Assignment", *, feedback: str, category: str = "") -> None:
        """With `category`, else the batch's `rejection_category` setting."""
        self.reject_ref(
            assignment.channel_assignment_id,
            feedback=feedback,
            category=category or self.settings_for(assignment.unit.batch).rejection_category,
        )

    def reject_ref(self, ref: str, *, feedback: str, category: str = "") -> None:
        """Reject a submission by its id with a category (default FAILED_INSTRUCTIONS) and the
        message (100+ characters)."""
        with translated():
            prolific.reject_submission(self.client(), ref, category=category or "FAILED_INSTRUCTIONS", message=feedback)

    def send_back(self, ref: str, *, reason: str) -> str:
        """Ask the participant to return the submission (``request-return``): unpaid, the place
        freed once they do, never counted against them."""
        with translated():
            return prolific.request_return(self.client(), ref, reasons=[reason]).status

    def failed_checks_to_reject(self, batch: "Batch", *, category: str = "") -> int:
        """Prolific's attention-check policy: a rejection for failed checks (FAILED_CHECK) needs
        two failed checks, one in a study under 5 minutes; other categories are not this rule's."""
        settings = self.settings_for(batch)
        if (category or settings.rejection_category) != "FAILED_CHECK":
            return 0
        return 1 if settings.estimated_minutes < SHORT_STUDY_MINUTES else 2

    def bonuses_set_up(self, batch: "Batch", amounts: dict[str, Decimal]) -> str:
        """One bulk bonus on the batch's study, by submission id (pence/cents here; the client
        writes the CSV in major units, as Prolific wants)."""
        minor = {ref: int((amount * 100).to_integral_exact()) for ref, amount in amounts.items()}
        with translated():
            return prolific.set_up_bonuses(self.client(), study_of(batch), minor).id

    def bonuses_pay(self, batch: "Batch", ref: str) -> None:
        """Pay the bulk bonus: a 5xx or a lost answer is ChannelOutcomeUnknown (never sent again)."""
        with translated():
            prolific.pay_bonuses(self.client(), ref)


def study_of(batch: "Batch") -> str:
    """The batch's study id (every published unit carries it)."""
    ref = batch.units.exclude(channel_ref="").values_list("channel_ref", flat=True).first()
    if not ref:
        raise ChannelError(f"“{batch}” has no study on Prolific yet: publish it first")
    return ref
