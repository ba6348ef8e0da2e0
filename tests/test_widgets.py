"""ui/widgets.py without a page: the one stop-and-restart helper of the pages' long tasks."""

from __future__ import annotations

import pytest

import ui.widgets as widgets
from ui import state


class FakeStreamlit:
    """What the helper draws, recorded; ``pressed`` names the buttons pressed in this run."""

    def __init__(self, pressed=()):
        self.warnings, self.buttons, self.pressed = [], [], set(pressed)

    def warning(self, text):
        self.warnings.append(text)

    def button(self, label, **kwargs):
        self.buttons.append(label)
        return label in self.pressed

    def rerun(self):
        raise RuntimeError("rerun")


@pytest.fixture
def session(monkeypatch):
    store: dict = {}
    monkeypatch.setattr(state.st, "session_state", store)
    return store


def run(monkeypatch, session, task, pressed=(), stop=False, **kwargs):
    fake = FakeStreamlit(pressed)
    fake.session_state = session
    monkeypatch.setattr(widgets, "st", fake)
    session[f"stop_{task}"] = stop  # the Stop button's value in this run
    return widgets.restartable(task, "It was stopped.", **kwargs), fake


def test_a_task_started_by_its_own_button_warns_once_after_stop(monkeypatch, session):
    task, fake = run(monkeypatch, session, "dic", stop=True)
    assert task and fake.warnings == ["It was stopped."] and not fake.buttons
    task, fake = run(monkeypatch, session, "dic")
    assert task and not fake.warnings  # the next run may start it again at once


def test_a_task_that_starts_by_itself_stays_stopped_until_restarted(monkeypatch, session):
    args = dict(key="data-1", restart="Compute it")
    task, fake = run(monkeypatch, session, "fit", **args)
    assert task and not fake.warnings
    task, fake = run(monkeypatch, session, "fit", stop=True, **args)
    assert not task and fake.warnings == ["It was stopped."] and fake.buttons == ["Compute it"]
    task, _ = run(monkeypatch, session, "fit", **args)
    assert not task  # still stopped on the next run
    task, _ = run(monkeypatch, session, "fit", key="data-2", restart="Compute it")
    assert task  # other data: it runs
    with pytest.raises(RuntimeError, match="rerun"):
        run(monkeypatch, session, "fit", pressed=["Compute it"], **args)
    task, fake = run(monkeypatch, session, "fit", **args)
    assert task and not fake.warnings


def test_with_the_task_the_stop_button_is_drawn_around_the_work(monkeypatch):
    drawn = []

    class Slot:
        def button(self, label, key, **kwargs):
            drawn.append(key)

        def empty(self):
            drawn.append("gone")

    class Fake:
        def empty(self):
            return Slot()

    monkeypatch.setattr(widgets, "st", Fake())
    with widgets.Restartable("dic", True):
        drawn.append("work")
    assert drawn == ["stop_dic", "work", "gone"]


def test_a_stop_noted_early_holds_on_the_next_run(monkeypatch, session):
    fake = FakeStreamlit()
    fake.session_state = session
    monkeypatch.setattr(widgets, "st", fake)
    session["stop_alpha"] = True  # Stop pressed; the page then ends the run early
    widgets.note_stopped("alpha", "data-1")
    session["stop_alpha"] = False  # the next run: the button is back to False
    task = widgets.restartable("alpha", "It was stopped.", key="data-1",
                               restart="Choose it now")
    assert not task and fake.buttons == ["Choose it now"]
