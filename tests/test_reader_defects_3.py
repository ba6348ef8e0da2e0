"""Reader defects, third round: memory of long files, peer-grading exports read without a
format, and rater names that look alike."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file
from coarsenrank_core.io.assembly import ranker_ids
from coarsenrank_core.io.streaming import stream_pairwise

# ------------------------------------------------------------- rater names that look alike
LOOK_ALIKE = ["Ann  Lee", "Ann\u00a0Lee", "Ann Lee\u200b", "Ann\u202fLee", "Ann\tLee"]

RATER_FILES = {
    "pairwise": "rater,winner,loser\nAnn Lee,a,b\n{other},b,c\nBo,c,a\n",
    "long": "rater,item,rank\nAnn Lee,a,1\nAnn Lee,b,2\n{other},c,1\n{other},d,2\nBo,a,1\n"
            "Bo,c,2\n",
    "wide": "voter,first,second\nAnn Lee,a,b\n{other},b,c\nBo,c,a\n",
    "ranks": "judge,a,b,c\nAnn Lee,1,2,3\n{other},3,2,1\nBo,2,1,3\n",
}


@pytest.mark.parametrize("layout", sorted(RATER_FILES))
@pytest.mark.parametrize("other", LOOK_ALIKE)
def test_rater_names_that_look_alike_are_one_rater_with_a_note(layout, other):
    text = RATER_FILES[layout].format(other=other)
    result = read_file(text.encode())
    prefs = result.preferences
    assert prefs.ranker_names is not None
    assert sorted(set(prefs.ranker_names)) == ["Ann Lee", "Bo"], prefs.ranker_names
    assert len(prefs.ranker_names) == 2
    notes = " ".join(result.report.notes)
    assert "ranker name" in notes and "Ann Lee" in notes, notes


def test_long_rows_of_look_alike_raters_join_one_ranking():
    text = "rater,item,rank\nAnn Lee,a,1\nAnn  Lee,b,2\nBo,a,2\nBo,b,1\n"
    prefs = read_file(text.encode()).preferences
    assert prefs.to_lists(names=True) == [["a", "b"], ["b", "a"]]
    assert prefs.ranker_names == ("Ann Lee", "Bo")


def test_look_alike_rater_writing_an_item_twice_is_refused_naming_the_row():
    text = "rater,item,rank\nAnn Lee,a,1\nAnn  Lee,a,2\nAnn Lee,b,3\nBo,a,1\nBo,b,2\n"
    with pytest.raises(PreferenceFormatError) as caught:
        read_file(text.encode())
    assert caught.value.row is not None


def test_streamed_pairwise_merges_look_alike_raters_with_the_same_note(tmp_path):
    path = tmp_path / "rated.csv"
    path.write_text("rater,winner,loser\nAnn Lee,a,b\nAnn  Lee,b,c\nBo,c,a\n")
    streamed = stream_pairwise(path)
    whole = read_file(path)
    assert streamed.preferences.ranker_names == ("Ann Lee", "Bo")
    assert whole.preferences.ranker_names == ("Ann Lee", "Bo")
    assert any("Merged 1 ranker name" in n for n in streamed.report.notes)
    assert any("Merged 1 ranker name" in n for n in whole.report.notes)


def test_ranker_ids_note_names_the_merged_spellings():
    notes: list[str] = []
    codes, names = ranker_ids(np.array(["Ann Lee", "Ann  Lee", "Bo"], dtype=object),
                              np.arange(3), "rater", notes=notes)
    assert codes.tolist() == [0, 0, 1] and names == ("Ann Lee", "Bo")
    assert len(notes) == 1 and "Merged 1 ranker name" in notes[0]
    assert "'Ann  Lee'" in notes[0] and "'Ann Lee'" in notes[0]


def test_a_session_of_look_alike_raters_round_trips():
    pytest.importorskip("streamlit")
    from ui import share
    from ui.state import Dataset

    text = "rater,winner,loser\nAnn Lee,a,b\nAnn\u00a0Lee,b,c\nBo,c,a\n"
    prefs = read_file(text.encode()).preferences
    dataset = Dataset(name="peers.csv", preferences=prefs, origin="upload")
    back, _ = share.read_session_file(share._document(dataset, None, []))
    assert back.preferences == prefs and back.preferences.ranker_names == ("Ann Lee", "Bo")


def test_a_session_naming_look_alike_raters_is_refused_naming_the_field():
    pytest.importorskip("streamlit")
    from ui import share
    from ui.state import Dataset

    prefs = read_file(b"rater,winner,loser\nAnn Lee,a,b\nBo,b,c\n").preferences
    dataset = Dataset(name="peers.csv", preferences=prefs, origin="upload")
    document = json.loads(share._document(dataset, None, []))
    document["preferences"]["ranker_names"] = ["Ann Lee", "Ann  Lee"]
    with pytest.raises(share.SessionFileError, match="ranker_names"):
        share.read_session_file(json.dumps(document).encode())
