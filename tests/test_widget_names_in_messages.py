"""The Data page's widgets that the readers' messages name exist under those names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _importer_widgets() -> dict[str, list[str]]:
    """Each selectbox, multiselect and radio of ui/importer.py: its label -> its literal
    options (empty when they come from the file)."""
    widgets: dict[str, list[str]] = {}
    tree = ast.parse((ROOT / "ui" / "importer.py").read_text())
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("selectbox", "multiselect", "radio") and node.args):
            label = ast.literal_eval(node.args[0]) if isinstance(
                node.args[0], (ast.Constant, ast.JoinedStr, ast.BinOp)) else None
            if not isinstance(label, str):
                continue
            options = node.args[1] if len(node.args) > 1 else None
            literal = (ast.literal_eval(options) if isinstance(options, ast.List)
                       and all(isinstance(e, ast.Constant) for e in options.elts) else [])
            widgets[label] = literal
    return widgets


def _named_in_messages() -> set[str]:
    """The widget names the engine's messages quote: 'Column …', 'Columns …', 'Rank …'."""
    names = set()
    for path in (ROOT / "coarsenrank_core").rglob("*.py"):
        code = re.sub(r"(?m)^\s*#.*$", "", path.read_text())  # comments name no widget
        joined = re.sub(r'"\s*\n\s*f?"', "", code)  # literals split over lines
        names |= set(re.findall(r"'((?:Column|Columns|Rank numbers) [^']*)'", joined))
    return names


def test_every_widget_a_message_names_is_on_the_data_page():
    widgets = _importer_widgets()
    named = _named_in_messages()
    assert {"Column naming who ranked", "Rank numbers mean: 1 is the worst"} <= named
    for name in named:
        label, _, option = name.partition(": ")
        found = [w for w in widgets if w == label or w.startswith(label + " (")
                 or w.startswith(label + ";")]
        assert found, f"messages name the widget {label!r}; the Data page has {list(widgets)}"
        if option:
            assert option in widgets[found[0]], (name, widgets[found[0]])


def test_every_layout_a_message_names_is_one_the_data_page_offers():
    from coarsenrank_core.io import FORMATS

    titles = {f.title.lower() for f in FORMATS.values()}
    named = set()
    for path in (ROOT / "coarsenrank_core").rglob("*.py"):
        joined = re.sub(r'"\s*\n\s*f?"', "", path.read_text())
        named |= set(re.findall(r"the layout '([^']*)'", joined))
    assert "long rankings" in named
    assert {n.lower() for n in named} <= titles, named
