"""Per-session state: the loaded dataset, the kept α setting, and results tied to their data."""

from __future__ import annotations

import streamlit as st

from coarsenrank_core.comparison import DEFAULT_COMPARISON
from coarsenrank_core.results import tempering

from .compute import Digested, load_sample
from .dataset import Dataset as Dataset  # re-exported: pages and ui/share use state.Dataset
from .dataset import NoiseReport as NoiseReport
from .samples import DEFAULT_SAMPLE

_DATASET = "dataset"
_ALPHA = "alpha"
_RESULTS = "results"
_METHODS = "methods"
_NOISY = "noisy_copy"
_SHOWN = "_widget_shown"
_KEPT = "_kept_"  # the prefix of the phone's "More columns" switches too (ui.phone)
_DEFAULTS = "_widget_defaults"
_DIGESTS = "_upload_digests"
#: uploads whose digest is kept (one per uploader of the Data page)
KEPT_DIGESTS = 4


def current() -> Dataset:
    """The session's dataset; the default sample is loaded on first use."""
    if _DATASET not in st.session_state:
        st.session_state[_DATASET] = load_sample(DEFAULT_SAMPLE)
    return st.session_state[_DATASET]


def set_current(dataset: Dataset) -> None:
    """Replace the session's dataset (results of the previous data stay stored but unused).

    A noisy copy is also remembered, so that after going back to the original it is one
    click away (:func:`noisy_copy`); loading other data forgets it.
    """
    if dataset.parent is not None:
        st.session_state[_NOISY] = dataset
    elif (st.session_state.get(_NOISY) is not None
          and st.session_state[_NOISY].original.key != dataset.key):
        st.session_state[_NOISY] = None
    st.session_state[_DATASET] = dataset


def noisy_copy() -> Dataset | None:
    """The last noisy copy of the loaded data's original, kept after going back to it."""
    copy = st.session_state.get(_NOISY)
    return copy if copy is not None and copy.original.key == current().original.key else None


def methods() -> list[str]:
    """The methods the teacher chose on Compare (the engine's default comparison at first)."""
    if _METHODS not in st.session_state:
        st.session_state[_METHODS] = list(DEFAULT_COMPARISON)
    return list(st.session_state[_METHODS])


def set_methods(chosen) -> None:
    """Keep the chosen methods for the session (they survive leaving the page): each method
    of the registry once, whatever asked for it (a page, a link, a session file)."""
    from coarsenrank_core.registry import METHODS
    st.session_state[_METHODS] = list(dict.fromkeys(m for m in chosen if m in METHODS))


def show_in_widget(key: str, value) -> None:
    """Put ``value`` in the widget ``key`` when it changed elsewhere since last shown.

    A widget keeps what the user typed; this writes the session's value into it only when
    that value changed (on another page, from a URL), so the widget never lags behind.
    """
    shown = st.session_state.setdefault(_SHOWN, {})
    if key not in st.session_state or shown.get(key) != value:
        st.session_state[key] = value
        shown[key] = value


def mark_shown(key: str, value) -> None:
    """Record that the widget ``key`` now shows ``value`` (after the user set it)."""
    st.session_state.setdefault(_SHOWN, {})[key] = value


def widget(key: str, default=None):
    """A widget's value from the session (``default`` before it is drawn)."""
    return st.session_state.get(key, default)


def set_widget(key: str, value) -> None:
    """Set a widget's value before it is drawn (e.g. the Data page's source radio)."""
    st.session_state[key] = value


def kept_widget(draw, key: str, default, *args, **kwargs):
    """``draw(*args, key=key, **kwargs)`` showing the choice last made in it this session.

    Streamlit forgets a widget's value once a page without it has run, so a view choice
    (a radio, a switch) would go back to its default whenever the user visits another
    page. A choice other than ``default`` is kept under its own key and put back when the
    widget is drawn again; otherwise the widget shows ``default``, which may follow the
    data (pass no ``index`` or ``value`` to ``draw``).
    """
    defaults = st.session_state.setdefault(_DEFAULTS, {})
    chosen = _KEPT + key in st.session_state
    if key not in st.session_state or not chosen and defaults.get(key, default) != default:
        st.session_state[key] = st.session_state.get(_KEPT + key, default)
    defaults[key] = default
    value = draw(*args, key=key, **kwargs)
    if value == default:
        st.session_state.pop(_KEPT + key, None)
    else:
        st.session_state[_KEPT + key] = value
    return value


