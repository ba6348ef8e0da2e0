"""Sharing a view: the teacher's settings in the URL, and the whole session in one file.

The URL (``st.query_params``) carries what rebuilds the same screen in a fresh browser:

* ``data``: ``sample:<id>`` or ``scenario:<items>,<raters>,<length>,<careless>,<seed>``;
* ``noise``: ``<kind>,<level>,<seed>`` when a noisy copy is shown;
* ``alpha`` and ``rule``: the session's α (written exactly, so the numbers are the same);
* ``methods``: the methods chosen on Compare.

Uploaded data cannot travel in a URL; :func:`session_file` writes the data, the true order
and the choices as one JSON document that :func:`read_session_file` reads back.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from coarsenrank_core import Preferences
from coarsenrank_core.noise import NOISE_TYPES
from coarsenrank_core.registry import METHODS

from . import state
from .samples import SAMPLES

_LOG = logging.getLogger("coarsenrank.dashboard")
SESSION_FORMAT = "coarsenrank-session"
SESSION_VERSION = 1
PARAMS = ("data", "noise", "alpha", "rule", "methods")
RULES = ("knee", "dic-min", "cv", "slider", "typed")
UPLOADED = "upload"


def _alpha_param(alpha: float) -> str:
    return "inf" if alpha == float("inf") else repr(float(alpha))


def view_params() -> dict[str, str]:
    """The URL parameters that rebuild the session's view (none for uploaded data)."""
    dataset = state.current()
    original = dataset.original
    if not original.recipe:
        # uploaded data cannot travel; the marker lets a reload say so instead of silently
        # showing the sample
        return {"data": UPLOADED}
    params = {"data": original.recipe}
    report = dataset.noise
    if report is not None and report.kind:
        params["noise"] = f"{report.kind},{report.level:g},{report.seed}"
    setting = state.peek_alpha()
    if setting is not None and not setting.provisional:
        params["alpha"] = _alpha_param(setting.alpha)
        params["rule"] = setting.rule
    params["methods"] = ",".join(state.methods())
    return params


def write_url() -> None:
    """Keep the address bar in step with the session (after every run of a page)."""
    params = view_params()
    current = {k: st.query_params.get(k) for k in PARAMS if k in st.query_params}
    if current != params:
        st.query_params.from_dict(params)


def share_link() -> str | None:
    """The address that reopens this view, or None when the data were uploaded."""
    params = view_params()
    if params.get("data") == UPLOADED:
        return None
    try:
        base = st.context.url or ""
    except Exception:  # noqa: BLE001 - outside a browser session (tests)
        base = ""
    base = base.split("?", 1)[0]
    return f"{base}?{urlencode(params)}"


def apply_url() -> list[str]:
    """Rebuild the view a URL describes, once per session; returns problems to show.

    Each parameter is checked; one that cannot be used is reported and skipped, the others
    still apply.
    """
    if not state.once("url_applied"):
        return []
    params = {k: st.query_params.get(k) for k in PARAMS if st.query_params.get(k)}
    if not params:
        return []
    problems = []
    from . import compute
    from .scenario import scenario_from_recipe
    recipe = params.get("data", "")
    try:
        if recipe.startswith("sample:") and recipe[7:] in SAMPLES:
            state.set_current(compute.load_sample(recipe[7:]))
        elif recipe.startswith("scenario:"):
            state.set_current(scenario_from_recipe(recipe))
        elif recipe == UPLOADED:
            problems.append("This address was of uploaded data, which cannot travel in a link "
                            "or survive a reload; the sample is loaded instead. To get your "
                            "data back, open the session file you saved (Data page, “A saved "
                            "session”) or upload the file again.")
            return problems
        elif recipe:
            problems.append("The link names data this app does not have; the sample is "
                            "loaded instead.")
    except (ValueError, TypeError):
        problems.append("The link's scenario settings are not valid; the sample is loaded "
                        "instead.")
    if "alpha" in params:
        try:
            alpha = float(params["alpha"])
            if not alpha > 0:
                raise ValueError
        except ValueError:
            problems.append("The link's α is not a positive number; α is chosen from the "
                            "data instead.")
        else:
            rule = params.get("rule") if params.get("rule") in RULES else "typed"
            state.set_alpha(alpha, rule)
    if "methods" in params:
        chosen = [m for m in params["methods"].split(",") if m in METHODS]
        if chosen:
            state.set_methods(chosen)
    if "noise" in params:
        try:
            kind, level, seed = params["noise"].split(",")
            level, seed = float(level), int(seed)
            low, high, _ = NOISE_TYPES[kind].range
            if not (low <= level <= high and 0 <= seed <= 100_000):
                raise ValueError
        except (ValueError, KeyError):
            problems.append("The link's noise settings are not valid; the data are shown "
                            "without noise.")
        else:
            from .noise_report import make_noisy_copy
            make_noisy_copy(kind, level, seed)
    return problems


