"""AppTest of the Data page's import step: preview, corrections, confirmation."""

import io
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from coarsenrank_core import read_preferences
from ui.importer import ranking_text

ROOT = Path(__file__).resolve().parents[1]
EXPORTS = ROOT / "tests" / "data" / "exports"
RANKS = (b"Timestamp,Q [tea],Q [coffee],Q [juice]\n2024-05-01 10:00,2,1,3\n"
         b"2024-05-01 10:01,1,2,3\n2024-05-01 10:02,2,1,3\n")


def start_upload(name: str, content: bytes) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("My own file").run()
    at.file_uploader(key="upload_file").set_value((name, content, "text/csv"))
    return at.run()


def texts(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [t.value for t in at.text] + [i.value for i in at.info] + [s.value for s in at.success]
    return "\n".join(parts).replace("\\", "")


def sidebar(at: AppTest) -> str:
    return " ".join(str(e.value) for e in at.sidebar.get("text"))


def test_preview_comes_before_the_data_is_replaced():
    at = start_upload("survey.csv", RANKS)
    assert not at.exception
    shown = texts(at)
    assert "We read this as: item columns holding ranks (detected), a Google Forms export." \
        in shown
    assert "3 rankings over 3 items." in shown
    assert "coffee > tea > juice\ntea > coffee > juice\ncoffee > tea > juice" in shown
    assert "Skipped columns: 'Timestamp (survey metadata)'." in shown
    assert "Item columns: 'tea', 'coffee', 'juice'." in shown
    assert "Still loaded: Pizza survey" in shown
    assert "Pizza survey" in sidebar(at), "nothing is replaced before the confirmation"


def test_an_unusual_read_is_warned_about_in_one_line():
    at = start_upload("names.csv", b"voter,1st,2nd\nann,ann,bob\nbob,bob,ann\ncy,ann,bob\n")
    assert not at.exception
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert len(warnings) == 1 and "look like the rankers' own names" in warnings[0]
    assert not any("Check this read" in c.value for c in at.caption)


def test_confirmation_loads_the_previewed_data():
    at = start_upload("survey.csv", RANKS)
    at.button(key="confirm_upload").click().run()
    assert any("Loaded survey.csv: 3 lists over 3 items." in s.value.replace("\\", "")
               for s in at.success)
    assert "survey.csv" in sidebar(at)
    at.switch_page("pages/consensus.py").run()
    assert not at.exception
    assert at.dataframe[0].value["item"].iloc[0] == "coffee"


def test_rank_direction_correction_updates_the_preview():
    at = start_upload("survey.csv", RANKS)
    at.radio(key="upload_best").set_value("1 is the worst").run()
    shown = texts(at)
    assert "juice > tea > coffee" in shown and "Rank 1 means the worst" in shown


def test_star_ratings_are_refused_as_ranks_then_read_once_higher_is_better():
    data = b"respondent,Margherita,Funghi,Hawaii\nr1,5,3,1\nr2,4,4,2\n"
    at = start_upload("stars.csv", data)
    [error] = [e.value.replace("\\", "") for e in at.error]
    assert "cannot be a rank here" in error and "row 2, column “Margherita”" in error
    assert "Rank numbers mean: 1 is the worst" in error
    assert not [b for b in at.button if b.key == "confirm_upload"]  # nothing to confirm yet
    at.radio(key="upload_best").set_value("1 is the worst").run()
    assert not at.error
    assert "Margherita > Funghi > Hawaii" in texts(at)
    # smaller numbers better (grades, strokes): the layout chosen by hand reads them as such
    at.radio(key="upload_best").set_value("1 is the best").run()
    at.selectbox(key="upload_format").set_value("ranks").run()
    assert not at.error
    assert "Hawaii > Funghi > Margherita" in texts(at)


def test_item_column_and_ranker_corrections_update_the_preview():
    data = b"who,a,b,c\nann,1,2,3\nbob,2,1,3\n"
    at = start_upload("grid.csv", data)
    assert "Ranker column: 'who'." in texts(at)
    at.multiselect(key="upload_items").set_value(["a", "b"]).run()
    at.selectbox(key="upload_ranker").set_value("who").run()
    shown = texts(at)
    assert "Item columns: 'a', 'b'." in shown and "a > b\nb > a" in shown
    at.selectbox(key="upload_ranker").set_value("(none)").run()
    assert "Ranker column: none" in texts(at)


def test_layout_correction_reads_rows_as_rankings():
    data = b"a,b,c\nb,a,c\n"
    at = start_upload("plain.csv", data)
    assert "wide rankings (detected)" in texts(at)
    at.selectbox(key="upload_format").set_value("cell").run()
    assert any("could not read" in e.value for e in at.error)
    at.selectbox(key="upload_format").set_value("wide").run()
    assert "wide rankings (chosen)" in texts(at)


def test_workbook_sheet_choice():
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.active.title = "About"
    book.active.append(["Pizza survey, exported"])
    responses = book.create_sheet("Responses")
    for row in (["ID", "Start time", "Completion time", "Rank the pizzas"],
                [1, "x", "y", "margherita;funghi;"], [2, "x", "y", "funghi;margherita;hawaii;"]):
        responses.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    at = start_upload("forms.xlsx", buffer.getvalue())
    assert any("could not read" in e.value for e in at.error), "the first sheet holds no data"
    at.selectbox(key="upload_sheet").set_value("Responses").run()
    shown = texts(at)
    assert "one ranking per cell (detected), a Microsoft Forms export" in shown
    assert "Sheet: 'Responses' (of 2)." in shown
    at.button(key="confirm_upload").click().run()
    assert "forms.xlsx" in sidebar(at)


def test_refused_file_message_is_on_the_page_and_old_data_stays():
    at = start_upload("dates.csv",
                      b"2024-05-01 10:00,apple,banana\n2024-05-02 10:00,banana,apple\n")
    [error] = [e.value for e in at.error if "could not read" in e.value]
    assert "dates or times" in error
    assert "Pizza survey" in sidebar(at)


def test_every_export_fixture_previews_without_error():
    """Each export uploaded in turn in one session, as a user trying files would: each
    preview shows its own file's count, items and first ranking, and no error."""
    at = None
    for path in sorted(EXPORTS.iterdir()):
        if at is None:
            at = start_upload(path.name, path.read_bytes())
        else:  # the last file is removed first, so no preview can be left from it
            at.file_uploader(key="upload_file").set_value(None).run()
            assert not [m for m in at.markdown if m.value.startswith("**We read this as")]
            at.file_uploader(key="upload_file").set_value(
                (path.name, path.read_bytes(), "text/csv"))
            at.run()
        assert not at.exception, path.name
        assert not [e for e in at.error if "could not read" in e.value], path.name
        prefs = read_preferences(path)
        shown = texts(at)
        unit = "comparison" if prefs.is_pairwise else "ranking"
        assert f"{len(prefs):,} {unit}" in shown, path.name
        assert f"over {prefs.n_items:,} items" in shown, path.name
        first = prefs.to_lists(names=True, stop=1)[0]
        assert ranking_text(first).replace("\\", "") in shown, (path.name, first)
        assert [m for m in at.markdown if m.value.startswith("**We read this as")], path.name


def test_the_loaded_data_keeps_its_reading_record():
    at = start_upload("survey.csv", RANKS)
    at.button(key="confirm_upload").click().run()
    [expander] = [e for e in at.expander if e.label == "How this file was read"]
    shown = " ".join(m.value for m in expander.markdown).replace("\\", "")
    assert "item columns holding ranks" in shown and "Timestamp (survey metadata)" in shown


def test_peer_grades_upload_reads_higher_as_better_or_asks_which_way_up():
    """One row per grade (defects round 3): read with a note; a grade from 1 asks first."""
    points = (b"taskid,reviewerid,groupid,grade\n1,r1,g1,0\n1,r1,g2,9\n1,r2,g1,7\n"
              b"1,r2,g2,3\n")
    at = start_upload("peer.csv", points)
    assert not at.error
    shown = texts(at)
    assert "Read one row per grade" in shown and "g2 > g1\ng1 > g2" in shown
    ones = (b"taskid,reviewerid,groupid,grade\n1,r1,g1,1\n1,r1,g2,4\n1,r2,g1,3\n"
            b"1,r2,g2,2\n")
    at = start_upload("peer.csv", ones)
    [error] = [e.value.replace("\\", "") for e in at.error]
    assert "some schools give 1 to the best work" in error and "--one-is-worst" in error
    at.radio(key="upload_best").set_value("1 is the worst").run()
    assert not at.error
    assert "g2 > g1\ng1 > g2" in texts(at)


@pytest.mark.parametrize("slot, source, name, content", [
    ("upload_file", "My own file", "survey.csv", RANKS),
    ("upload_session", "A saved session", "s.json", b'{"a": 1}'),
])
def test_one_upload_is_hashed_once_not_on_every_rerun(monkeypatch, slot, source, name,
                                                      content):
    """The Data page's helpers (new-file marker, column and read caches, the session file's
    loaded and refused markers) share one digest of the upload, kept under its file id:
    the rerun that receives the file hashes it once, a later rerun not at all."""
    import hashlib

    hashed = []
    sha1 = hashlib.sha1

    def counting(data=b"", *args, **kwargs):
        hashed.append(isinstance(data, bytes) and data == content)
        return sha1(data, *args, **kwargs)

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value(source).run()
    at.file_uploader(key=slot).set_value((name, content, "text/csv"))
    monkeypatch.setattr(hashlib, "sha1", counting)
    at.run()
    assert not at.exception
    assert sum(hashed) == 1
    hashed.clear()
    at.run()
    assert not at.exception and sum(hashed) == 0


def test_ranking_columns_chosen_for_long_rankings_split_the_preview_by_heat():
    data = b"round,heat,item,rank\n1,1,a,1\n1,1,b,2\n1,2,c,1\n1,2,d,2\n"
    at = start_upload("heats.csv", data)
    assert not [w for w in at.multiselect if w.key == "upload_lists"]  # only for long rankings
    at.selectbox(key="upload_format").set_value("long").run()
    at.multiselect(key="upload_lists").set_value(["round", "heat"]).run()
    assert not at.error
    assert "a > b\nc > d" in texts(at)