def restore_settings(name: str, keys) -> None:
    """Put back the values of the widgets ``keys`` that :func:`keep_settings` kept under
    ``name``, where Streamlit forgot them (it drops a widget's value once a run has not
    drawn it, e.g. while the Data page shows another source). Call it before the widgets
    (and before :func:`show_in_widget` moves them to loaded data, which still wins when the
    loaded data changed since last shown)."""
    kept = st.session_state.get(_KEPT + name, {})
    for key in keys:
        if key not in st.session_state and key in kept:
            st.session_state[key] = kept[key]


def keep_settings(name: str, values: dict) -> None:
    """Keep the widgets' ``values`` (key to value) under ``name`` for
    :func:`restore_settings`."""
    st.session_state[_KEPT + name] = dict(values)


def once(key: str) -> bool:
    """True the first time it is asked for ``key`` in this session, then False."""
    flag = "_once_" + key
    if st.session_state.get(flag):
        return False
    st.session_state[flag] = True
    return True


def kept_alpha():
    """The session's α setting as last kept (see :mod:`ui.alpha`, which owns it), or None."""
    return st.session_state.get(_ALPHA)


def keep_alpha(setting) -> None:
    """Keep the session's α setting (only :mod:`ui.alpha` writes it)."""
    st.session_state[_ALPHA] = setting


def tau_of(alpha: float) -> float:
    """τ = α / (α + N) for the current dataset."""
    return tempering(alpha, current().preferences.total_weight)


def store(name: str, value) -> None:
    """Keep a result for the current dataset."""
    st.session_state.setdefault(_RESULTS, {})[name] = (current().key, value)


def stored(name: str):
    """A result kept for the current dataset, or None (results of other data are ignored)."""
    entry = st.session_state.get(_RESULTS, {}).get(name)
    return entry[1] if entry is not None and entry[0] == current().key else None


def uploaded(upload) -> Digested:
    """The bytes of a Streamlit upload with their digest, taken once per upload.

    The digest is kept in the session under the upload's ``file_id`` and size, so the
    page's reruns, and every helper of one rerun, reuse it instead of hashing the file again.

    Parameters
    ----------
    upload : streamlit.runtime.uploaded_file_manager.UploadedFile
        What ``st.file_uploader`` returned (not None).

    Returns
    -------
    Digested
        The file's bytes and their digest.
    """
    data = upload.getvalue()
    kept = st.session_state.setdefault(_DIGESTS, {})
    marker = (upload.file_id, len(data))
    digest = kept.get(marker)
    if digest is None:
        digest = kept[marker] = Digested.of(data).digest
        while len(kept) > KEPT_DIGESTS:
            del kept[next(iter(kept))]
    return Digested(data, digest)


def upload_is_new(slot: str, digest: str) -> bool:
    """Whether the file of digest ``digest`` in uploader ``slot`` still has to be loaded.

    True for a file not loaded yet, and also for the same file again after other data were
    loaded, so that re-uploading always reloads it.
    """
    marker = st.session_state.get("_upload_" + slot)
    return marker is None or marker != (digest, current().original.key)


def upload_loaded(slot: str, digest: str) -> None:
    """Record that the file of digest ``digest`` in uploader ``slot`` is what is loaded now."""
    st.session_state["_upload_" + slot] = (digest, current().original.key)


def upload_refused(slot: str, digest: str, message: str | None = None) -> str | None:
    """The reason the file of digest ``digest`` in uploader ``slot`` was refused, if it was
    (None otherwise); with ``message``, record that reason. A refused file stays in its
    uploader over the page's reruns: the reason is shown again without reading the file
    again."""
    key = "_refused_" + slot
    if message is not None:
        st.session_state[key] = (digest, message)
    kept = st.session_state.get(key)
    return kept[1] if kept is not None and kept[0] == digest else None
