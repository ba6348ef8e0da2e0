"""Reader defects found by probing real export layouts (fifth batch)."""

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.io import UNEXPECTED as _UNEXPECTED
from coarsenrank_core.io import ReadOptions, read_file, read_preferences


def refusal(data: bytes, fmt: str = "auto", **options: object) -> PreferenceFormatError:
    """The PreferenceFormatError for ``data`` (which must not be the safety net's)."""
    with pytest.raises(PreferenceFormatError) as info:
        read_preferences(data, fmt, options=ReadOptions(**options))  # type: ignore[arg-type]
    assert not info.value.reason.startswith(_UNEXPECTED), info.value
    return info.value


#: The three rankings most tests below write: Apple first twice, Banana once.
THREE_ORDERS = [["Apple", "Banana", "Cherry"], ["Banana", "Apple", "Cherry"],
                ["Apple", "Cherry", "Banana"]]


def assert_three_orders(data: bytes) -> None:
    """``data`` reads, detected, as :data:`THREE_ORDERS`."""
    assert read_preferences(data).to_lists(names=True) == THREE_ORDERS


def pairs(prefs) -> list[tuple[str, str]]:
    """Every comparison as (winner, loser), ties as a sorted pair marked '='."""
    out = []
    for lst in prefs.to_lists(names=True):
        if isinstance(lst[0], frozenset):
            out.append(tuple(sorted(lst[0])) + ("=",))
        else:
            out.append((lst[0], lst[1]))
    return out


# ------------------------------------------------------------- match files of two sides
# Kaggle's NBA games.csv: the home and visiting teams' ids, their points, and one 0/1 flag
NBA_GAMES = (
    b"GAME_DATE_EST,GAME_ID,GAME_STATUS_TEXT,HOME_TEAM_ID,VISITOR_TEAM_ID,SEASON,"
    b"PTS_home,FG_PCT_home,AST_home,PTS_away,FG_PCT_away,AST_away,HOME_TEAM_WINS\n"
    b"2022-12-22,22200477,Final,NOP,SAS,2022,126,0.484,25,117,0.478,23,1\n"
    b"2022-12-22,22200478,Final,UTA,WAS,2022,120,0.488,16,112,0.561,20,1\n"
    b"2022-12-21,22200468,Final,SAS,UTA,2022,99,0.400,20,110,0.400,25,0\n"
    b"2022-12-20,22200460,Final,WAS,NOP,2022,101,0.450,21,104,0.470,24,0\n")
NBA_PAIRS = [("NOP", "SAS"), ("UTA", "WAS"), ("UTA", "SAS"), ("NOP", "WAS")]


def test_each_sides_points_beside_its_side_word_are_the_scores():
    assert pairs(read_preferences(NBA_GAMES)) == NBA_PAIRS


def test_games_without_a_score_are_skipped_not_read_as_a_result():
    data = NBA_GAMES + b"2023-01-05,22200550,7:00 pm ET,NOP,UTA,2022,,,,,,,\n"
    prefs = read_preferences(data)
    assert pairs(prefs) == NBA_PAIRS
    assert any("not played" in note for note in prefs.notes)


def test_a_home_win_flag_does_not_turn_draws_into_away_wins():
    data = (b"date,home,away,home_goals,away_goals,home_win\n"
            b"2023-08-12,Bournemouth,West Ham,1,1,0\n2023-08-13,Brentford,Tottenham,2,2,0\n"
            b"2023-08-14,Man United,Wolves,1,0,1\n")
    assert pairs(read_preferences(data)) == [("Bournemouth", "West Ham", "="),
                                             ("Brentford", "Tottenham", "="),
                                             ("Man United", "Wolves")]


def test_a_visitor_column_of_a_survey_is_its_respondent_not_a_side():
    data = (b"Timestamp,Visitor,1st choice,2nd choice,3rd choice\n"
            b"2024-05-01 10:02,Anna,Dinosaur Hall,Ocean Life,Space Gallery\n"
            b"2024-05-01 10:05,Ben,Ocean Life,Dinosaur Hall,Space Gallery\n"
            b"2024-05-01 10:09,Cleo,Dinosaur Hall,Space Gallery,Ocean Life\n")
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True)[0] == ["Dinosaur Hall", "Ocean Life", "Space Gallery"]


