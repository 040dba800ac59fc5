"""Issue 37: no text the API stores can hold what a database cannot (PostgreSQL refuses NUL in
text and jsonb; a lone surrogate is not Unicode and cannot be encoded as UTF-8). Every text
position of every writable operation in the served schema (a field, an item of a list, a key and a
value of an object) is sent a lone surrogate and a NUL, and the answer is a 4xx naming the field,
on SQLite and PostgreSQL. The schema is walked, so an operation added later is covered too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from tests.security.conftest import World, staff_with
from tests.security.conftest import world as world  # noqa: F401  (the fixture: something behind every URL)

pytestmark = pytest.mark.django_db

HOSTILE = {"lone surrogate": "a\ud800b", "NUL": "a\x00b"}
WRITES = ("post", "put", "patch")


@pytest.fixture(scope="module")
def schema(django_db_blocker) -> dict[str, Any]:
    with django_db_blocker.unblock():
        return APIClient().get("/api/schema/?format=json").json()


def resolve(schema: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    if "allOf" in node and len(node["allOf"]) == 1:
        return resolve(schema, node["allOf"][0])
    return node


def text_places(schema: dict[str, Any], prop: dict[str, Any], hostile: str) -> Iterator[tuple[str, Any]]:
    """(where, value) for each way `prop` can carry `hostile` text: itself, an item, a key, a value."""
    prop = resolve(schema, prop)
    kinds = [resolve(schema, one) for one in prop.get("oneOf", [prop])]
    for kind in kinds:
        if kind.get("type") == "string" and kind.get("format") != "binary" or "enum" in kind:
            yield "text", hostile
        elif kind.get("type") == "array":
            yield "item", [hostile]
        elif kind.get("type") == "object":
            yield "key", {hostile: 1}
            yield "value", {"x": hostile}


def cases(schema: dict[str, Any]) -> Iterator[tuple[str, str, str, str, str, str, Any]]:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in WRITES:
                continue
            for media, content in operation.get("requestBody", {}).get("content", {}).items():
                body = resolve(schema, content["schema"])
                for name, prop in body.get("properties", {}).items():
                    if prop.get("readOnly"):
                        continue
                    for what, hostile in HOSTILE.items():
                        for where, value in text_places(schema, prop, hostile):
                            yield method, path, media, name, what, where, value


def url_of(path: str, world: World) -> str:
    ids = {"{id}": world.batch.pk if path.startswith("/api/batches/") else world.project.pk}
    ids |= {"{project_id}": world.project.pk, "{scorer}": "semeval"}
    for name, value in ids.items():
        path = path.replace(name, str(value))
    return path


BOUNDARY = "hostile-text"


def form_body(name: str, raw: bytes) -> bytes:
    """A multipart form with field `name` as these bytes (a test client would encode them itself)
    and an empty `file`, so the upload's own check does not answer first."""
    part = f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="{{}}"{{}}\r\n\r\n'
    fields = part.format(name, "").encode() + raw + b"\r\n"
    if name != "file":
        fields += part.format("file", '; filename="empty.jsonl"').encode() + b"\r\n"
    return fields + f"--{BOUNDARY}--\r\n".encode()


def test_every_text_field_of_every_write_refuses_a_lone_surrogate_and_nul(world, schema):  # noqa: F811
    staff = staff_with("view_", "add_", "change_", "delete_", "spend_", teams=[world.project.team])
    client = APIClient()
    client.force_authenticate(staff)
    checked, failures = 0, []
    for method, path, media, name, what, where, value in cases(schema):
        url = url_of(path, world)
        if media == "application/json":
            answer = getattr(client, method)(url, data=json.dumps({name: value}), content_type=media)
        elif media == "multipart/form-data" and where == "text":
            # a form's bytes are read as UTF-8 with bad sequences replaced (U+FFFD): a surrogate
            # cannot arrive this way, and what arrives instead must not break anything
            body = form_body(name, value.encode("utf-8", "surrogatepass"))
            answer = client.generic(method.upper(), url, body, content_type=f"multipart/form-data; boundary={BOUNDARY}")
            if what == "lone surrogate":
                assert answer.status_code < 500, (path, name, answer.content)
                continue
        else:
            continue
        checked += 1
        text = answer.content.decode("utf-8", "replace")
        if not (400 <= answer.status_code < 500 and name in text):
            failures.append(f"{method.upper()} {path} {name} ({what} as {where}): {answer.status_code} {text[:200]}")
    assert checked > 40, checked
    assert failures == [], "\n".join(failures)
