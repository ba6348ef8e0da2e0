"""The glossary (ui/glossary.py): one plain line for every word the pages explain."""

import ast
from pathlib import Path

from coarsenrank_core.uncertainty import INTERVAL_LEVEL
from ui.glossary import GLOSSARY

PAGES = Path(__file__).resolve().parents[1] / "pages"


def terms_the_pages_ask_for() -> set[str]:
    asked = set()
    for page in PAGES.glob("*.py"):
        for node in ast.walk(ast.parse(page.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "glossary":
                asked |= {a.value for a in node.args if isinstance(a, ast.Constant)}
    return asked


def test_every_term_a_page_asks_for_is_explained():
    asked = terms_the_pages_ask_for()
    assert {"consensus", "likely_ranks", "alpha", "dic"} <= asked
    assert asked <= set(GLOSSARY)


def test_every_entry_is_one_plain_line():
    for term, line in GLOSSARY.items():
        assert line and "\n" not in line and line.endswith((".", ")")), term


def test_the_default_answer_and_the_likely_ranks_are_described_as_the_pages_fit_them():
    assert "plain Plackett–Luce, with each rater (or list) counted by its chance of being " \
        "careful under PL-mix" in GLOSSARY["consensus"]
    assert "CoarsenPL at the session's α" in GLOSSARY["consensus"]
    assert f"{INTERVAL_LEVEL:.0%} of refits on the raters resampled" in GLOSSARY["likely_ranks"]
    assert "Not the same τ" in GLOSSARY["tau"] and "not the tempering τ" in \
        GLOSSARY["kendall_tau_b"]
