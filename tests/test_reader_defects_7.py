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
