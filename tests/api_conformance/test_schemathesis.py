"""The API conforms to its OpenAPI schema for every caller (issue 20 item 4): each operation with
every schemathesis check in the examples, coverage and fuzzing phases, then the stateful phase
following the schema's links. The checks are schemathesis's defaults, which are all of them."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

from .conftest import STATEFUL_SCENARIOS, STATEFUL_STEPS

pytestmark = pytest.mark.django_db

#: Derandomized, with no example database: the same requests on every run. Hypothesis' health
#: checks judge data generation speed and filtering, not the API; requests go through the whole
#: Django stack, which is slower than they expect of a plain function.
RELAXED = settings(suppress_health_check=list(HealthCheck), deadline=None, derandomize=True, database=None)

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
    steps = settings(RELAXED, max_examples=STATEFUL_SCENARIOS, stateful_step_count=STATEFUL_STEPS)
    schema.as_state_machine().run(settings=steps)


def test_stateful_as_staff(staff_schema):
    run_stateful(staff_schema)


def test_stateful_as_annotator(annotator_schema):
    run_stateful(annotator_schema)


def test_stateful_as_anonymous(anonymous_schema):
    run_stateful(anonymous_schema)


def test_every_check_schemathesis_has_is_on(staff_schema):
    """What the runs above validate with: every registered check, none switched off (schemathesis's
    `max_response_time` is not registered: it needs a time limit, and no test here asserts a time)."""
    load_all_checks()
    names = [check.__name__ for check in CHECKS.get_all()]
    assert {
        "negative_data_rejection",
        "positive_data_acceptance",
        "response_schema_conformance",
        "ignored_auth",
    } <= set(names)
    for operation in staff_schema.get_all_operations():
        config = staff_schema.config.checks_config_for(operation=operation.ok(), phase=None)
        assert [name for name in names if not config.get_by_name(name=name).enabled] == []
