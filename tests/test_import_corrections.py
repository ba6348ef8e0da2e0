"""AppTest: the count column can be corrected in the import preview, and the preview follows."""

from streamlit.testing.v1 import AppTest

from tests.test_app_import import start_upload


def shown(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return "\n".join(parts).replace("\\", "")


def test_count_column_correction_updates_the_preview_and_the_loaded_weights():
    data = b"voter,copies,1st,2nd\nann,3,tea,coffee\nbob,1,coffee,tea\n"
    at = start_upload("drinks.csv", data)
    assert "Count column" not in shown(at)  # 'copies' is not a count word
    at.selectbox(key="upload_count").set_value("copies").run()
    assert "Count column: 'copies'." in shown(at)
    at.button(key="confirm_upload").click().run()
    at.switch_page("pages/data.py").run()
    assert not at.exception
    table = at.dataframe[-1].value
    assert list(table["weight"]) == [3.0, 1.0]


def test_the_preview_says_when_the_first_row_is_data():
    at = start_upload("plain.csv", b"user,admin,guest\nadmin,guest,user\n")
    assert "No title row: the first row is data." in shown(at)
    assert "2 rankings over 3 items." in shown(at)



def sidebar(at: AppTest) -> str:
    return " ".join(str(t.value) for t in at.sidebar.get("text"))


def test_re_uploading_the_same_file_after_a_sample_reloads_it():
    data = b"voter,1st,2nd\nann,tea,coffee\nbob,coffee,tea\n"
    at = start_upload("drinks.csv", data)
    at.button(key="confirm_upload").click().run()
    at.radio(key="data_source").set_value("A built-in sample").run()
    at.button(key="load_sample").click().run()
    assert "drinks.csv" not in sidebar(at)
    at.radio(key="data_source").set_value("My own file").run()
    at.file_uploader(key="upload_file").set_value(("drinks.csv", data, "text/csv")).run()
    at.button(key="confirm_upload").click().run()
    assert "drinks.csv" in sidebar(at)
