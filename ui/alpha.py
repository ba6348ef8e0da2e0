"""The session's one α: its setting, the "quick to choose" rule, the refine step and its widget."""

from __future__ import annotations

import logging
from dataclasses import dataclass

import streamlit as st

from coarsenrank_core import Preferences
from coarsenrank_core.alpha import DEFAULT_RULE, alpha_in_range
from coarsenrank_core.defaults import QUICK_CHOICE_ENTRIES
from coarsenrank_core.dic import auto_alpha_grid

from . import state
from .compute import alpha_choice
from .text import alpha_number
from .widgets import note_stopped, restartable

__all__ = ["AlphaSetting", "QUICK_CHOICE_ENTRIES", "quick_to_choose", "current", "peek",
           "set_alpha", "set_from_token", "refine", "note_stop", "refine_step", "alpha_text",
           "alpha_input_text", "parse_alpha", "BAD_ALPHA", "alpha_widget", "RULES",
           "CONTROLS"]

_LOG = logging.getLogger("coarsenrank.dashboard")

#: The α rules that choose α from the data (:func:`~coarsenrank_core.choose_alpha`'s), and
#: ``"provisional"``: α = N while the data choose α on large data.
RULES = ("knee", "dic-min", "cv", "provisional")
#: The controls that set α: the default rule on first use, a page's widget, a link or a
#: session file.
CONTROLS = ("default", "slider", "typed", "button", "link")

_HOW = {"knee": "chosen from the data: where the DIC curve levels off",
        "dic-min": "chosen from the data: lowest DIC",
        "cv": "chosen from the data: cross-validation",
        "provisional": "provisional, α = N (τ = ½), until the data have chosen α",
        "slider": "set with the slider", "typed": "typed in"}


@dataclass(frozen=True)
class AlphaSetting:
    """The session's one α: its value, the rule that chose it, the control that set it.

    ``rule`` is the α rule that chose the value (one of :data:`RULES`), or ``None`` when a
    person set it by hand (the Consensus slider, a typed value). ``control`` is what wrote
    it (one of :data:`CONTROLS`). ``data_key`` is the key of the *original* dataset: a noisy
    copy shares the α of the data it came from.
    """

    alpha: float
    rule: str | None
    control: str
    data_key: str

    @property
    def token(self) -> str:
        """The one word links and session files keep (``rule=…``): the rule, or for a value
        set by hand the control (``"slider"``, ``"typed"``)."""
        return self.rule if self.rule is not None else self.control

    @classmethod
    def from_token(cls, alpha: float, token: str, data_key: str,
                   control: str = "link") -> AlphaSetting:
        """The setting a link's or a session file's ``rule`` word stands for."""
        if token in RULES:
            return cls(alpha=float(alpha), rule=token, control=control, data_key=data_key)
        return cls(alpha=float(alpha), rule=None, control=token, data_key=data_key)

    @property
    def how(self) -> str:
        """How α was set, in a few words."""
        return _HOW.get(self.token, self.token)

    @property
    def provisional(self) -> bool:
        """Whether this α only stands in while the data choose α (large data)."""
        return self.rule == "provisional"


def quick_to_choose(prefs: Preferences) -> bool:
    """Whether choosing α by the default rule is quick enough to wait for before drawing.

    The one rule of the dashboard (the sidebar, every page, the Consensus and DIC pages):
    the sweep's cost is its Gibbs sweeps, each one pass over the distinct lists' entries
    (:attr:`Preferences.pooled`), so data of at most :data:`QUICK_CHOICE_ENTRIES` distinct
    entries are quick (Readlevel ×100: 4,980) and a SUSHI-shaped upload (50,000) is not.
    """
    return (int(prefs.items.size) <= QUICK_CHOICE_ENTRIES
            or int(prefs.pooled.items.size) <= QUICK_CHOICE_ENTRIES)


def peek() -> AlphaSetting | None:
    """The session's α if it was already chosen or set for the loaded data (no work)."""
    stored = state.kept_alpha()
    return stored if stored is not None and stored.data_key == state.current().original.key \
        else None


def current() -> AlphaSetting:
    """The session's α for the loaded data, chosen by the default rule on first use.

    Every page and the sidebar read α here, and every α control writes it with
    :func:`set_alpha`, so all of them show and use the same value. A noisy copy reads the α
    of its original. On data whose α is not :func:`quick_to_choose`, the first answer is the
    provisional α = N (τ = ½): the page is drawn at once, and :func:`refine_step` (run by
    the shell after the page) chooses α and draws the page again.
    """
    stored = peek()
    if stored is not None:
        return stored
    original = state.current().original
    if not quick_to_choose(original.preferences):
        stored = AlphaSetting(alpha=float(original.preferences.total_weight),
                              rule="provisional", control="default", data_key=original.key)
    else:
        choice = alpha_choice(original.preferences, original.key, DEFAULT_RULE)
        stored = AlphaSetting(alpha=choice.alpha, rule=choice.rule, control="default",
                              data_key=original.key)
    state.keep_alpha(stored)
    return stored


def set_alpha(alpha: float, rule: str | None = None, control: str = "button") -> None:
    """Make ``alpha`` the session's α for the loaded data (and its noisy copies).

    ``rule`` is the α rule that chose it (None when set by hand), ``control`` what set it.
    """
    state.keep_alpha(AlphaSetting(alpha=float(alpha), rule=rule, control=control,
                                  data_key=state.current().original.key))


