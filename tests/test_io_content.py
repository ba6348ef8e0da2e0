"""Column rules by title and content: metadata inserted anywhere never changes a read."""

import csv
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coarsenrank_core import PreferenceFormatError, read_file
from coarsenrank_core.io.content import (
    counter_title,
    is_ballot_mark,
    metadata_content,
    metadata_title,
    person_title,
    rank_title,
    rank_title_blocks,
)

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[
    HealthCheck.too_slow, HealthCheck.data_too_large])

FIRST = ["Alice", "Bruno", "Chen", "Dana", "Emeka", "Fatima", "Göran", "Hana", "Ivan", "Júlia",
         "Kofi", "Lena", "Mateo", "Nadia", "Oskar", "Priya"]
LAST = ["Smith", "Costa", "Wei", "Levi", "Okafor", "Haddad", "Berg", "Sato", "Petrov", "Silva"]
AGENTS = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{v}.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
    "Version/{v}.1 Safari/605.1.15",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like "
    "Gecko) Mobile/15E148",
    "Mozilla/5.0 (X11; Linux x86_64; rv:{v}.0) Gecko/20100101 Firefox/{v}.0",
]
COMMENTS = ["The crust was too thin; otherwise a great evening, thanks.",
            "More vegan options, please. The service was slow.",
            "Loved it, would come again with friends next week!",
            "", "Why was there no gluten-free base? Please add one.",
            "Good value for money, but the music was far too loud."]
KINDS = {
    "name": ["Your name", "What is your name?", "Full name", "Name", "Nom et prénom",
             "Ihr Name", "Nombre completo", "お名前"],
    "email": ["Email Address", "E-mail", "Your e-mail address", "Correo electrónico"],
    "id": ["Response ID", "Submission ID", "Record ID", "uuid", "Entry number"],
    "agent": ["User Agent", "Browser", "HTTP User-Agent"],
    "time": ["Timestamp", "Submitted at", "Start time", "Date Submitted", "Completion time"],
    "comment": ["Any comments?", "Comments", "Feedback", "Anything else you would like to say?"],
}


@st.composite
def metadata(draw, n_rows: int):
    """A metadata column: its title and one cell per row."""
    kind = draw(st.sampled_from(sorted(KINDS)))
    title = draw(st.sampled_from(KINDS[kind]))
    people = draw(st.permutations([(f, s) for f in FIRST for s in LAST]))[:n_rows]
    if kind == "name":
        cells = [f"{f} {s}" for f, s in people]
    elif kind == "email":
        cells = [f"{f.lower()}.{s.lower()}{k}@example.org" for k, (f, s) in enumerate(people)]
    elif kind == "id":
        base = draw(st.integers(10_000, 900_000))
        cells = [draw(st.sampled_from([f"R_{base + 7919 * k:x}", str(base + 13 * k)]))
                 for k in range(n_rows)]
    elif kind == "agent":
        cells = [draw(st.sampled_from(AGENTS)).format(v=draw(st.integers(90, 130)))
                 for _ in range(n_rows)]
    elif kind == "time":
        cells = [f"2024-05-{draw(st.integers(1, 28)):02d} {draw(st.integers(0, 23)):02d}:"
                 f"{draw(st.integers(0, 59)):02d}:{draw(st.integers(0, 59)):02d}"
                 for _ in range(n_rows)]
    else:
        cells = [draw(st.sampled_from(COMMENTS)) for _ in range(n_rows)]
    return title, cells


NAMES = st.lists(st.text("abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8).map(
    lambda s: "it " + s), min_size=2, max_size=5, unique=True)


@st.composite
def rankings(draw):
    """Strict rankings (best first) of two or more named items each."""
    names = draw(NAMES)
    out = []
    for _ in range(draw(st.integers(1, 7))):
        out.append(draw(st.permutations(names))[:draw(st.integers(2, len(names)))])
    return names, out


def _rows_wide(names, lists, voter):
    width = max(len(r) for r in lists)
    head = (["voter"] if voter else []) + [f"rank {k + 1}" for k in range(width)]
    rows = [([f"r{n}"] if voter else []) + list(r) + [""] * (width - len(r))
            for n, r in enumerate(lists)]
    return head, rows, None


def _rows_ranks(names, lists, voter):
    head = (["respondent"] if voter else []) + list(names)
    rows = []
    for n, r in enumerate(lists):
        rank = {item: k + 1 for k, item in enumerate(r)}
        rows.append(([f"r{n}"] if voter else []) + [str(rank.get(i, "")) for i in names])
    return head, rows, None


