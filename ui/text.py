"""User text shown by Streamlit as plain text: never Markdown, links, images or HTML."""

from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#!|~$:])")


def plain(text: str) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it literally.

    Every character that starts Markdown emphasis, code, links, images, HTML, tables,
    maths or emoji short codes gets a backslash; line breaks stay. Bare addresses
    (``http://…``, ``www.…``, ``name@host``) would still be turned into links by GitHub's
    autolink rule, which ignores backslashes, so an invisible word joiner (U+2060) is put
    inside ``://``, after ``www`` and before ``@``: the text reads the same and links nothing.
    """
    escaped = _MARKDOWN.sub(r"\\\1", str(text))
    return _AUTOLINK.sub(lambda m: m.group(0)[:-1] + _JOINER + m.group(0)[-1], escaped)


_JOINER = "\u2060"
_AUTOLINK = re.compile(r"(?:\\:/|(?<![^\W_])www\.|@)", re.IGNORECASE)


def number(value: float) -> str:
    """A number for people: ``2,000,000``, ``8.4``, ``0.0155``, ``∞``.

    Whole numbers get thousands separators; others three significant digits (with
    separators when large), never scientific notation below 10¹⁵.
    """
    value = float(value)
    if value != value:
        return "—"
    if value in (float("inf"), float("-inf")):
        return "∞" if value > 0 else "−∞"
    if abs(value) >= 1e15:
        mantissa, exponent = f"{value:.2e}".split("e")
        return f"{float(mantissa):g} × 10{_superscript(int(exponent))}"
    if value == int(value):
        return f"{int(value):,}"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _superscript(exponent: int) -> str:
    return str(exponent).translate(_SUPERSCRIPT)


def alpha_number(value: float) -> str:
    """α as people read it: ``22.36``, ``2,000,000``, ``∞`` (six significant digits)."""
    value = float(value)
    if value == float("inf"):
        return "∞"
    if value >= 1000:
        return number(round(value))
    return f"{value:g}"


def count(n: float, singular: str, plural: str | None = None) -> str:
    """``1 item``, ``200,000 comparisons``: the number formatted, the noun pluralised."""
    word = singular if n == 1 else (plural or singular + "s")
    return f"{number(n)} {word}"


def list_word(prefs) -> str:
    """What one preference is called for these data: ``comparison`` or ``list``."""
    return "comparison" if prefs.is_pairwise else "list"
