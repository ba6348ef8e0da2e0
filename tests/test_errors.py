"""The error types (errors.py): the readers' message for a person, and the stop request."""

import pytest

from coarsenrank_core.errors import Cancelled, PreferenceFormatError, check_stop


@pytest.mark.parametrize("kwargs, message", [
    ({}, "The file is empty."),
    ({"row": 3}, "Row 3: The file is empty."),
    ({"column": "rank"}, "Column 'rank': The file is empty."),
    ({"row": 12, "column": "2"}, "Row 12, column '2': The file is empty."),
    ({"row": 1, "fix": "Add a header."}, "Row 1: The file is empty. Fix: Add a header."),
    ({"fix": "Add rows."}, "The file is empty. Fix: Add rows."),
    ({"row": 0, "fix": ""}, "Row 0: The file is empty."),
    ({"row": 2, "column": "Essay Three"}, "Row 2, column 'Essay Three': The file is empty."),
    ({"column": "ÉQUIPE b"}, "Column 'ÉQUIPE b': The file is empty."),
])
def test_the_message_names_row_column_and_fix(kwargs, message):
    error = PreferenceFormatError("The file is empty.", **kwargs)
    assert str(error) == message
    assert error.reason == "The file is empty."
    assert (error.row, error.column, error.fix) == (kwargs.get("row"), kwargs.get("column"),
                                                    kwargs.get("fix"))


def test_a_format_error_is_a_value_error_and_its_details_are_keyword_only():
    assert issubclass(PreferenceFormatError, ValueError)
    with pytest.raises(ValueError, match="^Row 2: bad$"):
        raise PreferenceFormatError("bad", row=2)
    with pytest.raises(TypeError):
        PreferenceFormatError("bad", 2)


def test_a_stop_is_not_a_value_error_so_error_handlers_do_not_swallow_it():
    assert issubclass(Cancelled, Exception) and not issubclass(Cancelled, ValueError)
    try:
        raise Cancelled("stopped")
    except ValueError:  # pragma: no cover - the point of the test is that this never runs
        pytest.fail("Cancelled was caught as a ValueError")
    except Cancelled as stop:
        assert str(stop) == "stopped"


def test_check_stop_asks_once_and_raises_only_when_told():
    check_stop(None, "never asked")  # no callback: never stops
    asked = []
    check_stop(lambda: asked.append(1) or False, "not yet")
    assert asked == [1]
    with pytest.raises(Cancelled, match=r"^EM was stopped after 4 iterations\.$"):
        check_stop(lambda: True, "EM was stopped after 4 iterations.")
    with pytest.raises(Cancelled):
        check_stop(lambda: 1, "a truthy answer is a yes")
