"""Survey exports and other layouts: fixtures of each platform, round trips, refusals."""

import io
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coarsenrank_core import PreferenceFormatError, read_file, read_preferences
from coarsenrank_core.io import FORMATS, ReadOptions, extensions, sheet_names
from coarsenrank_core.registry import run_method

EXPORTS = Path(__file__).parent / "data" / "exports"
PIZZAS = ("Margherita", "Funghi", "Hawaii", "Quattro formaggi")
PLAYERS = ("Anna", "Boris", "Clara", "Dmitri")
TEAMS = ("Lions", "Tigers", "Bears")
ROUND_TRIP = settings(max_examples=60, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# fixture, layout, items, lists, rankers (None = no ranker column), Borda winner
CASES = [
    ("google_forms_grid.csv", "ranks", PIZZAS, 4, 4, "Margherita"),
    ("google_forms_rank_questions.csv", "wide", PIZZAS, 4, None, "Margherita"),
    ("qualtrics_rank_order.csv", "ranks", PIZZAS, 3, 3, "Margherita"),
    ("qualtrics_legacy.csv", "ranks", PIZZAS, 3, 3, "Margherita"),
    ("surveymonkey_ranking.csv", "ranks", PIZZAS, 3, 3, "Margherita"),
    ("limesurvey_ranking.csv", "wide", PIZZAS, 3, 3, "Margherita"),
    ("typeform_ranking.csv", "cell", PIZZAS, 3, 3, "Margherita"),
    ("civs_ballots.csv", "ranks", PIZZAS, 4, None, "Margherita"),
    ("plackettluce_rankings.csv", "ranks", PIZZAS, 4, None, "Margherita"),
    ("pref_voting_candidate_columns.csv", "ranks", PIZZAS[:3], 3, None, "Margherita"),
    ("kobo_space_list.csv", "cell", ("margherita", "funghi", "hawaii", "quattro"), 3, 3,
     "margherita"),
    ("arrow_rankings.csv", "cell", PIZZAS[:3], 3, 3, "Margherita"),
    ("arena_battles.jsonl", "pairwise", ("alpha", "beta", "gamma"), 5, 3, "alpha"),
    ("arena_battles.json", "pairwise", ("alpha", "beta", "gamma"), 4, None, "alpha"),
    ("chess_results.csv", "pairwise", ("Anna", "Boris", "Clara", "Dmitri"), 5, None, "Anna"),
    ("chess_winner_words.csv", "pairwise", ("Anna", "Boris", "Clara", "Dmitri"), 4, None,
     "Anna"),
    ("player_ab_winner.csv", "pairwise", ("Anna", "Boris", "Clara", "Dmitri"), 4, None,
     "Anna"),
    ("football_scores.csv", "pairwise", ("Lions", "Tigers", "Bears"), 4, None, "Lions"),
    ("winner_loser_draw_flag.csv", "pairwise", ("Anna", "Boris", "Clara", "Dmitri"), 4, None,
     "Anna"),
    ("opavote.blt", "blt", PIZZAS[:3], 3, None, "Funghi"),  # Quattro formaggi withdrawn
    ("surveymonkey_several_questions.csv", "ranks", PIZZAS, 3, 3, "Margherita"),
    ("google_forms_several_questions.csv", "ranks", PIZZAS[:3], 3, 3, "Margherita"),
    ("google_forms_rank_questions_and_comments.csv", "wide", PIZZAS, 2, None, "Margherita"),
    ("qualtrics_several_questions.csv", "ranks", PIZZAS[:3], 2, 2, "Margherita"),
    # who answered, metadata and ballot marks are never items
    ("google_forms_rank_questions_your_name.csv", "wide", PIZZAS, 4, 4, "Margherita"),
    ("google_forms_rank_questions_your_name_only.csv", "wide", PIZZAS, 4, 4, "Margherita"),
    ("alchemer_user_agent.csv", "ranks", PIZZAS, 3, 3, "Margherita"),
    ("user_agent_and_rank_questions.csv", "wide", PIZZAS, 3, None, "Margherita"),
    ("cvr_ranked_choice.xlsx", "wide", PIZZAS, 8, None, "Margherita"),
    # match logs: names over id siblings, result letters, draws, long ballots
    ("tennis_atp_matches.csv", "pairwise", PLAYERS, 5, None, "Anna"),
    ("allourideas_votes.csv", "pairwise", PIZZAS, 6, None, "Margherita"),
    ("football_data_main.csv", "pairwise", TEAMS, 4, None, "Lions"),
    ("football_data_new_leagues.csv", "pairwise", TEAMS, 4, None, "Lions"),
    ("long_ballots.csv", "long", PIZZAS, 3, None, "Margherita"),
    ("lichess_games.csv", "pairwise", ("anna_k", "boris99", "clara_x", "dmitri_p"), 5, None,
     "anna_k"),
    ("item_ab_winner_draw.csv", "pairwise", PLAYERS, 4, None, "Anna"),
    ("psychopy_trials.csv", "pairwise", PIZZAS[:3], 3, 1, "Margherita"),
    ("psychopy_ranking_trials.csv", "wide", PIZZAS[:3], 3, 3, "Margherita"),
    ("chess_games.pgn", "pgn", PLAYERS, 5, None, "Anna"),
    ("pizza.cvotes", "condorcet", PIZZAS[:3] + ("Quattro Formaggi",), 3, None, "Margherita"),
    ("repeat_counts_in_cells.csv", "cell", PIZZAS[:3], 3, None, "Margherita"),
    ("alpacaeval_annotations.json", "pairwise", ("gpt4_turbo", "llama-2-70b", "claude-2"), 5,
     1, "gpt4_turbo"),
    ("mturk_batch_results.csv", "pairwise", PIZZAS, 9, 3, "Margherita"),
]


def winner(prefs) -> str:
    return prefs.item_names[int(np.argmax(run_method("borda", prefs).scores))]


@pytest.mark.parametrize(("name", "layout", "items", "lists", "rankers", "best"), CASES,
                         ids=[c[0] for c in CASES])
def test_export_loads_right(name, layout, items, lists, rankers, best):
    result = read_file(EXPORTS / name)
    prefs, report = result.preferences, result.report
    assert report.layout == layout and report.automatic
    assert prefs.item_names == items
    assert len(prefs) == lists
    assert (prefs.n_rankers if prefs.has_rankers else None) == rankers
    assert winner(prefs) == best
    assert report.lines()[0].startswith("We read this as: ")


def test_survey_metadata_is_skipped_and_reported():
    report = read_file(EXPORTS / "qualtrics_rank_order.csv").report
    assert report.platform == "Qualtrics" and report.header_rows == 3
    assert report.ranker_column == "Response ID"
    skipped = " ".join(report.skipped_columns)
    for name in ("Start Date", "IP Address", "Duration (in seconds)", "Recorded Date",
                 "User Language", "Distribution Channel", "Progress", "Finished"):
        assert name in skipped
    monkey = read_file(EXPORTS / "surveymonkey_ranking.csv").report
    assert monkey.platform == "SurveyMonkey" and monkey.header_rows == 2
    assert "Custom Data 1 (survey metadata)" in monkey.skipped_columns
    google = read_file(EXPORTS / "google_forms_grid.csv")
    assert google.report.ranker_column == "Email Address"
    assert google.preferences.ranker_names[0] == "ann@example.org"
    assert google.report.skipped_columns == ("Timestamp (survey metadata)",)


@pytest.mark.parametrize("name", ["surveymonkey_several_questions.csv",
                                  "google_forms_several_questions.csv",
                                  "google_forms_rank_questions_and_comments.csv",
                                  "qualtrics_several_questions.csv"])
def test_answers_to_other_questions_are_skipped_and_listed(name):
    report = read_file(EXPORTS / name).report
    others = [c for c in report.skipped_columns
              if c.endswith(("(another question)", "(about who answered, not an item)"))]
    assert len(others) >= 2, report.skipped_columns
    assert not set(report.item_columns) & {c.rsplit(" (", 1)[0] for c in others}


def test_per_row_ids_never_become_the_ranker():
    battles = read_file(EXPORTS / "arena_battles.json")
    assert not battles.preferences.has_rankers and "battle_id" in battles.report.skipped_columns
    assert read_file(EXPORTS / "arena_battles.jsonl").report.ranker_column == "judge"


@pytest.mark.parametrize("name", ["football_data_main.csv", "football_data_new_leagues.csv"])
def test_football_result_letters_home_draw_away(name):
    prefs = read_file(EXPORTS / name).preferences
    assert prefs.to_lists(names=True) == [["Lions", "Tigers"], [frozenset({"Bears", "Lions"})],
                                          ["Bears", "Tigers"], ["Lions", "Bears"]]


def test_names_beat_their_id_siblings_and_game_ids_are_no_rankers():
    lichess = read_file(EXPORTS / "lichess_games.csv")
    assert lichess.preferences.to_lists(names=True)[:3] == [
        ["anna_k", "boris99"], [frozenset({"clara_x", "dmitri_p"})], ["clara_x", "boris99"]]
    assert not lichess.preferences.has_rankers and "id" in lichess.report.skipped_columns
    tennis = read_file(EXPORTS / "tennis_atp_matches.csv").report
    assert tennis.item_columns == ("winner_name", "loser_name")
    assert "winner_id" in tennis.skipped_columns
    votes = read_file(EXPORTS / "allourideas_votes.csv").report
    assert votes.item_columns == ("Winner Text", "Loser Text")


def test_answers_of_mturk_and_alpacaeval_choose_between_the_two_items():
    alpaca = read_file(EXPORTS / "alpacaeval_annotations.json")
    assert alpaca.report.item_columns == ("generator_1", "generator_2", "preference")
    assert alpaca.preferences.to_lists(names=True)[1:3] == [
        ["gpt4_turbo", "claude-2"], [frozenset({"llama-2-70b", "claude-2"})]]
    turk = read_file(EXPORTS / "mturk_batch_results.csv")
    assert turk.report.ranker_column == "WorkerId"
    assert "MaxAssignments" in turk.report.skipped_columns
    long = read_preferences(b"voter,rank,candidate\nv1,1,A\nv1,2,overvote\nv1,3,B\n"
                            b"v2,1,B\nv2,2,A\n")
    assert long.to_lists(names=True) == [["A", "B"], ["B", "A"]] and "ballot mark" in \
        long.notes[0]


def test_trial_loop_counters_are_named_as_such():
    report = read_file(EXPORTS / "psychopy_ranking_trials.csv").report
    counters = [c for c in report.skipped_columns if "trial loop" in c]
    assert {c.split(" (")[0] for c in counters} >= {"trials.thisRepN", "trials.thisTrialN",
                                                    "trials.thisN", "trials.thisIndex"}


def test_a_draw_flag_allows_a_blank_winner():
    prefs = read_file(EXPORTS / "item_ab_winner_draw.csv").preferences
    assert prefs.to_lists(names=True)[1] == [frozenset({"Clara", "Dmitri"})]
    error = pytest.raises(PreferenceFormatError, read_preferences,
                          b"item_a,item_b,winner,draw\nA,B,,0\nB,C,B,0\n").value
    assert "blank" in error.reason and error.row == 2


def test_repeat_counts_written_in_cells_are_counts_never_names():
    for name in ("pizza.cvotes", "repeat_counts_in_cells.csv"):
        prefs = read_file(EXPORTS / name).preferences
        assert not any("*" in n or "^" in n for n in prefs.item_names)
    assert read_file(EXPORTS / "pizza.cvotes").preferences.weights.tolist() == [2, 1, 3]
    cells = read_file(EXPORTS / "repeat_counts_in_cells.csv").preferences
    assert cells.weights.tolist() == [2, 1, 3]
    weighted = read_preferences(b'voter,ranking\nann,"A,B ^3"\nbob,"B,A,C"\n')
    assert weighted.weights.tolist() == [3, 1] and weighted.item_names == ("A", "B", "C")
    spread = pytest.raises(PreferenceFormatError, read_preferences,
                           b"voter,1st,2nd\nann,A,B * 3\nbob,B,A\n").value
    assert "'B * 3'" in spread.reason and "repeat count" in spread.reason
    error = pytest.raises(PreferenceFormatError, read_preferences,
                          b"ranking,count\nA > B * 2,1\nB > A,1\n").value
    assert "count column" in error.reason


def test_condorcet_tags_comments_weights_and_implicit_ranking():
    text = ("#/Candidates: A ; B ; C\n#/Weight Allowed: true\n# a comment\n"
            "t1, t2 || A > B ^2 * 3 # six\nC\n/EMPTY/ * 2\n")
    prefs = read_preferences(text.encode())
    assert prefs.to_lists(names=True) == [["A", "B", "C"], ["C", frozenset({"A", "B"})]]
    assert prefs.weights.tolist() == [6, 1]
    assert any("/EMPTY/" in n for n in prefs.notes) and any("Implicit" in n for n in prefs.notes)


def test_pgn_is_read_as_games_and_named_when_refused():
    result = read_file(EXPORTS / "chess_games.pgn")
    assert result.report.layout == "pgn"
    assert result.preferences.to_lists(names=True)[1] == [frozenset({"Clara", "Dmitri"})]
    text = (EXPORTS / "chess_games.pgn").read_bytes()
    error = pytest.raises(PreferenceFormatError, read_preferences, text, format="pairwise").value
    assert "PGN" in error.reason and "JSON" not in error.reason and "'pgn'" in error.fix
    unfinished = read_preferences(b'[White "a"]\n[Black "b"]\n[Result "*"]\n\n1. e4 *\n\n'
                                  b'[White "a"]\n[Black "c"]\n[Result "0-1"]\n\n1. e4 0-1\n')
    assert unfinished.to_lists(names=True) == [["c", "a"]] and "no result" in unfinished.notes[0]
    missing = pytest.raises(PreferenceFormatError, read_preferences,
                            b'[Event "x"]\n[White "a"]\n[Result "1-0"]\n\n1. e4 1-0\n').value
    assert "[Black" in missing.reason and missing.row == 1


def test_google_grid_parses_written_ranks_and_blanks():
    prefs = read_file(EXPORTS / "google_forms_grid.csv").preferences
    assert prefs.to_lists(names=True)[1] == ["Funghi", "Margherita", "Quattro formaggi"]


@pytest.mark.parametrize("cell", ["1", "1st", "1st choice", "First", "Rank 1", "Choice 1",
                                  "first choice", "#1"])
def test_rank_cells_in_words(cell):
    text = f"a,b,c\n{cell},3,2\n"
    assert read_preferences(text.encode()).to_lists(names=True) == [["a", "c", "b"]]


@pytest.mark.parametrize("blank", ["", "-", "N/A", "No opinion", "n/a", "0"])
def test_unranked_cells(blank):
    text = f"a,b,c\n1,{blank},2\n2,1,3\n"
    assert read_preferences(text.encode()).to_lists(names=True) == [["a", "c"], ["b", "a", "c"]]


def test_equal_ranks_are_ties_and_one_can_be_the_worst():
    text = b"a,b,c\n1,1,2\n3,2,1\n"
    assert read_preferences(text).to_lists(names=True)[0] == [frozenset({"a", "b"}), "c"]
    worst = read_file(text, options=ReadOptions(one_is_best=False))
    assert worst.preferences.to_lists(names=True) == [["c", frozenset({"a", "b"})],
                                                      ["a", "b", "c"]]
    assert worst.report.one_is_best is False and "worst" in " ".join(worst.report.lines())


@pytest.mark.parametrize("text", [
    "respondent,Margherita,Funghi,Hawaii,Diavola\nr1,4,3,1,2\nr2,5,4,2,5\nr3,5,2,1,3\n",
    "Respondent,How would you rate Margherita?,How would you rate Funghi?,"
    "How would you rate Hawaii?\nr1,3,2,1\nr2,5,3,1\n",
])
def test_ratings_above_the_count_of_items_are_refused_as_ranks_and_read_higher_is_better(text):
    # 1-5 stars read as ranks with 1 the best put the worst-rated pizza first
    with pytest.raises(PreferenceFormatError) as refused:
        read_file(text.encode())
    error = refused.value
    assert error.row == 3 and "cannot be a rank here" in str(error)
    assert "'5'" in str(error) and "Rank numbers mean: 1 is the worst" in str(error)
    assert "margherita" in str(error).lower()
    stars = read_file(text.encode(), options=ReadOptions(one_is_best=False))
    assert stars.report.layout == "ranks"
    first = stars.preferences.to_lists(names=True, stop=1)[0]
    assert first[0].endswith("Margherita?") or first[0] == "Margherita"
    order = run_method("pl-em", stars.preferences).order
    assert stars.preferences.item_names[order[-1]].endswith(("Hawaii", "Hawaii?"))
    # the layout named by hand: the numbers stand as they are, smaller better
    grades = read_file(text.encode(), "ranks").preferences.to_lists(names=True, stop=1)[0]
    assert grades[0].endswith(("Hawaii", "Hawaii?"))


def test_a_long_file_reads_its_rank_numbers_either_way_up():
    text = b"voter,item,rank\nr1,a,1\nr1,b,2\nr1,c,3\nr2,a,1\nr2,c,2\n"
    best = read_file(text)
    worst = read_file(text, options=ReadOptions(one_is_best=False))
    assert best.preferences.to_lists(names=True) == [["a", "b", "c"], ["a", "c"]]
    assert worst.preferences.to_lists(names=True) == [["c", "b", "a"], ["c", "a"]]
    assert best.report.one_is_best is True and worst.report.one_is_best is False
    # ballots skip places: a rank above the number of items stays a rank
    skipped = read_file(b"voter,item,rank\nr1,a,1\nr1,b,5\n").preferences
    assert skipped.to_lists(names=True) == [["a", "b"]]


def test_corrections_choose_columns_ranker_and_count():
    text = b"who,a,b,c,n\nann,1,2,3,2\nbob,2,1,3,1\n"
    auto = read_file(text)
    assert auto.report.ranker_column == "who" and auto.report.count_column == "n"
    assert auto.preferences.weights.tolist() == [2.0, 1.0]
    fewer = read_file(text, options=ReadOptions(item_columns=("a", "b"), count_column=""))
    assert fewer.preferences.to_lists(names=True) == [["a", "b"], ["b", "a"]]
    assert fewer.preferences.weights.tolist() == [1.0, 1.0]
    assert set(fewer.report.skipped_columns) >= {"c"}
    unnamed = read_file(text, options=ReadOptions(ranker_column="", item_columns=("a", "b", "c")))
    assert not unnamed.preferences.has_rankers


def _workbook(sheets: dict[str, list[list]]) -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for row in rows:
            sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


MS_FORMS = [["ID", "Start time", "Completion time", "Email", "Name", "Rank the pizzas"],
            [1, "5/1/24 10:00:00", "5/1/24 10:01:00", "anonymous", None,
             "Margherita;Funghi;Hawaii;"],
            [2, "5/1/24 10:02:00", "5/1/24 10:03:00", "anonymous", None,
             "Funghi;Margherita;Quattro formaggi;"],
            [3, "5/1/24 10:04:00", "5/1/24 10:05:00", "anonymous", None,
             "Margherita;Hawaii;Funghi;Quattro formaggi;"]]


def test_microsoft_forms_workbook():
    data = _workbook({"Sheet1": MS_FORMS})
    result = read_file(io.BytesIO(data))
    assert result.report.layout == "cell" and result.report.platform == "Microsoft Forms"
    assert result.preferences.to_lists(names=True)[0] == ["Margherita", "Funghi", "Hawaii"]
    assert winner(result.preferences) == "Margherita"
    assert "Start time (survey metadata)" in result.report.skipped_columns


def test_microsoft_forms_workbook_with_another_question():
    rows = [MS_FORMS[0] + ["Anything else?"]] + [r + [a] for r, a in zip(
        MS_FORMS[1:], ["More vegan options, please", None, "no"])]
    result = read_file(_workbook({"Sheet1": rows}))
    assert result.report.layout == "cell" and "Anything else? (another question)" in \
        result.report.skipped_columns
    assert result.preferences.item_names == PIZZAS


def test_workbook_with_several_sheets_reads_the_first_or_the_chosen():
    data = _workbook({"About": [["This survey asked about pizzas"]],
                      "Responses": MS_FORMS})
    assert sheet_names(data) == ("About", "Responses")
    with pytest.raises(PreferenceFormatError):
        read_file(data)
    chosen = read_file(data, options=ReadOptions(sheet="Responses"))
    assert chosen.report.sheet == "Responses" and chosen.report.sheets == ("About",
                                                                           "Responses")
    assert len(chosen.preferences) == 3
    with pytest.raises(PreferenceFormatError, match="no sheet called"):
        read_file(data, options=ReadOptions(sheet="Nope"))


def test_every_extension_the_readers_read_is_listed():
    assert {"csv", "tsv", "txt", "xlsx", "json", "jsonl", "blt", "soc", "soi", "toc",
            "toi"} <= set(extensions())
    assert all(f.id and f.title and f.example for f in FORMATS.values())


# ---------------------------------------------------------------------------- refusals
@pytest.mark.parametrize(("text", "kind"), [
    (b"2024-05-01 10:00:00,apple,banana\n2024-05-02 11:30:00,banana,apple\n", "dates"),
    (b"5/1/2024 10:00,apple,banana\n5/2/2024 11:30,banana,apple\n", "dates"),
    (b"ann@example.org,apple,banana\nbob@example.org,banana,apple\n", "e-mail"),
    (b"192.0.2.1,apple,banana\n192.0.2.2,banana,apple\n", "IP addresses"),
])
def test_detector_refuses_metadata_as_items(text, kind):
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(text)
    assert kind in info.value.reason and "not loaded" in info.value.reason
    read_preferences(text, format="wide")  # an explicit choice is the user's


@pytest.mark.parametrize("text, row, column, cell", [
    (b"Margherita,Funghi,Hawaii\n1,2,x\n2,1,3\n", 2, "Hawaii", "'x' is not a rank"),
    (b"Margherita,Funghi,Hawaii\n1,2,3\n2,2.5,1\n", 3, "Funghi", "'2.5' is not a whole rank"),
])
def test_a_table_of_ranks_with_one_stray_cell_names_the_cell(text, row, column, cell):
    """Detection keeps the layout of ranks; the reader names the cell, not the header."""
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(text)
    assert (info.value.row, info.value.column) == (row, column)
    assert cell in info.value.reason and "appears twice" not in info.value.reason


@pytest.mark.parametrize("text", [
    b"Margherita,Funghi,Hawaii\n1,2,x\n2,y,3\nz,1,2\n",
    b"Margherita,Funghi,Hawaii\n1,2,3.5\n2,2.5,1\n",
])
def test_detector_refuses_bare_rank_numbers_as_items(text):
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(text)
    assert "bare numbers" in info.value.reason and "item columns holding ranks" in \
        info.value.fix
    assert "appears twice" not in info.value.reason


def test_metadata_titles_never_become_items():
    with pytest.raises(PreferenceFormatError, match="column titles"):
        read_preferences(b"apple,Timestamp,banana\nbanana,apple,Timestamp\n")


def test_rank_number_repeated_in_a_row_names_the_real_cause():
    error = pytest.raises(PreferenceFormatError, read_preferences,
                          b"Margherita,Funghi,Hawaii\n1,1,x\n", format="wide").value
    assert "rank number" in error.reason and "Item columns holding ranks" in error.fix


def test_refusal_of_a_survey_export_names_its_platform():
    text = b"StartDate,ResponseId,Q1_1,Q1_2\n2024-05-01,R_1,1,2\n2024-05-02,R_2,2,x\n"
    error = pytest.raises(PreferenceFormatError, read_preferences, text).value
    assert error.reason.startswith("This looks like a Qualtrics export.")
    assert (error.row, error.column) == (3, "Q1_2") and "Use numeric values" in error.fix
    text = text.replace(b",1,2\n", b",y,2\n")
    error = pytest.raises(PreferenceFormatError, read_preferences, text).value
    assert error.reason.startswith("This looks like a Qualtrics export.")
    assert "bare numbers" in error.reason and "Use numeric values" in error.fix


def test_broken_survey_export_names_its_platform():
    text = (EXPORTS / "qualtrics_rank_order.csv").read_text().replace(",1,2,3,4\n",
                                                                        ",1,2,3,lots\n")
    error = pytest.raises(PreferenceFormatError, read_preferences, text.encode(),
                          format="ranks").value
    assert "Qualtrics" in error.reason and "Qualtrics" in error.fix
    assert error.row == 4 and error.column == "Quattro formaggi"


# ---------------------------------------------------------------------------- round trips
NAMES = st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8).map(
    lambda s: "it " + s), min_size=2, max_size=6, unique=True)


