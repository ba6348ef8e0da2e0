"""Session files and poll items found unsafe by a probe: broken characters, empty data, a
flood of brackets, a noise kind that is not text, names the readers would merge."""

from __future__ import annotations

import json

import pytest

from coarsenrank_core.io import read_file
from tests.test_share_safety import encoded, refusal, valid_document
from ui import poll_store, share
from ui.poll import poll_csv, poll_preferences
from ui.poll_store import Answer, Poll, PollError, clean_items


@pytest.mark.parametrize("path", [("name",), ("description",), ("preferences", "item_names"),
                                  ("read_as",)])
def test_half_a_surrogate_pair_in_any_text_is_refused_by_field(path):
    document = valid_document()
    target = document
    for key in path[:-1]:
        target = target[key]
    field = path[-1]
    target[field] = ("\udc80x" if isinstance(target.get(field), str) or field in
                     ("name", "description") else ["\ud800"] + target[field][1:])
    data = json.dumps(document).encode()  # JSON writes the half pair as a legal \\u escape
    assert b"\\ud" in data
    said = refusal(data)
    assert "broken character" in said and ".".join(path) in said


def test_a_file_holding_no_rankings_is_refused_as_holding_no_rankings():
    document = valid_document()
    document["preferences"].update(items=[], offsets=[0], groups=[], rankers=[],
                                   weights=None)
    document["careless"] = None
    assert "holds no rankings" in refusal(document)


def test_a_million_empty_objects_are_refused_before_they_are_built():
    data = (b'{"format":"coarsenrank-session","version":1,"x":['
            + b"{}," * 1_000_001 + b'{}]}')
    assert "lists or objects" in refusal(data)
    assert share.read_session(encoded(valid_document()))  # a saved session holds few


@pytest.mark.parametrize("kind", [[], {}, 3, None])
def test_a_noise_kind_that_is_not_text_is_dropped_with_the_note(kind):
    document = valid_document()
    document["choices"]["noise"] = {"kind": kind, "level": 0.1, "seed": 1}
    _, choices, notes = share.read_session(encoded(document))
    assert choices["noise"] is None
    assert any("noise settings are not valid" in n for n in notes) or kind is None


def test_a_session_file_saved_with_a_byte_order_mark_is_read():
    data = b"\xef\xbb\xbf" + encoded(valid_document())
    dataset, _, _ = share.read_session(data)
    assert dataset.preferences.n_preferences > 0


@pytest.mark.parametrize("twins", [("it's", "it\u2019s"), ('"quoted"', "\u201cquoted\u201d"),
                                   ("=1+1", "'=1+1"), ("-5", "'-5")])
def test_session_item_names_the_readers_would_merge_are_refused(twins):
    document = valid_document()
    names = document["preferences"]["item_names"]
    names[0], names[1] = twins
    assert "the same name" in refusal(document)


@pytest.mark.parametrize("twins", [("it's", "it\u2019s"), ('"quoted"', "\u201cquoted\u201d"),
                                   ("=1+1", "'=1+1"), ("-5", "'-5")])
def test_poll_items_the_readers_would_merge_are_refused_as_repeats(twins):
    with pytest.raises(PollError, match="Item 2 repeats item 1"):
        clean_items([twins[0], twins[1], "Soup"])


@pytest.mark.parametrize("items", [("it's", "=1+1", "-5", "\u201cquoted\u201d", "Soup"),
                                   ("'x", "x'", "Caf\u00e9", "caf\u00e9 au lait")])
def test_a_polls_download_reads_back_as_the_same_items(items):
    names = clean_items(items)
    poll = Poll(poll_id="ABCDEF", question="", items=names, created=0.0, closes_at=None,
                closed=False)
    answers = tuple(Answer(token=f"t{k}" * 11, ranking=tuple((i,) for i in order),
                           first_submitted=float(k), submitted=float(k), changes=0)
                    for k, order in enumerate([range(len(names)),
                                               reversed(range(len(names)))]))
    prefs = poll_preferences(poll, answers)
    again = read_file(poll_csv(prefs).encode()).preferences
    assert again.item_names == prefs.item_names
    assert again.to_lists(names=True) == prefs.to_lists(names=True)
    assert poll_store.MAX_ITEMS >= len(names)
