"""The OpenAPI schema and its docs page: valid, complete, and served without any CDN."""

import re

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_schema_is_valid_openapi():
    validator = pytest.importorskip("openapi_spec_validator")
    response = APIClient().get("/api/schema/?format=json")
    assert response.status_code == 200
    schema = response.json()
    validator.validate(schema)
    paths = schema["paths"]
    for path in (
        "/api/projects/",
        "/api/projects/{id}/import/",
        "/api/items/",
        "/api/batches/",
        "/api/batches/{id}/invites/",
        "/api/me/responses/",
    ):
        assert path in paths
    assert schema["components"]["securitySchemes"]["annotatorKey"]["in"] == "header"


def test_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").stat().st_size > 0


def test_docs_page_loads_nothing_from_outside():
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    external = re.findall(r"""(?:src|href)\s*=\s*["'](?:https?:)?//[^"']+""", html)
    assert external == []
    assert "drf_spectacular_sidecar" in html


def test_docs_assets_are_local_static_files():
    from django.contrib.staticfiles import finders

    html = APIClient().get("/api/docs/").content.decode()
    for asset in re.findall(r"""(?:src|href)="/static/([^"?]+)""", html):
        assert finders.find(asset), asset
