"""Reader defects found by probing real export layouts and the large-file readers (seventh
batch)."""

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import read_file, stream_pairwise


@pytest.mark.parametrize("character", ["\x85", "\x9b", "\x7f", "\x07"])
def test_the_chunked_reader_refuses_every_control_character_the_table_reader_refuses(
        tmp_path, character):
    path = tmp_path / "names.csv"
    path.write_text(f"winner,loser\na,b\nb{character}x,c\n", encoding="utf-8")
    for reader in (read_file, stream_pairwise):
        with pytest.raises(PreferenceFormatError,
                           match=f"control character U\\+{ord(character):04X}") as info:
            reader(path)
        assert info.value.row == 3


def refused(data: bytes, **options) -> PreferenceFormatError:
    with pytest.raises(PreferenceFormatError) as info:
        read_file(data, **options)
    return info.value


# ------------------------------------------------------------ rating scales, not rankings
SATISFACTION_GRID = (
    b"Timestamp,How satisfied are you with each pizza? [Margherita],"
    b"How satisfied are you with each pizza? [Funghi],How satisfied are you with each pizza? "
    b"[Hawaii]\n"
    b"2024/05/01 10:00:00,Very satisfied,Satisfied,Dissatisfied\n"
    b"2024/05/01 10:05:00,Satisfied,Neither satisfied nor dissatisfied,Very dissatisfied\n"
    b"2024/05/01 10:09:00,Very satisfied,Dissatisfied,Satisfied\n"
    b"2024/05/01 10:12:00,Dissatisfied,Very satisfied,Satisfied\n")


@pytest.mark.parametrize("data", [
    SATISFACTION_GRID,
    # five agreement labels over three items, no label twice in a row
    b"Respondent,Margherita,Funghi,Hawaii\nr1,Strongly agree,Agree,Disagree\n"
    b"r2,Agree,Neutral,Strongly disagree\nr3,Neutral,Strongly agree,Agree\n",
    # and with a label twice in a row (once refused as an item appearing twice)
    b"Respondent,Margherita,Funghi,Hawaii\nr1,Strongly agree,Agree,Disagree\n"
    b"r2,Agree,Neutral,Strongly disagree\nr3,Neutral,Agree,Agree\n",
    # a quality scale
    b"Name,Tea,Coffee,Cocoa\nAnn,Very good,Poor,Fair\nBob,Good,Excellent,Poor\n"
    b"Cy,Fair,Very good,Good\n",
])
def test_a_grid_of_scale_labels_over_fewer_items_is_refused_as_labels(data):
    error = refused(data)
    assert "its answers are labels" in error.reason and "appears twice" not in error.reason
    assert "1st, 2nd" in error.fix


@pytest.mark.parametrize("data, items", [
    (b"Voter,Choice 1,Choice 2,Choice 3\nv1,Good,Fair,Poor\nv2,Fair,Good,Poor\n"
     b"v3,Poor,Fair,Good\nv4,Good,Poor,Fair\n", ("Good", "Fair", "Poor")),
    (b"Voter,Gold,Silver,Bronze\nv1,Very Berry,Most Wanted,Best Buy\n"
     b"v2,Best Buy,Very Berry,Most Wanted\nv3,Most Wanted,Best Buy,Very Berry\n"
     b"v4,Very Berry,Best Buy,Most Wanted\n", ("Very Berry", "Most Wanted", "Best Buy")),
])
def test_rankings_of_items_named_with_scale_words_are_still_read(data, items):
    assert set(read_file(data).preferences.item_names) == set(items)