def _rows_cell(names, lists, voter):
    head = (["voter"] if voter else []) + ["ranking"]
    return head, [([f"r{n}"] if voter else []) + [" > ".join(r)]
                  for n, r in enumerate(lists)], None


def _rows_long(names, lists, voter):
    head = ["ranker", "item", "rank"]
    rows, owner = [], []
    for n, r in enumerate(lists):
        for k, item in enumerate(r):
            rows.append([f"r{n}", item, str(k + 1)])
            owner.append(n)
    return head, rows, owner


def _rows_pairwise(names, lists, voter):
    head = ["left", "right", "winner"]
    rows, owner = [], []
    for n, r in enumerate(lists):
        a, b = r[0], r[1]
        rows.append([b, a, a] if n % 2 else [a, b, a])
        owner.append(n)
    return head, rows, owner


LAYOUTS = {"wide": _rows_wide, "ranks": _rows_ranks, "cell": _rows_cell, "long": _rows_long,
           "pairwise": _rows_pairwise}


def to_csv(head, rows) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(head)
    writer.writerows(rows)
    return buffer.getvalue().encode()


def insert(head, rows, owner, columns, positions):
    """Insert metadata columns at the given positions (each cell per ranking, via owner)."""
    head, rows = list(head), [list(r) for r in rows]
    for (title, cells), at in zip(columns, positions):
        at = at % (len(head) + 1)
        head.insert(at, title)
        for i, row in enumerate(rows):
            row.insert(at, cells[owner[i] if owner is not None else i])
    return head, rows


def read_or_refuse(data: bytes):
    try:
        return read_file(data)
    except PreferenceFormatError as error:
        assert error.reason and not error.reason.startswith("Unexpected problem"), error
        return None


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@PROPERTY
@given(data=rankings(), voter=st.booleans(), extra=st.data())
def test_property_metadata_columns_never_change_a_read(layout, data, voter, extra):
    names, lists = data
    head, rows, owner = LAYOUTS[layout](names, lists, voter)
    plain = read_file(to_csv(head, rows))
    n = len(lists)
    columns = extra.draw(st.lists(metadata(n), min_size=1, max_size=4))
    positions = extra.draw(st.lists(st.integers(0, 30), min_size=len(columns),
                                    max_size=len(columns)))
    result = read_or_refuse(to_csv(*insert(head, rows, owner, columns, positions)))
    if result is None:
        return  # refused with a reason: allowed, never a different read
    before, after = plain.preferences, result.preferences
    assert after.to_lists(names=True) == before.to_lists(names=True), result.report.lines()
    assert after.weights.tolist() == before.weights.tolist()
    if before.has_rankers:
        assert after.ranker_names == before.ranker_names
    elif after.has_rankers:  # a who-answered column became the ranker: one of the inserted
        assert result.report.ranker_column in {title for title, _ in columns}


def test_the_rules_read_every_layout_unchanged_on_a_known_case():
    names, lists = ["it a", "it b", "it c"], [["it a", "it b", "it c"], ["it b", "it a"],
                                               ["it c", "it a", "it b"], ["it a", "it c"],
                                               ["it b", "it c", "it a"]]
    columns = [("What is your name?", [f"{f} Smith" for f in FIRST[:5]]),
               ("User Agent", [AGENTS[k % 4].format(v=100 + k) for k in range(5)]),
               ("Any comments?", COMMENTS[:5])]
    for layout, write in LAYOUTS.items():
        head, rows, owner = write(names, lists, True)
        plain = read_file(to_csv(head, rows)).preferences
        mixed = read_file(to_csv(*insert(head, rows, owner, columns, [0, 2, 30])))
        assert mixed.preferences.to_lists(names=True) == plain.to_lists(names=True), layout
        assert mixed.preferences.ranker_names == plain.ranker_names, layout


# ---------------------------------------------------------------------------- the rules
@pytest.mark.parametrize(("title", "kind"), [
    ("What is your name?", "name"), ("Your name", "name"), ("Ihr Name", "name"),
    ("Nom et prénom", "name"), ("お名前", "name"), ("E-mail address", "e-mail"),
    ("Correo electrónico", "e-mail"), ("winner_name", None), ("Team name", None),
    ("Item name", None), ("Rank the pizzas", None)])
def test_person_titles_in_several_languages(title, kind):
    assert person_title(title) == kind