def test_a_visiting_team_and_its_score_are_the_second_side():
    data = (b"date,home_team,visitor_team,home_score,visitor_score\n"
            b"2024-01-01,Bears,Lions,21,14\n2024-01-08,Lions,Packers,10,24\n"
            b"2024-01-15,Packers,Bears,17,17\n")
    assert pairs(read_preferences(data)) == [("Bears", "Lions"), ("Packers", "Lions"),
                                             ("Bears", "Packers", "=")]


def test_points_of_a_game_log_do_not_say_which_way_up():
    # sailing and cross-country score points where fewer win: the file must say which way
    data = b"Race,Boat,Pts\n1,Smith,1\n1,Jones,2\n1,Lee,3\n2,Smith,2\n2,Jones,1\n2,Lee,3\n"
    error = refusal(data)
    assert "'Pts'" in error.reason or error.column == "Pts"


# --------------------------------------------------------------- ids that are not moments
def test_isbns_are_items_not_unix_times():
    data = (b"User-ID,ISBN,Book-Rating\n276729,052165615X,3\n276729,0521795028,6\n"
            b"276747,0060517794,9\n276747,0451192001,2\n276747,0671537458,9\n"
            b"276748,0060517794,5\n276748,0671537458,7\n")
    prefs = read_preferences(data)
    assert prefs.to_lists(names=True)[1] == [frozenset({"0060517794", "0671537458"}),
                                             "0451192001"]


def test_unix_seconds_and_milliseconds_are_still_moments():
    from coarsenrank_core.io.content import metadata_content
    assert metadata_content(["1700000000", "1712345678", "1699999999.5"]) == "dates or times"
    assert metadata_content(["1700000000123", "1712345678000"]) == "dates or times"
    assert metadata_content(["0521795028", "0060517794", "0451192001"]) is None


# ------------------------------------------------------- an item then its rank, in a cell
@pytest.mark.parametrize("cells", [
    ['"Apple = 1, Banana = 2, Cherry = 3"', '"Apple = 2, Banana = 1, Cherry = 3"',
     '"Cherry = 3, Apple = 1, Banana = 2"'],
    ['"Apple:1, Banana:2, Cherry:3"', '"Apple:2, Banana:1, Cherry:3"',
     '"Cherry:3, Apple:1, Banana:2"'],
    ['"Apple = 1\nBanana = 2\nCherry = 3"', '"Apple = 2\nBanana = 1\nCherry = 3"',
     '"Cherry = 3\nApple = 1\nBanana = 2"']])
def test_each_item_followed_by_its_rank_is_read_in_rank_order(cells):
    data = ("Submission Id,Name,Rank these fruit\n" + "".join(
        f"{1000 + i},{name},{cell}\n" for i, (name, cell) in enumerate(
            zip(["Ana", "Ben", "Cleo"], cells)))).encode()
    assert read_preferences(data).to_lists(names=True) == [
        ["Apple", "Banana", "Cherry"], ["Banana", "Apple", "Cherry"],
        ["Apple", "Banana", "Cherry"]]


def test_only_named_items_at_places_from_one_are_read_as_placed():
    from coarsenrank_core.io.cell import _item_places, _places_as_arrows
    assert _places_as_arrows(_item_places("Pear: 2; Apple: 1; Fig: 2")) == "Apple > Pear = Fig"
    assert _places_as_arrows(_item_places("iPhone 15 = 1, Pixel 8 = 2")) == "iPhone 15 > Pixel 8"
    for cell in ["Q1: 3, Q2: 4, Q3: 1",  # not places from 1
                 "2:1, 3:2, 4:3",  # aspect ratios
                 "Psalm 23:1, John 1:1",  # verses
                 "Adults: 2, Children: 2",  # counts
                 "Apple = 1, Banana"]:
        assert _item_places(cell) is None


@pytest.mark.parametrize("cells", [
    ['"iPhone 15 = 1, Pixel 8 = 2, Galaxy S24 = 3"', '"iPhone 15 = 2, Pixel 8 = 1"',
     '"Galaxy S24 = 1, iPhone 15 = 2, Pixel 8 = 2"']])
