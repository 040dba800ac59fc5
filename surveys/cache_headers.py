"""`never_cache` for the annotator's pages, without re-parsing headers that are not there yet.

Django's decorator builds the Cache-Control header by parsing it twice (once for max-age, once
for the rest) and formats the date with `email.utils`: 2 % of an annotator request. A page of
ours reaches it with neither header set, so the result is always the same two headers; those
are written directly, and any other response goes through Django's own
`add_never_cache_headers`. tests/surveys/test_cache_headers.py holds both to the same output.
"""
from __future__ import annotations

import time
from functools import wraps
from typing import Callable

from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.utils.http import http_date

#: what `add_never_cache_headers` writes into a response without a Cache-Control header
CACHE_CONTROL = "max-age=0, no-cache, no-store, must-revalidate, private"

_date: tuple[int, str] = (0, "")


def _now() -> str:
    """`http_date()`, formatted once per second."""
    global _date
    second = int(time.time())
    if _date[0] != second:
        _date = (second, http_date(second))
    return _date[1]


def never_cache(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """`django.views.decorators.cache.never_cache` for synchronous views."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not isinstance(request, HttpRequest):  # as Django's: a method decorated without method_decorator
            raise TypeError("never_cache didn't receive an HttpRequest. If you are decorating a "
                            "classmethod, be sure to use @method_decorator.")
        response = view(request, *args, **kwargs)
        headers = response.headers
        if "Cache-Control" in headers or "Expires" in headers:
            add_never_cache_headers(response)
        else:
            headers["Expires"] = _now()
            headers["Cache-Control"] = CACHE_CONTROL
        return response

    return wrapper