def test_metadata_by_title_and_by_content():
    assert metadata_title("User Agent") and metadata_title("Referer") and \
        metadata_title("Latitude") and not metadata_title("Margherita")
    assert counter_title("trials.thisN") and counter_title("key_resp.rt") and \
        not counter_title("item_left")
    assert metadata_content([a.format(v=99) for a in AGENTS]) == "browser user agents"
    assert metadata_content(["https://example.org/a?x=1", "http://example.org/b"]) == \
        "web addresses"
    assert metadata_content(['{"a": 1}', '{"b": [1, 2]}']) == "JSON data"
    assert metadata_content(COMMENTS) == "free-text comments"
    rankings_in_cells = ["Margherita;Funghi;Hawaii", "Funghi;Margherita", "Hawaii;Funghi",
                         "Margherita;Hawaii;Funghi"]
    assert metadata_content(rankings_in_cells) is None
    assert metadata_content(["Alice Smith", "Bruno Costa"]) is None


def test_rank_titles_and_ballot_marks():
    assert rank_title("Mayor 1st Choice") == ("mayor", 1)
    assert rank_title("Rank the pizzas (3)") == ("rank the pizzas", 3)
    assert rank_title("Margherita") is None
    assert rank_title_blocks(["Precinct", "Mayor 1st Choice", "Mayor 2nd Choice"]) == [(1, 2)]
    assert rank_title_blocks(["Score 2023", "Score 2024"]) == []
    assert is_ballot_mark(["undervote", "OVERVOTE", "Write-in", "Margherita", ""]).tolist() \
        == [True, True, True, False, False]


def test_the_packages_own_export_keeps_an_item_named_like_a_ballot_mark():
    from coarsenrank_core import Preferences

    prefs = Preferences.from_lists([[0, 1], [1, 0]], item_names=["Blank", "Skipped"])
    assert read_file(prefs.to_csv().encode()).preferences.to_lists(names=True) == [
        ["Blank", "Skipped"], ["Skipped", "Blank"]]
    ballots = b"ranker,item,rank\nu,a,1\nu,undervote,2\nu,b,3\nv,b,1\nv,a,2\n"
    assert read_file(ballots).preferences.to_lists(names=True) == [["a", "b"], ["b", "a"]]


# ---------------------------------------------------------------------------- warnings, messages
@pytest.mark.parametrize(("text", "words"), [
    (b"a,b,c,d,e\nx,y,z,w,v\n", "more items (10) than rankings (2)"),
    (b"ranker,item,rank\nu,101,1\nu,102,2\nv,103,1\nv,101,2\n", "look like numbers"),
    (b"voter,1st,2nd\nann,ann,bob\nbob,bob,ann\n", "the rankers' own names"),
    (b"voter,1st,2nd,3rd\n" + b"".join(b"v%d,a,b,c\n" % k for k in range(5)) + b"w,a,zz,b\n",
     "'zz' appears in only one ranking"),
])
def test_an_unusual_read_gets_a_one_line_warning(text, words):
    report = read_file(text).report
    assert report.warning and words in report.warning and "\n" not in report.warning
    assert report.lines()[1] == report.warning


def test_an_ordinary_read_gets_no_warning():
    text = b"voter,1st,2nd,3rd\nann,tea,coffee,juice\nbob,coffee,tea,juice\ncy,tea,juice,\n"
    assert read_file(text).report.warning is None


def test_a_count_column_is_suggested_only_for_a_title_that_means_count():
    def fix(text: bytes) -> str:
        return pytest.raises(PreferenceFormatError, read_file, text).value.fix

    assert "count column" in fix(b"voter,copies,1st,2nd\nann,3,tea,coffee\nbob,1,coffee,tea\n")
    assert "count column" not in fix(b"voter,MaxAssignments,item a,item b\nann,3,tea,coffee\n"
                                     b"bob,3,coffee,tea\n")
    assert "count column" not in fix(b"voter,copies,1st,2nd\nann,3,tea,coffee\n"
                                     b"bob,3,coffee,tea\n")


# ---------------------------------------------------------------------------- one property a rule
MATCHES = st.lists(st.tuples(st.sampled_from(["Ann Lee", "Bo Kim", "Cy Diaz", "Dee Ray"]),
                             st.sampled_from(["Ann Lee", "Bo Kim", "Cy Diaz", "Dee Ray"]),
                             st.sampled_from(["a", "b", "draw"])),
                   min_size=1, max_size=10).map(lambda m: [x for x in m if x[0] != x[1]]).filter(
    bool)
IDS = {"Ann Lee": "104925", "Bo Kim": "206173", "Cy Diaz": "126094", "Dee Ray": "207989"}