# ------------------------------------------------------------------ the session file
def session_file() -> bytes:
    """The loaded data, its true order and the session's choices as one JSON document."""
    return session_writer()()


def session_writer():
    """A function that writes the session file of the session as it is now.

    It holds only references, so the (possibly large) document is built only when the
    download is asked for.
    """
    dataset, setting, methods = state.current(), state.peek_alpha(), state.methods()
    return lambda: _document(dataset, setting, methods)


def _document(dataset, setting, methods) -> bytes:
    original = dataset.original
    prefs = original.preferences
    document = {
        "format": SESSION_FORMAT, "version": SESSION_VERSION,
        "name": original.name, "description": original.description,
        "recipe": original.recipe,
        "preferences": {
            "items": prefs.items.tolist(), "offsets": prefs.offsets.tolist(),
            "groups": prefs.groups.tolist(), "n_items": int(prefs.n_items),
            "weights": None if prefs.weights is None else prefs.weights.tolist(),
            "rankers": None if prefs.rankers is None else prefs.rankers.tolist(),
            "item_names": None if prefs.item_names is None else list(prefs.item_names),
            "ranker_names": None if prefs.ranker_names is None else list(prefs.ranker_names),
            "notes": list(prefs.notes)},
        "truth": None if original.truth is None else np.asarray(original.truth).tolist(),
        "careless": None if original.careless is None else list(original.careless),
        "read_as": list(original.read_as),
        "choices": {
            "alpha": None if setting is None else _alpha_param(setting.alpha),
            "rule": None if setting is None else setting.rule,
            "methods": list(methods),
            "noise": (None if dataset.noise is None else
                      {"kind": dataset.noise.kind, "level": dataset.noise.level,
                       "seed": dataset.noise.seed})},
    }
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


class SessionFileError(ValueError):
    """A file that is not a session file this app wrote."""


def read_session_file(data: bytes) -> tuple[state.Dataset, dict]:
    """The dataset and the choices of a session file (raises :class:`SessionFileError`)."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SessionFileError("This is not a session file: it is not JSON.") from error
    if not isinstance(document, dict) or document.get("format") != SESSION_FORMAT:
        raise SessionFileError("This JSON file is not a CoarsenRank session file (it has no "
                               f"\"format\": \"{SESSION_FORMAT}\").")
    if document.get("version") != SESSION_VERSION:
        raise SessionFileError("This session file comes from another version of the app.")
    try:
        raw = document["preferences"]
        arrays = {k: np.asarray(raw[k], dtype=np.intp) for k in ("items", "offsets", "groups")}
        prefs = Preferences(
            items=arrays["items"], offsets=arrays["offsets"], groups=arrays["groups"],
            n_items=int(raw["n_items"]),
            weights=None if raw.get("weights") is None else np.asarray(raw["weights"], float),
            rankers=None if raw.get("rankers") is None else np.asarray(raw["rankers"], np.intp),
            item_names=None if raw.get("item_names") is None else tuple(
                str(n) for n in raw["item_names"]),
            ranker_names=None if raw.get("ranker_names") is None else tuple(
                str(n) for n in raw["ranker_names"]),
            notes=tuple(str(n) for n in raw.get("notes", ())))
        truth = document.get("truth")
        truth = None if truth is None else np.asarray(truth, dtype=float)
        if truth is not None and truth.shape != (prefs.n_items,):
            raise ValueError("the true order does not have one score per item")
        careless = document.get("careless")
        dataset = state.Dataset(
            name=str(document.get("name", "Saved session")), preferences=prefs, truth=truth,
            origin="session", description=str(document.get("description", "")),
            read_as=tuple(str(line) for line in document.get("read_as", ())),
            careless=None if careless is None else tuple(int(r) for r in careless),
            recipe=str(document.get("recipe", "")))
    except (KeyError, TypeError, ValueError) as error:
        raise SessionFileError(f"This session file is damaged: {error}") from error
    choices = document.get("choices") or {}
    return dataset, choices if isinstance(choices, dict) else {}


def open_session_file(data: bytes) -> state.Dataset:
    """Load a session file: its data, true order, α, methods and noise."""
    dataset, choices = read_session_file(data)
    state.set_current(dataset)
    try:
        alpha = float(choices["alpha"]) if choices.get("alpha") is not None else None
    except (TypeError, ValueError):
        alpha = None
    if alpha is not None and alpha > 0:
        rule = choices.get("rule") if choices.get("rule") in RULES else "typed"
        state.set_alpha(alpha, rule)
    chosen = [m for m in choices.get("methods") or () if m in METHODS]
    if chosen:
        state.set_methods(chosen)
    noise = choices.get("noise")
    if isinstance(noise, dict) and noise.get("kind") in NOISE_TYPES:
        from .noise_report import make_noisy_copy
        try:
            make_noisy_copy(str(noise["kind"]), float(noise["level"]), int(noise["seed"]))
        except (TypeError, ValueError, KeyError):
            _LOG.warning("session file noise settings ignored")
    return state.current()