def test_partial_and_tied_places_after_items_are_read(cells):
    data = ("Name,Rank these phones\n" + "".join(
        f"{name},{cell}\n" for name, cell in zip(["Ana", "Ben", "Cleo"], cells))).encode()
    assert read_preferences(data).to_lists(names=True) == [
        ["iPhone 15", "Pixel 8", "Galaxy S24"], ["Pixel 8", "iPhone 15"],
        ["Galaxy S24", frozenset({"iPhone 15", "Pixel 8"})]]


def test_a_column_of_booking_fields_beside_the_ranking_stays_a_field():
    data = (b"Name,Party,Preferred rooms\n"
            b'ann,"Adults: 2, Children: 1",Suite > Double > Single\n'
            b'bob,"Adults: 1, Children: 1",Double > Suite > Single\n'
            b'cat,"Adults: 2, Children: 2",Single > Double > Suite\n')
    assert read_preferences(data).to_lists(names=True)[1] == ["Double", "Suite", "Single"]


# ------------------------------------------------------------- survey grids and metadata
def test_a_constant_referrer_name_is_not_the_respondent_and_month_names_are_dates():
    data = (b"Added Time,Referrer Name,Task Owner,Rank the fruit\n"
            + b"".join(f"0{i}-Mar-2024 10:0{i}:00,https://forms.zohopublic.com/acme/form/x,,"
                       f"\"{order}\"\n".encode() for i, order in enumerate(
                           ["Apple, Banana, Cherry", "Apple, Cherry, Banana",
                            "Banana, Apple, Cherry"], 1)))
    result = read_file(data)
    assert result.preferences.to_lists(names=True)[2] == ["Banana", "Apple", "Cherry"]
    assert not result.preferences.has_rankers
    assert result.report.ranker_column is None


@pytest.mark.parametrize("titles", [
    ["3rd choice", "2nd choice", "1st choice"],
    ["Least preferred", "Second", "Most preferred"],
    ["Bottom", "Second", "Top choice"], ["Least preferred", "2", "Most preferred"]])
def test_columns_titled_by_place_are_read_in_the_order_of_those_places(titles):
    header = ",".join(["Timestamp"] + [f"Rank the fruit [{t}]" for t in titles])
    data = (header + "\n3/1/2024 10:00:00,Cherry,Banana,Apple\n"
            "3/2/2024 10:00:00,Cherry,Apple,Banana\n3/3/2024 10:00:00,Banana,Cherry,Apple\n"
            ).encode()
    result = read_file(data)
    assert result.preferences.to_lists(names=True) == THREE_ORDERS
    assert any("order of the places" in note for note in result.report.notes)


def test_a_grid_answered_with_labels_of_no_stated_order_is_refused():
    data = (b"Timestamp,How important is each? [Apple],How important is each? [Banana],"
            b"How important is each? [Cherry]\n"
            b"3/1/2024 10:00:00,Most important,Somewhat important,Least important\n"
            b"3/2/2024 10:00:00,Most important,Least important,Somewhat important\n"
            b"3/3/2024 10:00:00,Somewhat important,Most important,Least important\n")
    error = refusal(data)
    assert "labels" in error.reason and "'Most important'" in error.reason
    assert error.row == 1 and "1, 2, 3" in error.fix


def test_ordinal_answers_labelled_best_at_the_top_are_refused_with_one_is_worst():
    header = b"Timestamp,Rank [Apple],Rank [Banana],Rank [Cherry]\n"
    data = header + (b"3/1/2024 10:00:00,3rd (best),2nd,1st (worst)\n"
                     b"3/2/2024 10:00:00,3rd (best),1st (worst),2nd\n"
                     b"3/3/2024 10:00:00,2nd,3rd (best),1st (worst)\n")
    error = refusal(data)
    assert "--one-is-worst" in error.fix and error.column == "Apple"
    prefs = read_preferences(data, options=ReadOptions(one_is_best=False))
    assert prefs.to_lists(names=True)[0] == ["Apple", "Banana", "Cherry"]


def test_a_rank_with_a_bare_most_or_least_anchor_is_a_rank():
    data = (b"Timestamp,Rank [Apple],Rank [Banana],Rank [Cherry]\n"
            b"3/1/2024 10:00:00,1 (most),2,3 (least)\n3/2/2024 10:00:00,2,1 (most),3 (least)\n"
            b"3/3/2024 10:00:00,1 (most),3 (least),2\n")
    assert_three_orders(data)