def comparisons(matches):
    """What every coding of the matches must read: winner first, or a tie."""
    return [[frozenset({a, b})] if r == "draw" else ([a, b] if r == "a" else [b, a])
            for a, b, r in matches]


def match_files(matches, order):
    """The same matches (first name plays at home / White) in each layout that names them."""
    decided = [m for m in matches]
    files = {}
    letter = {"a": "H", "b": "A", "draw": "D"}
    goals = {"a": (2, 1), "b": (0, 3), "draw": (1, 1)}
    files["football.csv"] = "Div,Date,HomeTeam,AwayTeam,FTHG,FTAG,FTR,HTHG,HTAG,HTR,B365H\n" + \
        "".join(f"E0,01/08/2024,{a},{b},{goals[r][0]},{goals[r][1]},{letter[r]},0,0,D,1.9\n"
                for a, b, r in decided)
    files["football_new.csv"] = "Country,League,Season,Date,Home,Away,HG,AG,Res,PSCH\n" + \
        "".join(f"England,Premier League,2024,01/08/2024,{a},{b},{goals[r][0]},{goals[r][1]},"
                f"{letter[r]},2.1\n" for a, b, r in decided)
    word = {"a": "white", "b": "black", "draw": "draw"}
    columns = [("id", lambda k, a, b, r: f"g{k}x"), ("white_id", lambda k, a, b, r: IDS[a]),
               ("black_id", lambda k, a, b, r: IDS[b]), ("white", lambda k, a, b, r: a),
               ("black", lambda k, a, b, r: b), ("winner", lambda k, a, b, r: word[r]),
               ("white_rating", lambda k, a, b, r: str(1500 + k))]
    columns = [columns[i] for i in order]
    files["games.csv"] = ",".join(t for t, _ in columns) + "\n" + "".join(
        ",".join(f(k, a, b, r) for _, f in columns) + "\n" for k, (a, b, r) in enumerate(decided))
    files["draws.csv"] = "item_a,item_b,winner,draw\n" + "".join(
        f"{a},{b},{'' if r == 'draw' else (a if r == 'a' else b)},{int(r == 'draw')}\n"
        for a, b, r in decided)
    result = {"a": "1-0", "b": "0-1", "draw": "1/2-1/2"}
    files["games.pgn"] = "".join(
        f'[Event "Cup"]\n[Round "{k}"]\n[White "{a}"]\n[Black "{b}"]\n[Result "{result[r]}"]\n'
        f"\n1. e4 e5 {result[r]}\n\n" for k, (a, b, r) in enumerate(decided))
    return files


@pytest.mark.slow
@PROPERTY
@given(matches=MATCHES, order=st.permutations(range(7)))
def test_property_sports_and_game_logs_read_the_same_matches(matches, order):
    want = comparisons(matches)
    for name, text in match_files(matches, order).items():
        buffer = io.BytesIO(text.encode())
        buffer.name = name
        result = read_file(buffer)
        assert result.preferences.to_lists(names=True) == want, name
        assert not result.preferences.has_rankers, name


SIBLINGS = [("winner_id", "winner_name", "loser_id", "loser_name"),
            ("Winner ID", "Winner Text", "Loser ID", "Loser Text"),
            ("winner_code", "winner_label", "loser_code", "loser_label")]


@PROPERTY
@given(matches=MATCHES, style=st.sampled_from(SIBLINGS), order=st.permutations(range(5)))
def test_property_names_beat_their_id_siblings_in_any_order(matches, style, order):
    decided = [(a, b) if r == "a" else (b, a) for a, b, r in matches if r != "draw"]
    if not decided:
        return
    wid, wname, lid, lname = style
    columns = [(wid, lambda w, lo: IDS[w]), (wname, lambda w, lo: w), (lid, lambda w, lo: IDS[lo]),
               (lname, lambda w, lo: lo), ("score", lambda w, lo: "6-3 6-4")]
    columns = [columns[i] for i in order]
    text = ",".join(t for t, _ in columns) + "\n" + "".join(
        ",".join(f(w, lo) for _, f in columns) + "\n" for w, lo in decided)
    prefs = read_file(text.encode()).preferences
    assert prefs.to_lists(names=True) == [[w, lo] for w, lo in decided]


TITLE_ROWS = st.lists(st.sampled_from(["Official results", "", "Exported 2024-05-01 10:00",
                                       "City of Example - General Election"]),
                      min_size=1, max_size=3).filter(lambda rows: any(rows))


def workbook(rows) -> bytes:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    for row in rows:
        book.active.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("layout", ["wide", "ranks", "long", "pairwise"])