@st.composite
def collections(draw, ties: bool = True, min_length: int = 2):
    """Rankings over named items: lists of groups (a group of several is a tie)."""
    names = draw(NAMES)
    out = []
    for _ in range(draw(st.integers(1, 6))):
        chosen = draw(st.permutations(names))[:draw(st.integers(min_length, len(names)))]
        groups, k = [], 0
        while k < len(chosen):
            size = draw(st.integers(1, 2)) if ties else 1
            groups.append(chosen[k:k + size])
            k += size
        if len(groups) == 1 and len(groups[0]) == 1:
            continue
        out.append(groups)
    return names, out


def expected(lists):
    return [[g[0] if len(g) == 1 else frozenset(g) for g in groups] for groups in lists]


def write_wide(names, lists):
    width = max(len(g) for g in lists)
    rows = ["voter," + ",".join(f"rank {k + 1}" for k in range(width))]
    rows += [f"r{n}," + ",".join("|".join(g) for g in groups) for n, groups in enumerate(lists)]
    return "\n".join(rows) + "\n"


def write_long(names, lists):
    rows = ["ranker,item,rank"]
    rows += [f"r{n},{item},{k + 1}" for n, groups in enumerate(lists)
             for k, g in enumerate(groups) for item in g]
    return "\n".join(rows) + "\n"