def test_a_qualtrics_timing_question_beside_the_ranks_is_not_an_item():
    names = ("StartDate,EndDate,Status,Progress,Finished,RecordedDate,ResponseId,"
             "DistributionChannel,Q2_First Click,Q2_Last Click,Q2_Page Submit,Q2_Click Count,"
             "Q1_1,Q1_2,Q1_3")
    labels = ("Start Date,End Date,Response Type,Progress,Finished,Recorded Date,Response ID,"
              "Distribution Channel,Timing - First Click,Timing - Last Click,"
              "Timing - Page Submit,Timing - Click Count,Rank - Apple,Rank - Banana,"
              "Rank - Cherry")
    rows = ["2024-03-01 10:00:00,2024-03-01 10:03:00,IP Address,100,True,"
            f"2024-03-01 10:03:01,R_{i},anonymous,1.2,3.4,5.6,{clicks},{ranks}"
            for i, (clicks, ranks) in enumerate([(2, "1,2,3"), (3, "2,1,3"), (1, "1,3,2")])]
    data = "\n".join([names, labels, *rows]).encode() + b"\n"
    assert_three_orders(data)


@pytest.mark.parametrize("data", [
    b"Participant,Screen name,Received at,Via,Apple,Banana,Cherry\n"
    b"ana@x.org,Ana,2024-03-01 10:00:00,Web,1,2,3\nben@x.org,Ben,2024-03-01 10:01:00,SMS,2,1,3\n"
    b"cy@x.org,Cy,2024-03-01 10:02:00,Web,1,3,2\n",
    b"Apple,Banana,Cherry,Entry_Number,Entry_Status,Entry_DateSubmitted\n"
    b"1,2,3,1,Submitted,2024-03-01\n2,1,3,2,Submitted,2024-03-01\n"
    b"1,3,2,3,Incomplete,2024-03-02\n"])
def test_poll_and_form_tools_own_fields_are_not_items(data):
    assert_three_orders(data)


def test_limesurvey_titles_of_code_and_text_are_judged_by_their_code():
    data = (b"id. Response ID,submitdate. Date submitted,lastpage. Last page,"
            b"startlanguage. Start language,Q1[1]. Rank the fruit [Ranking 1],"
            b"Q1[2]. Rank the fruit [Ranking 2],Q1[3]. Rank the fruit [Ranking 3]\n"
            b"1,2024-03-01 10:00:00,1,en,Apple,Banana,Cherry\n"
            b"2,2024-03-01 10:05:00,1,en,Banana,Apple,Cherry\n"
            b"3,2024-03-01 10:09:00,1,en,Apple,Cherry,Banana\n")
    assert_three_orders(data)


def test_numbered_lines_joined_by_html_line_breaks_are_one_ranking():
    data = (b"Submission Date,Full Name,Rank the fruit,Submission ID\n"
            b'"Mar 1, 2024",Ana,1: Apple<br>2: Banana<br>3: Cherry,5800000000000\n'
            b'"Mar 1, 2024",Ben,1: Banana<br />2: Apple<br />3: Cherry,5800000000001\n'
            b'"Mar 2, 2024",Cy,1: Apple<BR>2: Cherry<BR>3: Banana,5800000000002\n')
    assert_three_orders(data)


@pytest.mark.parametrize("titles", [["Voted off 1st", "Voted off 2nd", "Voted off 3rd"],
                                    ["Points 1", "Points 2", "Points 3"],
                                    ["Option 1", "Option 3", "Option 2"]])
def test_numbered_titles_that_name_no_place_keep_the_columns_order(titles):
    rows = "".join(f"S{i},{','.join(order)}\n" for i, order in enumerate(THREE_ORDERS))
    assert_three_orders((",".join(["Show", *titles]) + "\n" + rows).encode())


def test_a_grid_of_places_named_in_words_holding_items_is_read():
    titles = [f"Rank the fruits [{place}]" for place in ("Gold", "Silver", "Bronze")]
    rows = "".join(f"2024/03/01 10:0{i}:00,{','.join(order)}\n"
                   for i, order in enumerate(THREE_ORDERS))
    assert_three_orders((",".join(["Timestamp", *titles]) + "\n" + rows).encode())