@PROPERTY
@given(data=rankings(), titles=TITLE_ROWS, as_workbook=st.booleans())
def test_property_title_rows_above_the_header_never_change_a_read(layout, data, titles,
                                                                  as_workbook):
    names, lists = data
    head, rows, _ = LAYOUTS[layout](names, lists, True)
    plain = read_file(to_csv(head, rows)).preferences
    width = len(head)
    above = [[t] + [""] * (width - 1) for t in titles]
    if as_workbook:
        data_bytes = workbook(above + [head] + rows)
    else:
        data_bytes = to_csv(above[0], above[1:] + [head] + rows)
    result = read_file(data_bytes)
    assert result.preferences.to_lists(names=True) == plain.to_lists(names=True)
    assert result.preferences.ranker_names == plain.ranker_names


@PROPERTY
@given(data=rankings(), marks=st.lists(st.tuples(st.integers(0, 6), st.sampled_from(
    ["undervote", "overvote", "Write-in", "skipped", "UNDERVOTE"])), max_size=6))
def test_property_ballot_marks_are_blanks(data, marks):
    names, lists = data
    width = max(len(r) for r in lists) + 2
    cells = [list(r) + [""] * (width - len(r)) for r in lists]
    for row, mark in marks:
        cells[row % len(cells)][-1 - row % 2] = mark  # in the blank tail of a ballot
    head = ["Ballot ID", "Precinct"] + [f"Mayor {k + 1}th Choice" for k in range(width)]
    rows = [[str(5000 + 7 * i), f"P{i % 2}"] + c for i, c in enumerate(cells)]
    prefs = read_file(to_csv(head, rows)).preferences
    assert prefs.to_lists(names=True) == lists
    assert not set(prefs.item_names) - set(names)


@PROPERTY
@given(data=rankings(), counts=st.lists(st.integers(1, 9), min_size=7, max_size=7),
       notation=st.sampled_from(["* {n}", "^{n}", " *{n}"]), ranker=st.booleans())
def test_property_repeat_counts_in_cells_are_counts(data, counts, notation, ranker):
    names, lists = data
    head = (["voter"] if ranker else []) + ["ballot"]
    rows = [([f"v{i}"] if ranker else []) + [" > ".join(r) + " " + notation.format(n=counts[i])]
            for i, r in enumerate(lists)]
    prefs = read_file(to_csv(head, rows)).preferences
    assert prefs.to_lists(names=True) == lists
    assert prefs.weights.tolist() == counts[:len(lists)]
    votes = "#/Candidates: " + " ; ".join(names) + "\n#/Implicit Ranking: false\n" + "".join(
        " > ".join(r) + f" * {counts[i]}\n" for i, r in enumerate(lists))
    buffer = io.BytesIO(votes.encode())
    buffer.name = "votes.cvotes"
    same = read_file(buffer).preferences
    assert same.to_lists(names=True) == lists and same.weights.tolist() == counts[:len(lists)]


@PROPERTY
@given(data=rankings(), order=st.permutations(range(3)),
       titles=st.sampled_from([("ballot_id", "rank", "choice"), ("voter", "rank", "candidate"),
                               ("ballot", "position", "option")]))
def test_property_long_ballots_read_back(data, order, titles):
    names, lists = data
    columns = [titles[i] for i in order]
    rows = []
    for n, r in enumerate(lists):
        for k, item in enumerate(r):
            value = {titles[0]: str(n + 1), titles[1]: str(k + 1), titles[2]: item}
            rows.append([value[c] for c in columns])
    prefs = read_file(to_csv(columns, rows)).preferences
    assert prefs.to_lists(names=True) == lists


def test_title_rows_of_one_or_two_cells_above_a_wide_header_are_skipped():
    text = (b"Election:,General 2024,,,,\nContest:,Mayor,,,,\n"
            b"Ballot ID,Precinct,Style,Rank 1,Rank 2,Rank 3\n"
            + b"".join(b"%d,P1,S1,A,B,C\n" % (500 + k) for k in range(4))
            + b"600,P2,S1,B,A,undervote\n")
    result = read_file(text)
    assert result.report.header_rows == 3
    assert result.preferences.to_lists(names=True)[-1] == ["B", "A"]
    assert "Ballot ID (a per-row id, not a ranker)" in result.report.skipped_columns
    headerless = read_file(b"a,b\nc,d,e\nx,y,z\nz,x,y\n").preferences
    assert headerless.to_lists(names=True)[0] == ["a", "b"]