def write_ranks(names, lists):
    rows = ["respondent," + ",".join(names)]
    for n, groups in enumerate(lists):
        rank = {item: k + 1 for k, g in enumerate(groups) for item in g}
        rows.append(f"r{n}," + ",".join(str(rank.get(name, "")) for name in names))
    return "\n".join(rows) + "\n"


def write_cell(names, lists):
    rows = ["voter,ranking"]
    rows += [f"r{n}," + " > ".join(" = ".join(g) for g in groups)
             for n, groups in enumerate(lists)]
    return "\n".join(rows) + "\n"


def write_preflib(names, lists):
    index = {name: k + 1 for k, name in enumerate(names)}
    rows = ["# DATA TYPE: toi", f"# NUMBER ALTERNATIVES: {len(names)}"]
    rows += [f"# ALTERNATIVE NAME {index[n]}: {n}" for n in names]
    for groups in lists:
        parts = [str(index[g[0]]) if len(g) == 1 else "{" + ",".join(str(index[i]) for i in g)
                 + "}" for g in groups]
        rows.append("1: " + ",".join(parts))
    return "\n".join(rows) + "\n"


def write_blt(names, lists):
    index = {name: k + 1 for k, name in enumerate(names)}
    rows = [f"{len(names)} 1"]
    rows += ["1 " + " ".join("=".join(str(index[i]) for i in g) for g in groups) + " 0"
             for groups in lists]
    rows += ["0"] + [f'"{n}"' for n in names] + ['"A title"']
    return "\n".join(rows) + "\n"


