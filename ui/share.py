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
import re
from collections import Counter
from dataclasses import dataclass, replace
from urllib.parse import urlencode

import numpy as np
import streamlit as st

from coarsenrank_core import Preferences
from coarsenrank_core.alpha import MAX_ALPHA, MIN_ALPHA, alpha_in_range
from coarsenrank_core.io import DECLARED_FACTOR, DECLARED_SLACK, declared_within_present
from coarsenrank_core.io.assembly import same_name_key, tidy_text
from coarsenrank_core.noise import NOISE_TYPES
from coarsenrank_core.registry import METHODS

from . import alpha as session_alpha
from . import state
from .samples import SAMPLES

SESSION_FORMAT = "coarsenrank-session"
SESSION_VERSION = 1
PARAMS = ("data", "noise", "alpha", "rule", "methods")
RULES = ("knee", "dic-min", "cv", "slider", "typed")
UPLOADED = "upload"
#: methods read from a link (the registry holds fewer; the rest of a long list is ignored)
MAX_LINK_METHODS = 2 * len(METHODS)


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
    setting = session_alpha.peek()
    if setting is not None and not setting.provisional:
        params["alpha"] = _alpha_param(setting.alpha)
        params["rule"] = setting.token
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


@dataclass(frozen=True)
class LinkView:
    """What a link asks for, every part checked (None where it asks for nothing usable)."""

    dataset: state.Dataset | None = None
    alpha: float | None = None
    rule: str = "typed"
    methods: tuple[str, ...] = ()
    noise: tuple[str, float, int] | None = None


def read_link(params: dict) -> tuple[LinkView, list[str]]:
    """The view a link's parameters describe, and the problems to show.

    Each parameter is checked; one that cannot be used is reported and skipped, the others
    still apply: the data only as ``sample:<id>`` or a scenario within the scenario
    builder's limits, α within [MIN_ALPHA, MAX_ALPHA] or ``inf``, each known method once
    (at most :data:`MAX_LINK_METHODS` are looked at), noise within its menu's range.
    """
    params = {k: v for k, v in params.items() if k in PARAMS and isinstance(v, str) and v}
    problems: list[str] = []
    recipe = params.get("data", "")
    dataset = None
    if recipe == UPLOADED:
        problems.append("This address was of uploaded data, which cannot travel in a link "
                        "or survive a reload; the sample is loaded instead. To get your "
                        "data back, open the session file you saved (Data page, “A saved "
                        "session”) or upload the file again.")
        return LinkView(), problems
    if recipe:
        dataset = _rebuilt(recipe)
        if dataset is None:
            problems.append("The link's scenario settings are not valid; the sample is "
                            "loaded instead." if recipe.startswith("scenario:") else
                            "The link names data this app does not have; the sample is "
                            "loaded instead.")
    alpha, rule = None, "typed"
    if "alpha" in params:
        alpha = _alpha_value(params["alpha"])
        if alpha is None:
            problems.append(f"The link's α is not a positive number from {MIN_ALPHA:g} to "
                            f"{MAX_ALPHA:g} (or inf); α is chosen from the data instead.")
        elif params.get("rule") in RULES:
            rule = params["rule"]
    methods: list[str] = []
    if "methods" in params:
        listed = params["methods"].split(",", MAX_LINK_METHODS)[:MAX_LINK_METHODS]
        methods = known_methods(listed)
        if len(methods) < len(listed):
            problems.append("The link repeats methods or names unknown ones; each known "
                            "method is kept once.")
    noise = None
    if "noise" in params:
        parts = params["noise"].split(",")
        checked = None
        if len(parts) == 3:
            try:
                checked = _noise({"kind": parts[0], "level": float(parts[1]),
                                  "seed": int(parts[2]) if len(parts[2]) < 10 else -1})
            except ValueError:
                checked = None
        if checked is None:
            problems.append("The link's noise settings are not valid; the data are shown "
                            "without noise.")
        else:
            noise = (checked["kind"], checked["level"], checked["seed"])
    return LinkView(dataset, alpha, rule, tuple(methods), noise), problems


