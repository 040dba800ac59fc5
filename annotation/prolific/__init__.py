"""The Prolific researcher API client: small typed functions over ``requests`` that return
frozen dataclasses and never touch the database (DESIGN.md, "External clients"; facts in
reference/prolific.md).

    client = client_from_settings()      # PROLIFIC_API_URL, PROLIFIC_API_TOKEN
    draft = StudyDraft(name=..., internal_name=f"batch-{batch.pk}", ...,
                       external_study_url=external_study_url("https://ours/prolific/"),
                       completion_codes=tuple(standard_codes("C1AB2", "C9XY8")))
    study = create_study_once(client, draft)     # finds the one made earlier, if any
    study = publish_study(client, study.id)

Failures raise a ``ProlificError`` subclass (see ``errors``). ``annotation.prolific.local``
is the local Prolific-compatible endpoint.
"""
from .account import (
    MAX_BONUS_ROWS,
    bonus_csv,
    get_balance,
    get_me,
    list_filters,
    list_workspaces,
    pay_bonuses,
    set_up_bonuses,
)
from .client import DEFAULT_API_URL, CallOutcome, ProlificClient, client_from_settings, make_client
from .drafts import (
    APPROVAL_RATE,
    APPROVED_SUBMISSIONS,
    COMPLETED,
    COMPLETION_URL,
    COUNTRY_OF_RESIDENCE,
    CUSTOM_ALLOWLIST,
    CUSTOM_BLOCKLIST,
    FAILED_ATTENTION_CHECK,
    FIRST_LANGUAGE,
    NO_CONSENT,
    PLACEHOLDERS,
    StudyDraft,
    completion_code,
    completion_url,
    external_study_url,
    range_filter,
    select_filter,
    standard_codes,
)
from .entities import (
    Balance,
    BulkBonus,
    Me,
    Study,
    StudyCost,
    Submission,
    SubmissionPage,
    Workspace,
)
from .errors import (
    ProlificAuthError,
    ProlificError,
    ProlificInsufficientFundsError,
    ProlificNotFoundError,
    ProlificOutcomeUnknownError,
    ProlificUnavailableError,
    ProlificValidationError,
)
from .fees import Cost, cost, study_cost, vat_rate_for
from .studies import (
    create_study,
    create_study_once,
    delete_study,
    find_study,
    get_study,
    get_study_cost,
    iter_studies,
    pause_study,
    publish_study,
    quote_study_cost,
    start_study,
    stop_study,
    transition_study,
    update_study,
)
from .submissions import (
    REJECTION_CATEGORIES,
    approve_submission,
    bulk_approve,
    complete_submission,
    get_submission,
    iter_submissions,
    list_submissions,
    reject_submission,
    request_return,
)

__all__ = [
    "APPROVAL_RATE", "APPROVED_SUBMISSIONS", "Balance", "BulkBonus", "COMPLETED", "CallOutcome",
    "COMPLETION_URL", "COUNTRY_OF_RESIDENCE", "CUSTOM_ALLOWLIST", "CUSTOM_BLOCKLIST", "Cost",
    "DEFAULT_API_URL", "FAILED_ATTENTION_CHECK", "FIRST_LANGUAGE", "MAX_BONUS_ROWS", "Me",
    "NO_CONSENT", "PLACEHOLDERS", "ProlificAuthError", "ProlificClient", "ProlificError",
    "ProlificInsufficientFundsError", "ProlificNotFoundError", "ProlificOutcomeUnknownError",
    "ProlificUnavailableError", "ProlificValidationError", "REJECTION_CATEGORIES", "Study",
    "StudyCost", "StudyDraft", "Submission", "SubmissionPage", "Workspace",
    "approve_submission", "bonus_csv", "bulk_approve", "client_from_settings",
    "complete_submission", "completion_code", "completion_url", "cost", "create_study",
    "create_study_once", "delete_study", "external_study_url", "find_study", "get_balance",
    "get_me", "get_study", "get_study_cost", "get_submission", "iter_studies",
    "iter_submissions", "list_filters", "list_submissions", "list_workspaces", "make_client",
    "pause_study", "pay_bonuses", "publish_study", "quote_study_cost", "range_filter",
    "reject_submission", "request_return", "select_filter", "set_up_bonuses",
    "standard_codes", "start_study", "stop_study", "study_cost", "transition_study",
    "update_study", "vat_rate_for",
]
