"""The API conforms to its OpenAPI schema for every caller (issue 20 item 4): each operation with
every schemathesis check in the examples, coverage and fuzzing phases, then the stateful phase
following the schema's links. The checks are schemathesis's defaults, which are all of them."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

pytestmark = pytest.mark.django_db

#: Hypothesis' health checks judge data generation speed and filtering, not the API; requests go
#: through the whole Django stack, which is slower than they expect of a plain function.
RELAXED = settings(suppress_health_check=list(HealthCheck), deadline=None)

staff = schemathesis.pytest.from_fixture("staff_schema")
annotator = schemathesis.pytest.from_fixture("annotator_schema")
anonymous = schemathesis.pytest.from_fixture("anonymous_schema")


@staff.parametrize()
@RELAXED
def test_as_staff(case):
    case.call_and_validate()


@annotator.parametrize()
@RELAXED
def test_as_annotator(case):
    case.call_and_validate()


@anonymous.parametrize()
@RELAXED
def test_as_anonymous(case):
    case.call_and_validate()


def run_stateful(schema: schemathesis.BaseSchema) -> None:
    schema.as_state_machine().run(settings=settings(RELAXED, max_examples=8, stateful_step_count=10))


def test_stateful_as_staff(staff_schema):
    run_stateful(staff_schema)


def test_stateful_as_annotator(annotator_schema):
    run_stateful(annotator_schema)


def test_stateful_as_anonymous(anonymous_schema):
    run_stateful(anonymous_schema)
