"""CSRF masks drawn with one `os.urandom` call instead of 32 `secrets.choice` calls.

Django masks the CSRF secret anew in every page that carries a form (BREACH), with
`get_random_string(32)`: 32 calls of `secrets.choice`, each a `getrandom` system call and a few
Python frames. On an annotator page that cost about 290,000 instructions, 4 % of the request
(counted with callgrind), more than rendering the passage. `new_csrf_string` draws the same
thing, 32 characters independent and uniform over Django's 62, from bytes of `os.urandom`:
bytes 0-247 map to characters (each character four times), 248-255 are dropped and drawn again.
Only the random source changes; Django still masks, unmasks and compares the tokens.
"""
from __future__ import annotations

import os

from django.middleware import csrf

#: byte -> character: 248 = 4 x 62, so each of the 62 characters stands for exactly 4 byte values
_KEPT = 4 * len(csrf.CSRF_ALLOWED_CHARS)
_TABLE = bytes(ord(csrf.CSRF_ALLOWED_CHARS[b % len(csrf.CSRF_ALLOWED_CHARS)]) if b < _KEPT else 0 for b in range(256))
_DROPPED = bytes(range(_KEPT, 256))


def new_csrf_string() -> str:
    """What `django.middleware.csrf._get_new_csrf_string` returns: CSRF_SECRET_LENGTH characters
    of CSRF_ALLOWED_CHARS, from the operating system's random source."""
    length = csrf.CSRF_SECRET_LENGTH
    drawn = b""
    while len(drawn) < length:  # 40 bytes keep 32 or more but for a chance of 3e-6
        drawn += os.urandom(length + 8).translate(_TABLE, _DROPPED)
    return drawn[:length].decode("ascii")


def install() -> None:
    """Let Django's CSRF code draw its secrets and masks here (SurveysConfig.ready)."""
    csrf._get_new_csrf_string = new_csrf_string
