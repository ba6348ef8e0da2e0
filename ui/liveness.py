"""Whether the browser tab of the running script is still connected."""

from __future__ import annotations

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

__all__ = ["current_session_id", "session_connected"]


def current_session_id() -> str | None:
    """The id of the session whose script is running here (None outside a script run)."""
    context = get_script_run_ctx(suppress_warning=True)
    return None if context is None else context.session_id


def session_connected(session_id: str | None) -> bool:
    """False once the session's browser tab has closed or lost its connection.

    Streamlit keeps a disconnected session (so that a reconnecting tab finds its state)
    and lets its script run on; a long fit asks this to stop working for nobody. True
    whenever it cannot tell: no session id, or no server runtime (e.g. under AppTest).
    """
    if session_id is None or not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(session_id)