def apply_url() -> list[str]:
    """Rebuild the view a URL describes (:func:`read_link`), once per session; returns
    the problems to show."""
    if not state.once("url_applied"):
        return []
    params = {k: st.query_params.get(k) for k in PARAMS if st.query_params.get(k)}
    if not params:
        return []
    view, problems = read_link(params)
    if view.dataset is not None:
        state.set_current(view.dataset)
    if view.alpha is not None:
        session_alpha.set_from_token(view.alpha, view.rule)
    if view.methods:
        state.set_methods(view.methods)
    if view.noise is not None:
        from .noise_report import make_noisy_copy
        make_noisy_copy(*view.noise)
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
    dataset, setting, methods = state.current(), session_alpha.peek(), state.methods()
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
            "rule": None if setting is None else setting.token,
            "methods": list(methods),
            "noise": (None if dataset.noise is None else
                      {"kind": dataset.noise.kind, "level": dataset.noise.level,
                       "seed": dataset.noise.seed})},
    }
    return json.dumps(document, ensure_ascii=False).encode("utf-8")


class SessionFileError(ValueError):
    """A file that is not a session file this app wrote, or one that breaks its schema.

    The message says, in plain words, which field is wrong and what it should hold.
    """


#: At most this many characters of a session's name, and of its description.
MAX_NAME_CHARS, MAX_DESCRIPTION_CHARS = 500, 20_000
#: At most this many notes on the data, and lines on how its file was read (each shown as
#: one box of the Data page; the readers write a few).
MAX_NOTES = 100
NOISE_SEEDS = (0, 100_000)
#: Brackets a session file may hold before it is parsed: a saved session has a few dozen
#: lists and objects, and a million empty ones would take a hundred megabytes to build.
MAX_BRACKETS = 1_000_000
#: Half of a surrogate pair (JSON's ``\udc80``): no text file, table or database holds one.
_BROKEN = re.compile("[\ud800-\udfff]")
_BROKEN_SAID = "holds a broken character (half of a pair), which no text can hold"


def _damaged(field: str, what: str) -> SessionFileError:
    return SessionFileError(f"This session file is damaged: “{field}” {what}. Save the session "
                            "again from the app, or upload the data file itself.")


def _array(value, field: str, kinds: str, what: str) -> np.ndarray:
    """A JSON list as a one-dimensional array whose dtype kind is one of ``kinds``."""
    if not isinstance(value, list):
        raise _damaged(field, f"must be a list of {what}")
    if not value:
        return np.zeros(0, dtype=np.int64 if "i" in kinds else float)
    try:
        array = np.asarray(value)
    except (ValueError, TypeError, OverflowError, RecursionError):
        raise _damaged(field, f"must be a list of {what}") from None
    if array.ndim != 1 or array.dtype.kind not in kinds:
        raise _damaged(field, f"must be a list of {what}")
    return array


def _whole_numbers(value, field: str) -> np.ndarray:
    """A list of whole numbers (within 64 bits) as an array; never texts or fractions."""
    return _array(value, field, "i", "whole numbers").astype(np.int64, copy=False)


def _numbers(value, field: str, size: int | None = None) -> np.ndarray:
    """A list of finite numbers as a float array."""
    array = _array(value, field, "if", "numbers").astype(float, copy=False)
    if not np.isfinite(array).all():
        raise _damaged(field, "holds a number that is not finite (Infinity or NaN)")
    if size is not None and array.size != size:
        raise _damaged(field, f"must hold {size:,} numbers, not {array.size:,}")
    return array


def _texts(value, field: str, limit: int | None = None, most: int | None = None
           ) -> tuple[str, ...]:
    """A list of texts, each of at most ``limit`` characters and at most ``most`` of them."""
    if not isinstance(value, list):
        raise _damaged(field, "must be a list of texts")
    if most is not None and len(value) > most:
        raise _damaged(field, f"holds {len(value):,} texts; a session has at most {most:,}")
    if not all(isinstance(v, str) for v in value):
        raise _damaged(field, "must be a list of texts")
    if limit is not None and any(len(v) > limit for v in value):
        raise _damaged(field, f"holds a text longer than {limit:,} characters")
    if any(_BROKEN.search(v) for v in value):
        raise _damaged(field, _BROKEN_SAID)
    return tuple(value)


