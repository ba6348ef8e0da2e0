"""Live poll: the teacher creates a ranking poll, students rank on their phones, results live."""

from ui.shell import ensure_shell

ensure_shell()

from ui import poll  # noqa: E402

poll.show()