def test_an_item_named_with_an_initial_is_an_item_not_a_code():
    data = (b"Respondent,N. Jokic,J. Embiid,G. Antetokounmpo,L. Doncic\n"
            b"ann,1,2,3,4\nbob,2,1,4,3\ncat,1,3,2,4\n")
    prefs = read_preferences(data)
    assert prefs.n_items == 4 and prefs.to_lists(names=True)[0][0] == "N. Jokic"


def test_days_named_by_month_are_items_to_choose():
    data = (b"Voter,Pick A,Pick B,Pick C\nann,4 March 2024,11 March 2024,18 March 2024\n"
            b"bob,11 March 2024,4 March 2024,18 March 2024\n"
            b"cy,4 March 2024,18 March 2024,11 March 2024\n")
    assert read_preferences(data).to_lists(names=True)[0] == [
        "4 March 2024", "11 March 2024", "18 March 2024"]


# --------------------------------------------------------- peer assessment and gradebooks
RUBRIC = (b"Reviewer,Author,Q1 (out of 10),Q2 (out of 10),Q3 (out of 10),Total\n"
          b"Ann Lee,Cara Singh,7,7,8,22\nAnn Lee,Ben Ortiz,8,8,9,25\n"
          b"Ann Lee,Dev Patel,5,6,6,17\nBen Ortiz,Ann Lee,9,9,9,27\n"
          b"Ben Ortiz,Cara Singh,6,7,7,20\nBen Ortiz,Dev Patel,6,5,6,17\n"
          b"Cara Singh,Ann Lee,9,8,9,26\nCara Singh,Ben Ortiz,7,8,8,23\n"
          b"Cara Singh,Dev Patel,4,5,5,14\n")


def test_a_rubrics_total_orders_each_reviewers_authors():
    result = read_file(RUBRIC)
    prefs = result.preferences
    assert prefs.n_rankers == 3 and prefs.to_lists(names=True)[0] == [
        "Ben Ortiz", "Cara Singh", "Dev Patel"]
    assert "Q1 (out of 10)" in " ".join(result.report.notes)


def test_names_of_two_words_are_not_read_as_rankings_of_the_words():
    # criteria without a total: refused, never 'Cara > Singh' rankings of name words
    data = (b"Reviewer,Essay,Content (40),Style (30),Mechanics (30)\n"
            b"Ann,Broken Clocks,32,24,24\nAnn,Paper Moons,20,16,18\nBen,Broken Clocks,30,22,25\n"
            b"Ben,Silent Sea,38,28,27\nCy,Paper Moons,22,18,17\nCy,Silent Sea,36,27,28\n")
    with pytest.raises(PreferenceFormatError):
        read_preferences(data)
    choices = (b"Choice,Group,Surname,First name,Email address\n"
               b"Field trip,,Lee,Ann,ann@x.org\nMovie day,,Ortiz,Ben,ben@x.org\n"
               b"Field trip,,Singh,Cara,cara@x.org\nPizza party,,Patel,Dev,dev@x.org\n")
    with pytest.raises(PreferenceFormatError):
        read_preferences(choices)


def test_who_rated_names_the_ranker_of_a_peer_assessment():
    data = (b"Student,Rated by,Score\nBen Ortiz,Ann Lee,4\nCara Singh,Ann Lee,3\n"
            b"Ann Lee,Ben Ortiz,5\nCara Singh,Ben Ortiz,2\nAnn Lee,Cara Singh,5\n"
            b"Ben Ortiz,Cara Singh,4\n")
    result = read_file(data)
    assert result.report.ranker_column == "Rated by"
    assert result.preferences.to_lists(names=True)[0] == ["Ben Ortiz", "Cara Singh"]


def test_anonymous_respondents_are_each_their_own_ranker():
    data = (b"Poll,Participant,1st choice,2nd choice,3rd choice\n"
            b"Reward,Student 0,Field trip,Movie day,Pizza party\n"
            b"Reward,Anonymous,Field trip,Pizza party,Movie day\n"
            b"Reward,Anonymous,Movie day,Field trip,Pizza party\n"
            b"Reward,Student 3,Field trip,Movie day,Pizza party\n")
    result = read_file(data)
    assert result.preferences.n_rankers == 4
    assert any("'Anonymous'" in note for note in result.report.notes)