def _text(document: dict, field: str, default: str, limit: int) -> str:
    value = document.get(field, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise _damaged(field, "must be a text")
    if len(value) > limit:
        raise _damaged(field, f"is longer than {limit:,} characters")
    if _BROKEN.search(value):
        raise _damaged(field, _BROKEN_SAID)
    return value


def _distinct_names(names: tuple[str, ...], field: str = "preferences.item_names",
                    what: str = "item", visible: bool = True) -> None:
    """Refuse names (of items, or of raters) that cannot be told apart on screen: a name
    with nothing visible, or two names the readers would merge
    (:func:`~coarsenrank_core.io.assembly.same_name_key`: the same but for Unicode form,
    invisible characters, spacing, quote marks or a spreadsheet's leading apostrophe);
    ``visible`` also refuses a name with nothing visible (items: the readers never name one
    so; a rater's id may be any text)."""
    for position, name in enumerate(names if visible else (), start=1):
        if not tidy_text(name):
            raise _damaged(field, f"gives {what} {position:,} a name with nothing visible in it")
    first: dict[str, int] = {}
    for position, name in enumerate(map(same_name_key, names), start=1):
        if first.setdefault(name, position) != position:
            raise _damaged(field, f"gives {what}s {first[name]:,} and {position:,} the same "
                                  "name")


def _preferences(raw) -> Preferences:
    """The preferences of a session file, checked field by field before any is built."""
    if not isinstance(raw, dict):
        raise _damaged("preferences", "must be an object with items, offsets and groups")
    missing = [k for k in ("items", "offsets", "groups", "n_items", "item_names")
               if raw.get(k) is None]
    if missing:
        raise _damaged("preferences", "has no " + ", ".join(f"“{k}”" for k in missing))
    items = _whole_numbers(raw["items"], "preferences.items")
    offsets = _whole_numbers(raw["offsets"], "preferences.offsets")
    groups = _whole_numbers(raw["groups"], "preferences.groups")
    n_items = raw["n_items"]
    if isinstance(n_items, bool) or not isinstance(n_items, int) or n_items < 1:
        raise _damaged("preferences.n_items", "must be a whole number of at least 1")
    names = _texts(raw["item_names"], "preferences.item_names", MAX_NAME_CHARS)
    if len(names) != n_items:
        raise _damaged("preferences.item_names",
                       f"gives {len(names):,} names for {n_items:,} items")
    _distinct_names(names)
    if groups.size != items.size:
        raise _damaged("preferences.groups", "must hold one number per entry of “items”")
    if items.size and (items.min() < 0 or items.max() >= n_items):
        raise _damaged("preferences.items", f"must hold item ids from 0 to {n_items - 1:,}")
    present = np.unique(items).size
    if not declared_within_present(n_items, present):
        raise SessionFileError(
            f"This session file declares {n_items:,} items, but its lists use only "
            f"{present:,} of them; a file may name at most {DECLARED_FACTOR}× the items it "
            f"uses plus {DECLARED_SLACK:,}. Save the session again from the app, or upload "
            "the data file itself.")
    n = offsets.size - 1
    if n < 1 or items.size == 0:
        raise SessionFileError("This session file holds no rankings. Save the session again "
                               "from the app, or upload the data file itself.")
    weights = raw.get("weights")
    weights = None if weights is None else _numbers(weights, "preferences.weights", max(n, 0))
    rankers, ranker_names = raw.get("rankers"), raw.get("ranker_names")
    if rankers is not None:
        rankers = _whole_numbers(rankers, "preferences.rankers")
        if ranker_names is None:
            raise _damaged("preferences.ranker_names", "is missing: every rater needs a name")
        ranker_names = _texts(ranker_names, "preferences.ranker_names", MAX_NAME_CHARS)
        if len(set(ranker_names)) < len(ranker_names):
            twice = next(n for n, k in Counter(ranker_names).items() if k > 1)
            raise _damaged("preferences.ranker_names",
                           f"names two raters “{twice[:40]}”: each rater needs a name of "
                           "their own")
        _distinct_names(ranker_names, "preferences.ranker_names", "rater", visible=False)
        if rankers.size and (rankers.min() < 0 or rankers.max() >= len(ranker_names)):
            raise _damaged("preferences.rankers",
                           f"must hold rater ids from 0 to {len(ranker_names) - 1:,}")
        if not declared_within_present(len(ranker_names), np.unique(rankers).size):
            raise _damaged("preferences.ranker_names",
                           f"names {len(ranker_names):,} raters for the "
                           f"{np.unique(rankers).size:,} the lists use")
    elif ranker_names is not None:
        raise _damaged("preferences.ranker_names", "is given without “rankers”")
    notes = _texts(raw.get("notes") or [], "preferences.notes", MAX_DESCRIPTION_CHARS,
                   MAX_NOTES)
    try:
        return Preferences(items=items, offsets=offsets, groups=groups, n_items=n_items,
                           weights=weights, rankers=rankers, item_names=names,
                           ranker_names=ranker_names, notes=notes)
    except (ValueError, TypeError, IndexError) as error:
        said = str(error).rstrip(".")
        raise SessionFileError(
            "This session file is damaged: its lists (“preferences.items”, “offsets”, "
            f"“groups”, “weights”) do not fit together ({said}). Save the session again from "
            "the app, or upload the data file itself.") from None


def _rebuilt(recipe: str):
    """The dataset a recipe (``sample:<id>`` or ``scenario:…``) rebuilds, or None."""
    from . import compute
    from .scenario import scenario_from_recipe
    if recipe.startswith("sample:") and recipe[7:] in SAMPLES:
        return compute.load_sample(recipe[7:])
    if recipe.startswith("scenario:"):
        try:
            return scenario_from_recipe(recipe)
        except (ValueError, TypeError):
            return None
    return None


def _choices(raw) -> tuple[dict, list[str]]:
    """The session's α, rule, methods and noise, each checked; what was dropped, said."""
    notes: list[str] = []
    choices: dict = {"alpha": None, "rule": "typed", "methods": [], "noise": None}
    if raw is None:
        return choices, notes
    if not isinstance(raw, dict):
        return choices, ["The file's choices (α, methods, noise) are not readable; the app's "
                         "defaults are used."]
    alpha = raw.get("alpha")
    if alpha is not None:
        value = _alpha_value(alpha)
        if value is None:
            notes.append(f"The file's α is not a number from {MIN_ALPHA:g} to {MAX_ALPHA:g} "
                         "(or inf); α is chosen from the data instead.")
        else:
            choices["alpha"] = value
            choices["rule"] = raw.get("rule") if raw.get("rule") in RULES else "typed"
    methods = raw.get("methods")
    if methods is not None:
        if not isinstance(methods, list):
            notes.append("The file's methods are not a list; the default methods are used.")
        else:
            chosen = known_methods(methods)
            if len(chosen) < len(methods):
                notes.append("The file's methods were repeated or unknown; each known "
                             "method is kept once.")
            choices["methods"] = chosen
    noise = raw.get("noise")
    if noise is not None:
        checked = _noise(noise)
        if checked is None:
            notes.append("The file's noise settings are not valid; the data are shown "
                         "without noise.")
        choices["noise"] = checked
    return choices, notes


def _alpha_value(value) -> float | None:
    """α from a link or a file, or None when it is not a number the app accepts."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    if isinstance(value, str) and len(value) > 40:
        return None
    try:
        alpha = float(value)
    except (ValueError, OverflowError):
        return None
    return alpha if alpha_in_range(alpha) else None


def known_methods(names) -> list[str]:
    """The registry's methods among ``names``, each once, in their first order."""
    return list(dict.fromkeys(n for n in names if isinstance(n, str) and n in METHODS))


def _noise(raw) -> dict | None:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str) \
            or raw["kind"] not in NOISE_TYPES:
        return None
    level, seed = raw.get("level"), raw.get("seed")
    if isinstance(level, bool) or not isinstance(level, (int, float)):
        return None
    if isinstance(seed, bool) or not isinstance(seed, int):
        return None
    low, high, _ = NOISE_TYPES[raw["kind"]].range
    if not (low <= level <= high and NOISE_SEEDS[0] <= seed <= NOISE_SEEDS[1]):
        return None
    return {"kind": raw["kind"], "level": float(level), "seed": seed}


