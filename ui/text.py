"""User text shown by Streamlit as plain text: never Markdown, links, images or HTML."""

from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]<>#!|~$:])")


def plain(text: str) -> str:
    """``text`` escaped so that Streamlit's Markdown shows it literally.

    Every character that starts Markdown emphasis, code, links, images, HTML, tables,
    maths or emoji short codes gets a backslash; line breaks stay.
    """
    return _MARKDOWN.sub(r"\\\1", str(text))