def test_a_total_titled_as_strokes_stays_lower_better_and_a_bare_total_needs_marked_criteria():
    golf = (b"Marker,Player,Front 9,Back 9,Total (strokes)\nAnn,Bob,38,40,78\nAnn,Cal,42,44,86\n"
            b"Ann,Dan,36,37,73\nEve,Bob,39,41,80\nEve,Cal,40,43,83\nEve,Dan,37,36,73\n")
    assert read_preferences(golf).to_lists(names=True)[0] == ["Dan", "Bob", "Cal"]
    bare = golf.replace(b"Total (strokes)", b"Total")
    with pytest.raises(PreferenceFormatError):
        read_preferences(bare)


def test_ballots_in_one_cell_that_never_reverse_a_pair_are_still_rankings():
    data = b'Ballot,Count\n"A,B,C",3\n"B,C,D",2\n"A,C,D",1\n'
    assert read_preferences(data).to_lists(names=True)[0] == ["A", "B", "C"]
    spaced = b"Name,Preferences\nAnn,Red Green Blue\nBen,Green Blue\nCal,Red Blue\n"
    assert read_preferences(spaced).to_lists(names=True)[0] == ["Red", "Green", "Blue"]


def test_rank_columns_sorted_as_text_are_read_by_their_numbers():
    titles = ["Rank 1", "Rank 10", "Rank 11", *(f"Rank {i}" for i in range(2, 10))]
    order = [f"Item{c}" for c in "ABCDEFGHIJK"]
    by_title = {f"Rank {i + 1}": item for i, item in enumerate(order)}
    rows = [",".join(["v1", *(by_title[t] for t in titles)]),
            ",".join(["v2", *(by_title[t] for t in titles)])]
    data = (",".join(["Voter", *titles]) + "\n" + "\n".join(rows) + "\n").encode()
    assert read_preferences(data).to_lists(names=True)[0] == order


def test_a_judge_called_guest_keeps_their_name():
    data = (b"judge,winner,loser\nGuest,Soup,Stew\nGuest,Stew,Pie\nAnn,Soup,Pie\n"
            b"Ann,Pie,Cake\nGuest,Pie,Cake\n")
    assert read_preferences(data).n_rankers == 2


def test_a_workbooks_overview_sheet_of_labels_is_refused_naming_the_other_sheets():
    import io

    import openpyxl
    book = openpyxl.Workbook()
    overview = book.active
    overview.title = "Overview"
    for row in [["Kahoot! Report: Photosynthesis"], [], ["Played on", "12 Mar 2024"],
                ["Hosted by", "mrs_teacher"], ["Played with", "8 players"]]:
        overview.append(row)
    raw = book.create_sheet("RawReportData Data")
    raw.append(["Question Number", "Answer 1", "Answer 2", "Answer 3", "Answer 4", "Player",
                "Answer"])
    for player in ["cat", "dog", "owl"]:
        raw.append([1, "Sunlight", "Sugar", "Salt", "Sand", player, "Sunlight"])
    out = io.BytesIO()
    book.save(out)
    error = refusal(out.getvalue())
    assert "No item is in two" in error.reason and "'RawReportData Data'" in error.fix


def test_numbered_answer_options_are_not_the_two_sides_of_a_comparison():
    from coarsenrank_core.io.pairwise import pairwise_columns
    assert pairwise_columns(["Answer 1", "Answer 2", "Answer 3", "Answer 4", "Answer"]) is None
    assert pairwise_columns(["model_a", "model_b", "winner"]) is not None


def test_a_debate_tab_names_the_winning_side_of_each_round():
    data = (b"Round,Room,Judge,Aff Team,Neg Team,Decision,Aff Speaker Points,Neg Speaker Points\n"
            b"Round 1,Room 100,Ms Brown,Lincoln HS,Kennedy Prep,Aff,29.0,28.0\n"
            b"Round 1,Room 101,Mr Chen,Jefferson HS,Hamilton HS,Neg,26.5,27.0\n"
            b"Round 2,Room 100,Mr Chen,Hamilton HS,Lincoln HS,Neg,27.0,29.0\n")
    result = read_file(data)
    assert pairs(result.preferences) == [("Lincoln HS", "Kennedy Prep"),
                                         ("Hamilton HS", "Jefferson HS"),
                                         ("Lincoln HS", "Hamilton HS")]
    assert result.report.ranker_column == "Judge"