def set_from_token(alpha: float, token: str) -> None:
    """Set α from a link's or a session file's ``rule`` word (see :attr:`AlphaSetting.token`)."""
    state.keep_alpha(AlphaSetting.from_token(alpha, token, state.current().original.key))


def refine() -> bool:
    """Replace a provisional α by the default rule's choice; True when α changed."""
    stored = peek()
    if stored is None or not stored.provisional:
        return False
    original = state.current().original
    choice = alpha_choice(original.preferences, original.key, DEFAULT_RULE)
    set_alpha(choice.alpha, choice.rule, control="default")
    return True


def note_stop() -> None:
    """Called by the shell before the page runs: remember that Stop ended the choice (the
    page may end the run before :func:`refine_step`)."""
    note_stopped("alpha", state.current().original.key)


def refine_step(notice) -> None:
    """After the page is drawn at a provisional α (large data), choose α and redraw.

    The choice shows a progress bar with an estimate and a Stop button; after Stop the
    provisional α stays, with a button to choose again.
    """
    setting = peek()
    if setting is None or not setting.provisional:
        return
    with notice:
        task = restartable("alpha", "Choosing α from the data was stopped; the pages use "
                           f"the provisional {alpha_text(setting.alpha)} (τ = ½).",
                           key=state.current().original.key,
                           restart="Choose α from the data now")
        if not task:
            return
        st.info("This page is drawn at a provisional α = N (τ = ½). α is now being chosen "
                "from the data (where the DIC curve levels off); the page updates when it "
                "is ready.")
        try:
            with task:
                changed = refine()
        except Exception:  # noqa: BLE001 - a failed choice leaves the provisional α
            _LOG.exception("choosing alpha failed")
            st.warning("α could not be chosen from the data; the pages keep the provisional "
                       "α. Try the DIC page.")
            return
    if changed:
        st.rerun()


def alpha_text(alpha: float) -> str:
    """``α = 200 (τ = 0.0155)`` for the current dataset; α = ∞ is the plain model."""
    if alpha == float("inf"):
        return "α = ∞ (τ = 1, the plain model)"
    return f"α = {alpha_number(alpha)} (τ = {state.tau_of(alpha):.3g})"


def alpha_input_text(alpha: float) -> str:
    """α as typed in a text box: ``8.4`` or ``inf``."""
    return "inf" if alpha == float("inf") else f"{alpha:g}"


def parse_alpha(text: str) -> float | None:
    """α from a text box: a number from 10⁻⁶ to 10¹² or ``inf``; None when it is not one."""
    try:
        value = float(str(text).strip().lower().replace("∞", "inf"))
    except ValueError:
        return None
    return value if alpha_in_range(value) else None


#: What a typed α that is not one gets.
BAD_ALPHA = "α must be a number from 0.000001 to 10¹² (1e12), or inf."


def alpha_widget(control: str, key: str | None = None, *, label: str = "",
                 alpha: float | None = None, rule: str | None = None,
                 where=st, **options) -> AlphaSetting | None:
    """The one α control of the pages: it shows the session's α and writes what it sets.

    ``control`` says which:

    * ``"slider"`` (Consensus): a slider over the automatic grid, the session's α and ∞;
    * ``"typed"`` (Compare, inside its form): a text box; a value that is not an α shows
      :data:`BAD_ALPHA` and returns ``None``;
    * ``"button"`` (DIC): "use this α" for ``alpha`` chosen by ``rule``; returns the new
      setting when pressed (it is set before the page runs), else ``None``;
    * ``"shown"`` (Noise): no control; ``label`` is drawn with ``draw=`` (``st.caption``
      by default) after ``{alpha}`` and ``{how}`` in it are replaced.

    A widget shows the session's α again whenever another page, a link or a button changed
    it. Every other control returns the session's setting after the change.
    """
    if control == "button":
        pressed = where.button(label, key=key, on_click=set_alpha, args=(alpha, rule),
                               **options)
        return current() if pressed else None
    setting = current()
    if control == "shown":
        # replace, not str.format: the label may hold user text (a dataset's name)
        text = label.replace("{alpha}", alpha_text(setting.alpha)).replace("{how}",
                                                                           setting.how)
        options.get("draw", st.caption)(text)
        return setting
    if control == "slider":
        prefs = state.current().preferences
        grid = sorted({*auto_alpha_grid(prefs.total_weight).tolist(), setting.alpha,
                       float("inf")})
        state.show_in_widget(key, setting.alpha)
        value = where.select_slider(label, options=grid, format_func=alpha_number, key=key,
                                    **options)
        if value != setting.alpha:
            set_alpha(value, None, control="slider")
            state.mark_shown(key, value)
        return current()
    if control == "typed":
        state.show_in_widget(key, alpha_input_text(setting.alpha))
        typed = where.text_input(label, key=key, **options)
        if typed == alpha_input_text(setting.alpha):
            return setting
        value = parse_alpha(typed)
        if value is None:
            st.error(BAD_ALPHA)
            return None
        if value != setting.alpha:
            set_alpha(value, None, control="typed")
        state.mark_shown(key, alpha_input_text(value))
        return current()
    raise ValueError(f"unknown α control {control!r}")