def read_session(data: bytes) -> tuple[state.Dataset, dict, list[str]]:
    """The dataset, the checked choices and the notes of a session file.

    Every field is checked against the schema :func:`session_file` writes; a file that
    breaks it raises :class:`SessionFileError` with a plain message. Choices that cannot be
    used (an α out of range, unknown methods, a recipe that does not rebuild these data)
    are dropped and said in the notes.
    """
    brackets = data.count(b"[") + data.count(b"{")
    if brackets > MAX_BRACKETS:
        raise SessionFileError(f"This is not a session file: it holds {brackets:,} lists or "
                               "objects, where a saved session holds a few dozen.")
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise SessionFileError("This is not a session file: it is not text (UTF-8).") from None
    except json.JSONDecodeError as error:
        raise SessionFileError(f"This is not a session file: it is not JSON ({error.msg} at "
                               f"line {error.lineno}).") from None
    except RecursionError:
        raise SessionFileError("This is not a session file: its JSON is nested too deeply "
                               "(lists inside lists, a thousand levels or more).") from None
    except ValueError:  # a number of more than 4,300 digits
        raise SessionFileError("This is not a session file: it holds a number with thousands "
                               "of digits.") from None
    if not isinstance(document, dict) or document.get("format") != SESSION_FORMAT:
        raise SessionFileError("This JSON file is not a CoarsenRank session file (it has no "
                               f"\"format\": \"{SESSION_FORMAT}\").")
    version = document.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise SessionFileError("This session file has no version number (\"version\" must be "
                               f"the whole number {SESSION_VERSION}).")
    if version != SESSION_VERSION:
        raise SessionFileError("This session file comes from another version of the app.")
    prefs = _preferences(document.get("preferences"))
    truth = document.get("truth")
    truth = None if truth is None else _numbers(truth, "truth", prefs.n_items)
    careless = document.get("careless")
    if careless is not None:
        ids = _whole_numbers(careless, "careless")
        n_rankers = prefs.n_rankers
        if ids.size and (ids.min() < 0 or ids.max() >= n_rankers):
            raise _damaged("careless", f"must hold rater ids from 0 to {n_rankers - 1:,}")
        careless = tuple(dict.fromkeys(int(r) for r in ids))
    read_as = _texts(document.get("read_as") or [], "read_as", MAX_DESCRIPTION_CHARS,
                     MAX_NOTES)
    dataset = state.Dataset(
        name=_text(document, "name", "Saved session", MAX_NAME_CHARS), preferences=prefs,
        truth=truth, origin="session",
        description=_text(document, "description", "", MAX_DESCRIPTION_CHARS),
        read_as=read_as, careless=careless)
    choices, notes = _choices(document.get("choices"))
    recipe = _text(document, "recipe", "", MAX_NAME_CHARS)
    if recipe:
        rebuilt = _rebuilt(recipe)
        if (rebuilt is not None and rebuilt.key == dataset.key
                and set(rebuilt.careless or ()) == set(dataset.careless or ())):
            dataset = replace(dataset, recipe=recipe)
        else:
            notes.append("The file's link recipe does not rebuild the data it holds, so it "
                         "was dropped: these data are shared with a session file, not a link.")
    return dataset, choices, notes


def read_session_file(data: bytes) -> tuple[state.Dataset, dict]:
    """The dataset and the checked choices of a session file (see :func:`read_session`)."""
    dataset, choices, _ = read_session(data)
    return dataset, choices


def open_session_file(data: bytes) -> tuple[state.Dataset, list[str]]:
    """Load a session file: its data, true order, α, methods and noise; returns the dataset
    and notes on what was dropped."""
    dataset, choices, notes = read_session(data)
    state.set_current(dataset)
    if choices["alpha"] is not None:
        session_alpha.set_from_token(choices["alpha"], choices["rule"])
    if choices["methods"]:
        state.set_methods(choices["methods"])
    noise = choices["noise"]
    if noise is not None:
        from .noise_report import make_noisy_copy
        make_noisy_copy(noise["kind"], noise["level"], noise["seed"])
    return state.current(), notes
