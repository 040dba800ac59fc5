"""The MTurk client wrapper: small typed functions over boto3 that return dataclasses and
never touch the database (DESIGN.md, "External clients"; facts in reference/mturk.md).

    client = client_from_settings()          # MTURK_ENDPOINT = local | sandbox | production
    hit_type = create_hit_type(client, title=..., reward="0.50", ...)
    hit = create_hit_with_type(client, hit_type_id=hit_type.hit_type_id,
                               question_xml=external_question_xml(url, 0), ...,
                               unique_request_token=unique_request_token("unit", unit.pk))

Failures raise ``MTurkRequestError`` (refused: do not retry) or ``MTurkServiceError``
(transient: retry later). ``annotation.mturk.local`` is the MTurk-compatible endpoint.
"""

from .assignments import (
    approve_assignment,
    get_assignment,
    list_assignments_for_hit,
    reject_assignment,
    send_bonus,
)
from .client import (
    ENDPOINTS,
    LOCAL,
    PRODUCTION,
    REGION,
    SANDBOX,
    MTurkClient,
    client_from_settings,
    endpoint_url,
    make_client,
    preview_url,
    unique_request_token,
    worker_site_url,
)
from .entities import (
    AssignmentInfo,
    Balance,
    Hit,
    HitType,
    NotifyFailure,
    NotifyResult,
    QualificationType,
)
from .errors import MTurkError, MTurkRequestError, MTurkServiceError
from .fees import assignment_cost, assignment_fee, bonus_cost, bonus_fee
from .hits import (
    create_additional_assignments_for_hit,
    create_hit_type,
    create_hit_with_type,
    delete_hit,
    expire_hit,
    get_hit,
    update_expiration_for_hit,
)
from .qualifications import (
    DEFAULT_LOCALES,
    approval_rate_requirement,
    hits_approved_requirement,
    locale_requirement,
    masters_qualification_id,
    masters_requirement,
    private_requirement,
    uses_masters,
)
from .questions import external_question_xml, parse_answer_xml
from .workers import (
    associate_qualification_with_worker,
    create_qualification_type,
    create_worker_block,
    delete_worker_block,
    find_qualification_type,
    get_account_balance,
    notify_workers,
)

__all__ = [
    "AssignmentInfo",
    "Balance",
    "DEFAULT_LOCALES",
    "ENDPOINTS",
    "Hit",
    "HitType",
    "LOCAL",
    "MTurkClient",
    "MTurkError",
    "MTurkRequestError",
    "MTurkServiceError",
    "NotifyFailure",
    "NotifyResult",
    "PRODUCTION",
    "QualificationType",
    "REGION",
    "SANDBOX",
    "approval_rate_requirement",
    "approve_assignment",
    "assignment_cost",
    "assignment_fee",
    "associate_qualification_with_worker",
    "bonus_cost",
    "bonus_fee",
    "client_from_settings",
    "create_additional_assignments_for_hit",
    "create_hit_type",
    "create_hit_with_type",
    "create_qualification_type",
    "create_worker_block",
    "delete_hit",
    "delete_worker_block",
    "endpoint_url",
    "expire_hit",
    "external_question_xml",
    "find_qualification_type",
    "get_account_balance",
    "get_assignment",
    "get_hit",
    "hits_approved_requirement",
    "list_assignments_for_hit",
    "locale_requirement",
    "make_client",
    "masters_qualification_id",
    "masters_requirement",
    "notify_workers",
    "parse_answer_xml",
    "preview_url",
    "private_requirement",
    "reject_assignment",
    "send_bonus",
    "unique_request_token",
    "update_expiration_for_hit",
    "uses_masters",
    "worker_site_url",
]
