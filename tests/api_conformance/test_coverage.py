"""The schemathesis run covers the endpoints added after it was set up (issue 37): they are
operations of the schema it loads, so every check, fuzzing phase and stateful link reaches them."""

from __future__ import annotations

import pytest

from .conftest import load_schema

pytestmark = pytest.mark.django_db

ADDED = {
    ("GET", "/api/projects/{project_id}/predictions/"),
    ("POST", "/api/projects/{project_id}/predictions/"),
    ("POST", "/api/projects/{project_id}/exports/hub/"),
    ("POST", "/api/projects/{id}/import/"),
    ("GET", "/api/batches/{id}/calls/"),
    ("POST", "/api/projects/"),  # task and study files as text (the structured-input loader)
}


def test_the_added_endpoints_are_operations_schemathesis_runs():
    schema = load_schema({})
    operations = {(op.method.upper(), op.path) for op in (result.ok() for result in schema.get_all_operations())}
    assert operations >= ADDED, sorted(ADDED - operations)