WRITERS = {"wide": write_wide, "long": write_long, "ranks": write_ranks, "cell": write_cell,
           "preflib": write_preflib, "blt": write_blt}


@pytest.mark.parametrize("layout", list(WRITERS))
@ROUND_TRIP
@given(data=collections())
def test_property_every_layout_reads_back_equal(layout, data):
    names, lists = data
    text = WRITERS[layout](names, lists).encode()
    for fmt in ("auto", layout):
        result = read_file(text, format=fmt)
        assert result.report.layout == layout
        assert result.preferences.to_lists(names=True) == expected(lists)
        if layout in ("wide", "long", "ranks", "cell"):
            assert list(result.preferences.ranker_names) == [f"r{n}" for n in range(len(lists))]


def _pairs(draw_pairs):
    return [(a, b, tie) for a, b, tie in draw_pairs if a != b]


PAIRS = st.lists(st.tuples(st.sampled_from(["it x", "it y", "it z", "it w"]),
                           st.sampled_from(["it x", "it y", "it z", "it w"]), st.booleans()),
                 min_size=1, max_size=12).map(_pairs).filter(bool)


def pair_files(pairs):
    """The same comparisons (winner first; tie flag) in each pairwise coding."""
    files = {
        "winner,loser,draw": "winner,loser,draw\n" + "".join(
            f"{a},{b},{int(t)}\n" for a, b, t in pairs),
        "left,right,winner": "left,right,winner\n" + "".join(
            f"{a},{b},{'tie' if t else a}\n" for a, b, t in pairs),
        "model_a,model_b,winner": "model_a,model_b,winner\n" + "".join(
            f"{b},{a},{'tie' if t else 'model_b'}\n" for a, b, t in pairs),
        "white,black,result": "white,black,result\n" + "".join(
            f"{a},{b},{'1/2-1/2' if t else '1-0'}\n" for a, b, t in pairs),
        "player_a,player_b,winner": "player_a,player_b,winner\n" + "".join(
            f"{b},{a},{'draw' if t else 'B'}\n" for a, b, t in pairs),
        "flags": "model_a,model_b,winner_model_a,winner_model_b,winner_tie\n" + "".join(
            f"{a},{b},{int(not t)},0,{int(t)}\n" for a, b, t in pairs),
        "scores": "home_team,away_team,home_score,away_score\n" + "".join(
            f"{b},{a},{1 if t else 0},1\n" for a, b, t in pairs),
        "jsonl": "".join(json.dumps({"battle_id": k, "model_a": a, "model_b": b,
                                     "winner": "tie" if t else "model_a"}) + "\n"
                         for k, (a, b, t) in enumerate(pairs)),
    }
    return {k: v.encode() for k, v in files.items()}


