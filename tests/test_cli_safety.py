"""The command line refuses bad numbers and unreadable files in one line with exit 2."""

import os

import pytest

from coarsenrank_core import PreferenceFormatError, read_preferences
from coarsenrank_core.cli import main

PIZZA = "sample_data/pizza_rankings.csv"


def one_line_error(capsys) -> str:
    """The one error line on stderr (the read record may come before it)."""
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and err.rstrip().endswith(errors[0]), err
    assert "Traceback" not in err
    return errors[0]


@pytest.mark.parametrize("argv", [
    ["rank", PIZZA, "--draws", "100000000000"],
    ["rank", PIZZA, "--draws", "1e11"],
    ["rank", PIZZA, "--burn-in", "-1"],
    ["rank", PIZZA, "--calibration", "inf"],
    ["rank", PIZZA, "--calibration", "1e-320"],
    ["rank", PIZZA, "--calibration", "nan"],
    ["rank", PIZZA, "--tol", "nan"],
    ["rank", PIZZA, "--tol", "-1"],
    ["rank", PIZZA, "--max-iter", "0"],
    ["rank", PIZZA, "--prior", "0", "2"],
    ["rank", PIZZA, "--prior", "1", "inf"],
    ["rank", PIZZA, "--seed", "-3"],
    ["rank", PIZZA, "--alpha", "0"],
    ["compare", PIZZA, "--alpha", "0"],
    ["compare", PIZZA, "--alpha", "-1"],
    ["compare", PIZZA, "--alpha", "nan"],
    ["compare", PIZZA, "--repeats", "0"],
    ["dic", PIZZA, "--alphas", "1", "nan"],
    ["dic", PIZZA, "--alphas", "-5"],
    ["dic", PIZZA, "--alphas", *["1"] * 201],
    ["dic", PIZZA, "--jobs", "1000"],
    # issue 21: alpha below 1e-6 (a subnormal one gave NaN scores and exit 0) or above 1e12
    ["rank", PIZZA, "--alpha", "5e-324"],
    ["rank", PIZZA, "--alpha", "1e-7"],
    ["compare", PIZZA, "--alpha", "5e-324"],
    ["rank", PIZZA, "--alpha", "1e13"],
    ["dic", PIZZA, "--alphas", "1", "5e-324"],
    ["dic", PIZZA, "--alphas", "1e300"],
])
def test_invalid_numbers_exit_2_in_one_line(argv, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    one_line_error(capsys)


@pytest.mark.parametrize("path, words", [
    ("tests", "holds no file of rankings"),
    ("/dev/null", "not a regular file"),
    ("no/such/file.csv", "no such file"),
])
def test_unreadable_paths_say_why(path, words, capsys):
    assert main(["rank", path]) == 2
    assert words in one_line_error(capsys)


def test_a_pipe_is_not_a_regular_file(tmp_path, capsys):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    assert main(["rank", str(fifo)]) == 2
    assert "not a regular file" in one_line_error(capsys)


def test_truth_errors_name_the_truth_file(tmp_path, capsys):
    truth = tmp_path / "truth.csv"
    truth.write_text("item,score\nnot a pizza,3\n")
    assert main(["compare", PIZZA, "--truth", str(truth), "--alpha", "inf",
                 "--methods", "borda"]) == 2
    err = one_line_error(capsys)
    assert err.startswith(f"error: {truth}:") and PIZZA not in err


def test_reading_errors_name_the_preferences_file(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("voter,count,1st,2nd\nx,1e308,a,b\ny,1e308,b,a\n")
    assert main(["rank", str(bad), "--alpha", "inf"]) == 2
    err = one_line_error(capsys)
    assert err.startswith(f"error: {bad}:") and "outside the accepted range" in err


def test_ctrl_c_exits_130_without_a_traceback(monkeypatch, capsys):
    import coarsenrank_core.cli as cli

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_read", interrupted)
    assert main(["rank", PIZZA]) == 130
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("weight", ["1e308", "1e-320", "1e13"])
def test_weights_outside_the_range_are_refused_by_row(weight):
    with pytest.raises(PreferenceFormatError, match="accepted range") as info:
        read_preferences(f"voter,count,1st,2nd\nx,{weight},a,b\ny,1,b,a\n".encode())
    assert info.value.row == 2 and info.value.column == "count"


def test_alpha_at_the_bounds_is_accepted(capsys):
    assert main(["rank", PIZZA, "--alpha", "1e-6", "--max-iter", "5"]) == 0
    scores = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    assert scores and all(cell != "nan" for row in scores for cell in row)


def test_out_equal_to_the_input_is_refused_unless_forced(tmp_path, capsys):
    source = tmp_path / "p.csv"
    original = open(PIZZA, "rb").read()
    source.write_bytes(original)
    for out in (str(source), str(tmp_path / "." / "p.csv")):
        with pytest.raises(SystemExit) as info:
            main(["rank", str(source), "--out", out, "--alpha", "10", "--max-iter", "5"])
        assert info.value.code == 2
        line = capsys.readouterr().err.strip().splitlines()[-1]
        assert "would overwrite it" in line and "--force" in line
    assert source.read_bytes() == original
    link = tmp_path / "same.csv"
    os.link(source, link)
    with pytest.raises(SystemExit):
        main(["rank", str(source), "--out", str(link), "--alpha", "10"])
    capsys.readouterr()
    truth = tmp_path / "truth.csv"
    truth.write_text("item,score\n")
    with pytest.raises(SystemExit):
        main(["compare", str(source), "--truth", str(truth), "--out", str(truth)])
    capsys.readouterr()
    assert main(["rank", str(source), "--out", str(source), "--force", "--alpha", "10",
                 "--max-iter", "5"]) == 0
    assert source.read_bytes() != original
