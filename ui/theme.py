"""Colours and labels shared by every chart, so a method looks the same on every page."""

from __future__ import annotations

import html

import plotly.graph_objects as go
import plotly.io as pio

from coarsenrank_core.registry import METHODS

# Okabe–Ito and Tableau colours: distinguishable for common colour-vision deficiencies.
_PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#1b1b1b",
            "#7f3c8d", "#999999", "#b8860b", "#8c564b", "#17becf")
METHOD_COLORS: dict[str, str] = {m: _PALETTE[i % len(_PALETTE)] for i, m in enumerate(METHODS)}
METHOD_NAMES: dict[str, str] = {m: spec.name for m, spec in METHODS.items()}
FONT_SIZE = 17
CHART_HEIGHT = 460
#: The trace types the charts draw; the chart template keeps plotly_white's styles for these.
CHART_TRACES = ("bar", "heatmap", "scatter")


def _chart_template() -> go.layout.Template:
    """plotly_white cut to its layout and the styles of :data:`CHART_TRACES`."""
    white = pio.templates["plotly_white"]
    return go.layout.Template(layout=white.layout,
                              data={kind: white.data[kind] for kind in CHART_TRACES})


#: The name under which the charts' template is plotly's default in this process.
CHART_TEMPLATE = "coarsenrank"
pio.templates[CHART_TEMPLATE] = _chart_template()
# every figure takes the default template as it is built, without the validating copy of a
# template handed to update_layout (which was most of the time a chart took to build)
pio.templates.default = CHART_TEMPLATE


def method_color(method_id: str) -> str:
    """The colour of a method on every chart."""
    return METHOD_COLORS.get(method_id, "#444444")


def plot_text(name) -> str:
    """A user-supplied label made safe for plotly, which would read some HTML tags.

    ``<``, ``>`` and ``&`` become entities, so ``<img src=x>`` shows literally.
    """
    return html.escape(str(name), quote=False)