@pytest.mark.slow
@ROUND_TRIP
@given(pairs=PAIRS)
def test_property_every_pairwise_coding_reads_back_equal(pairs):
    want = [[frozenset({a, b})] if t else [a, b] for a, b, t in pairs]
    for coding, data in pair_files(pairs).items():
        name = "battles.jsonl" if coding == "jsonl" else "pairs.csv"
        buffer = io.BytesIO(data)
        buffer.name = name
        result = read_file(buffer)
        assert result.report.layout == "pairwise", coding
        assert result.preferences.to_lists(names=True) == want, coding


@ROUND_TRIP
@given(data=collections())
def test_property_workbooks_read_back_equal(data):
    names, lists = data
    rows = [line.split(",") for line in write_wide(names, lists).splitlines()]
    workbook = _workbook({"Sheet1": rows})
    result = read_file(workbook)
    assert result.report.layout == "wide" and result.report.sheet == "Sheet1"
    assert result.preferences.to_lists(names=True) == expected(lists)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_property_random_bytes_give_only_format_errors(data):
    for name in ("x.csv", "x.xlsx", "x.json", "x.blt", "x.soi"):
        buffer = io.BytesIO(data)
        buffer.name = name
        try:
            read_file(buffer)
        except PreferenceFormatError as error:
            assert not error.reason.startswith("Unexpected problem"), error


