"""Live poll: the teacher creates a ranking poll, students rank on their phones, results live."""

from ui import poll
from ui.shell import ensure_shell

ensure_shell()

poll.show()
