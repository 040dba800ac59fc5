"""surveys.cache_headers.never_cache writes the headers Django's never_cache writes."""
import pytest
from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.test import RequestFactory
from django.views.decorators.cache import never_cache as djangos_never_cache

from surveys.cache_headers import never_cache


def _responses():
    yield HttpResponse("page")
    yield HttpResponseRedirect("/elsewhere/")
    with_control = HttpResponse("cached")
    with_control["Cache-Control"] = "public, max-age=60"
    yield with_control
    with_expires = HttpResponse("expires")
    with_expires["Expires"] = "Thu, 01 Jan 2099 00:00:00 GMT"
    yield with_expires
    no_cache_fields = HttpResponse("fields")
    no_cache_fields["Cache-Control"] = 'no-cache="Set-Cookie"'
    yield no_cache_fields


@pytest.mark.parametrize("index", range(5))
def test_the_same_headers_as_djangos_never_cache(index, monkeypatch):
    import time

    monkeypatch.setattr(time, "time", lambda: 1_790_000_000.75)  # both read the same second
    ours, theirs = list(_responses())[index], list(_responses())[index]
    request = RequestFactory().get("/")
    never_cache(lambda r: ours)(request)
    djangos_never_cache(lambda r: theirs)(request)
    assert dict(ours.headers) == dict(theirs.headers)
    assert ours["Expires"] and "no-store" in ours["Cache-Control"]


def test_the_date_follows_the_clock(monkeypatch):
    import time

    clock = [1_790_000_000.2]
    monkeypatch.setattr(time, "time", lambda: clock[0])
    view = never_cache(lambda r: HttpResponse("x"))
    first = view(RequestFactory().get("/"))["Expires"]
    clock[0] += 1
    second = view(RequestFactory().get("/"))["Expires"]
    assert first != second and first.endswith("GMT") and second.endswith("GMT")


def test_errors_pass_through_and_a_non_request_is_refused():
    def missing(request):
        raise Http404("gone")

    with pytest.raises(Http404):
        never_cache(missing)(RequestFactory().get("/"))
    with pytest.raises(TypeError, match="method_decorator"):
        never_cache(lambda r: HttpResponse("x"))(object())