# ---------------------------------------------------------------------------- command line
def test_cli_reads_an_export_and_prints_the_read_record(tmp_path, capsys):
    from coarsenrank_core.cli import main

    out = tmp_path / "ranking.csv"
    assert main(["rank", str(EXPORTS / "surveymonkey_ranking.csv"), "--alpha", "inf",
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "We read this as: item columns holding ranks (detected), a SurveyMonkey export." \
        in err and "Ranker column: 'Respondent ID'." in err
    assert out.read_text().splitlines()[1].startswith("Margherita,1,")


def test_cli_corrections_and_sheet(tmp_path, capsys):
    from coarsenrank_core.cli import main

    book = tmp_path / "forms.xlsx"
    book.write_bytes(_workbook({"About": [["notes"]], "Responses": MS_FORMS}))
    assert main(["rank", str(book), "--sheet", "Responses", "--alpha", "inf"]) == 0
    captured = capsys.readouterr()
    assert "Sheet: 'Responses' (of 2)." in captured.err
    assert captured.out.splitlines()[1].startswith("Margherita,1,")
    grid = tmp_path / "grid.csv"
    grid.write_text("who,a,b,c\nann,1,2,3\nbob,2,1,3\n")
    assert main(["rank", str(grid), "--one-is-worst", "--items", "a", "b", "c",
                 "--alpha", "inf"]) == 0
    captured = capsys.readouterr()
    assert "Rank 1 means the worst" in captured.err
    assert captured.out.splitlines()[1].startswith("c,1,")


def test_readme_shows_an_example_of_every_layout_and_each_reads():
    import re

    readme = (Path(__file__).parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Files it reads"):readme.index("## Python and")]
    layouts = set()
    for block in re.findall(r"```\n(.*?)```", section, re.S):
        name = ("x.blt" if re.match(r"\d+ \d+\n", block) else
                "x.jsonl" if block.startswith("{") else
                "x.pgn" if block.startswith("[") else
                "x.cvotes" if block.startswith("#/") else "x.csv")
        buffer = io.BytesIO(block.encode())
        buffer.name = name
        result = read_file(buffer)
        layouts.add(result.report.layout)
        assert len(result.preferences) >= 1
    assert layouts == set(FORMATS)


def test_space_separated_columns_read_as_one_ranking_say_how_to_give_them_columns():
    # the paper's Readlevel file: 'worker item_a item_b', no header; read as one ranking per
    # row, the worker's id meets an item's id
    text = b"1 1 2\n2 2 1\n3 2 1\n4 5 3\n"
    with pytest.raises(PreferenceFormatError) as refused:
        read_file(text)
    assert "appears twice" in str(refused.value)
    assert "such as 'ranker,winner,loser'" in str(refused.value)
    fixed = read_file(b"ranker,winner,loser\n1,1,2\n2,2,1\n3,2,1\n4,5,3\n")
    assert fixed.report.layout == "pairwise" and fixed.preferences.n_rankers == 4


@pytest.mark.parametrize("text", [b"user_194 4.9107\nuser_117 4.8137\nuser_28 4.8052\n",
                                  b"20 0.8807\n63 0.8651\n18 0.8159\n7 .5\n"])
def test_rows_of_a_name_and_a_decimal_score_are_refused_as_rankings(text):
    # the PeerGrading release's score lists: each row read as a two-item ranking before
    with pytest.raises(PreferenceFormatError) as refused:
        read_file(text)
    assert "items with their scores" in str(refused.value) and refused.value.row == 1
    assert read_file(text, "cell").report.layout == "cell"  # chosen by hand: read as asked
    # rows of two whole numbers are pairs of numbered items, as before
    assert read_file(b"1 2\n2 3\n3 1\n").preferences.to_lists() == [[0, 1], [1, 2], [2, 0]]


def test_qualtrics_display_order_column_is_skipped_as_metadata():
    text = (b'StartDate,ResponseId,Q1_1,Q1_2,Q1_3,Q1_DO\n'
            b'Start Date,Response ID,Rank the pizzas - Margherita,Rank the pizzas - Funghi,'
            b'Rank the pizzas - Hawaii,Rank the pizzas - Display Order\n'
            b'"{""ImportId"":""startDate""}","{""ImportId"":""_recordId""}",'
            b'"{""ImportId"":""QID1_1""}","{""ImportId"":""QID1_2""}","{""ImportId"":""QID1_3""}",'
            b'"{""ImportId"":""QID1_DO""}"\n'
            b"2024-05-01 10:00:00,R_1,1,2,3,3|1|2\n2024-05-01 10:01:00,R_2,2,1,3,1|2|3\n"
            b"2024-05-01 10:02:00,R_3,1,3,2,2|3|1\n")
    result = read_file(text)
    assert result.preferences.item_names == ("Margherita", "Funghi", "Hawaii")
    assert any("Display Order" in c for c in result.report.skipped_columns)


@pytest.mark.parametrize("labels, fruit", [
    (("1er choix", "2e choix", "3e choix"), ("Pomme", "Poire", "Prune")),
    (("1. Wahl", "2. Wahl", "3. Wahl"), ("Apfel", "Birne", "Pflaume")),
    (("1.ª opción", "2.ª opción", "3.ª opción"), ("Manzana", "Pera", "Ciruela")),
])
def test_google_forms_grids_in_other_languages_read_their_places_as_ranks(labels, fruit):
    first, second, third = labels
    rows = [f"Stamp,{','.join(f'Rank [{f}]' for f in fruit)}",
            f"2024/05/01 10:00,{first},{second},{third}",
            f"2024/05/01 10:01,{second},{first},{third}",
            f"2024/05/01 10:02,{first},{third},{second}"]
    prefs = read_preferences(("\n".join(rows) + "\n").encode())
    assert prefs.item_names == fruit
    assert prefs.to_lists(names=True)[1] == [fruit[1], fruit[0], fruit[2]]


def test_limesurvey_full_headings_are_named_limesurvey_not_qualtrics():
    text = (b"Response ID,Date submitted,Last page,Start language,Seed,"
            b"Rank the pizzas [Rank 1],Rank the pizzas [Rank 2],Rank the pizzas [Rank 3]\n"
            b"1,2024-05-01 10:00:00,2,en,1462847,Funghi,Hawaii,Diavola\n"
            b"2,2024-05-01 10:01:00,2,en,9981211,Hawaii,Funghi,Diavola\n")
    from coarsenrank_core.io import read_file

    report = read_file(text).report
    assert report.platform == "LimeSurvey"


def test_an_optional_name_left_blank_is_a_respondent_of_their_own():
    text = (b"Timestamp,Your name (optional),Rank these fruits [Apple],"
            b"Rank these fruits [Banana],Rank these fruits [Cherry]\n"
            b"5/1/2024 10:00:00,Ann,1,3,2\n5/1/2024 10:05:12,,2,1,3\n"
            b"5/2/2024 9:01:44,,3,2,1\n5/2/2024 9:03:44,Ann,1,2,3\n")
    prefs = read_file(text).preferences
    assert prefs.ranker_names == ("Ann", "(row 3)", "(row 4)")
    assert prefs.ranker_index.tolist() == [0, 1, 2, 0]
    with pytest.raises(PreferenceFormatError, match="ranker is blank"):  # long: whose rows?
        read_file(b"ranker,item,rank\nu,a,1\nu,b,2\n,a,2\n,b,1\n")


MAINE = ("Cast Vote Record,Precinct,Ballot Style,Rep. to Congress 1st Choice District 2,"
         "Rep. to Congress 2nd Choice District 2,Rep. to Congress 3rd Choice District 2\n"
         '1,Auburn Ward 1,Ballot Style 1,"DEM Golden, Jared (5931)","REP Poliquin, Bruce (5846)",'
         "undervote\n"
         '2,Auburn Ward 1,Ballot Style 1,"REP Poliquin, Bruce (5846)",undervote,'
         '"DEM Golden, Jared (5931)"\n'
         '3,Auburn Ward 2,Ballot Style 2,"Bond, Tiffany L. (6122)","Bond, Tiffany L. (6122)",'
         '"DEM Golden, Jared (5931)"\n')


def test_a_cast_vote_record_reads_its_choice_columns_and_keeps_a_candidates_highest_rank():
    result = read_file(MAINE.encode())
    assert result.preferences.to_lists(names=True) == [
        ["DEM Golden, Jared (5931)", "REP Poliquin, Bruce (5846)"],
        ["REP Poliquin, Bruce (5846)", "DEM Golden, Jared (5931)"],
        ["Bond, Tiffany L. (6122)", "DEM Golden, Jared (5931)"]]
    assert "Precinct" in " ".join(result.report.skipped_columns)
    assert any("ranked again lower" in n and "row 4" in n for n in result.report.notes)


@pytest.mark.parametrize("titles", [
    ["1ST CHOICE MAYOR MINNEAPOLIS", "2ND CHOICE MAYOR MINNEAPOLIS"],
    ["DEM Mayor Choice 1 of 5 Citywide (026916)", "DEM Mayor Choice 2 of 5 Citywide (226916)"],
])
def test_election_records_name_the_choice_anywhere_in_the_title(titles):
    text = ("Precinct," + ",".join(titles) + "\nW-1 P-01,Frey,Hoch\nW-1 P-01,Hoch,Dehn\n"
            "W-2 P-03,Dehn,Frey\n").encode()
    assert read_file(text).preferences.to_lists(names=True) == [
        ["Frey", "Hoch"], ["Hoch", "Dehn"], ["Dehn", "Frey"]]


def test_a_survey_answer_repeated_across_its_places_is_still_refused():
    with pytest.raises(PreferenceFormatError, match="appears twice"):
        read_file(b"Name,1st,2nd,3rd\nAnn,a,a,b\nBob,b,a,c\n")
