"""The format of MTurk's ids, from botocore's service model (mturk 2017-01-17): an ``EntityId``
(AssignmentId, HITId) is 1-64 characters of ``[A-Z0-9]``; a ``CustomerId`` (WorkerId) starts
with ``A`` and is 1-64 characters of ``[A-Z0-9]``. MTurk itself issues 30-character assignment
and HIT ids and 12-21-character worker ids. An id with lower case or a trailing space is not
MTurk's, whoever typed it: checking the whole string keeps it from starting new work."""

from __future__ import annotations

import re

ENTITY_ID = re.compile(r"[A-Z0-9]{1,64}")
WORKER_ID = re.compile(r"A[A-Z0-9]{0,63}")


def malformed_ids(*, assignment_id: str, hit_id: str, worker_id: str) -> list[str]:
    """The names of the ids that are not in MTurk's format ([] when all are)."""
    checks = (
        ("assignmentId", assignment_id, ENTITY_ID),
        ("hitId", hit_id, ENTITY_ID),
        ("workerId", worker_id, WORKER_ID),
    )
    return [name for name, value, pattern in checks if not pattern.fullmatch(value)]
