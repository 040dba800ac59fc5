"""CSRF masks drawn with one `os.urandom` call instead of 32 `secrets.choice` calls.

Django masks the CSRF secret anew in every page that carries a form (BREACH), with
`get_random_string(32)`: 32 calls of `secrets.choice`, each a `getrandom` system call and a few
Python frames. On an annotator page that cost about 290,000 instructions, 4 % of the request
(counted with callgrind), more than rendering the passage. `new_csrf_string` draws the same
thing, 32 characters independent and uniform over Django's 62, from bytes of `os.urandom`:
bytes 0-247 map to characters (each character four times), 248-255 are dropped and drawn again.

Masking and unmasking (`mask_cipher_secret`, `unmask_cipher_token`) give Django's results
character for character, by table: Django looks up every character's position in the alphabet
in a Python generator, 64 steps per token; here one dict lookup per pair runs in C. Django still
checks the tokens' format and compares them in constant time.
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


_CHARS = csrf.CSRF_ALLOWED_CHARS
#: (secret character, mask character) -> cipher character, and (cipher, mask) -> secret
_ADD = {(s, m): _CHARS[(i + j) % len(_CHARS)] for i, s in enumerate(_CHARS) for j, m in enumerate(_CHARS)}
_SUBTRACT = {(c, m): _CHARS[(i - j) % len(_CHARS)] for i, c in enumerate(_CHARS) for j, m in enumerate(_CHARS)}


def mask_cipher_secret(secret: str) -> str:
    """`django.middleware.csrf._mask_cipher_secret`: a fresh mask, then the secret added to it
    character by character (modulo the alphabet)."""
    mask = csrf._get_new_csrf_string()
    return mask + "".join(map(_ADD.__getitem__, zip(secret, mask)))


def unmask_cipher_token(token: str) -> str:
    """`django.middleware.csrf._unmask_cipher_token`: the second half minus the first (the mask).
    Django checks a token's format before it unmasks one; anything else goes to Django's own."""
    length = csrf.CSRF_SECRET_LENGTH
    try:
        return "".join(map(_SUBTRACT.__getitem__, zip(token[length:], token[:length])))
    except KeyError:
        return _django_unmask(token)


_django_unmask = csrf._unmask_cipher_token


def install() -> None:
    """Let Django's CSRF code draw its secrets and masks here (SurveysConfig.ready)."""
    csrf._get_new_csrf_string = new_csrf_string
    csrf._mask_cipher_secret = mask_cipher_secret
    csrf._unmask_cipher_token = unmask_cipher_token
