"""Each layout's plain-words description and a small example file (used by help and tests)."""

WIDE_TEXT = (
    "Rows are rankings: one row per ranking, with the item names in order from best (first "
    "column) to worst. Rankings may have different lengths; leave the remaining cells blank. "
    "Items tied at one position go in one cell separated by a vertical bar, e.g. "
    "'margherita|funghi'. A first row of column titles such as '1st,2nd,3rd', 'First choice, "
    "Second choice', 'Choice 1', 'Rank 1' or Google's 'Question [Rank 1]' is optional. A "
    "column titled 'ranker' (or voter, respondent, id, e-mail, name ...) says who gave each "
    "ranking, and a 'count' (or weight, votes, n, frequency) column how many times it was "
    "given. Survey metadata columns (Timestamp, StartDate, IP address ...) are skipped."
)
WIDE = (
    "voter,1st,2nd,3rd,4th\n"
    "alice,margherita,funghi,hawaii,quattro formaggi\n"
    "bob,funghi,margherita|hawaii,,\n"
    "carol,quattro formaggi,margherita,funghi,\n"
    "dave,margherita,hawaii,,\n"
)
RANKS_TEXT = (
    "Item columns holding ranks (Google Forms grids, Qualtrics rank order, SurveyMonkey "
    "ranking, CIVS, the PlackettLuce R package): one row per respondent and one column per "
    "item; each cell holds that item's rank, written 1, 1st, 1st choice, First, Rank 1 or "
    "Choice 1. Blank, '-', 'N/A', 'No opinion' and 0 mean 'not ranked'; equal ranks are ties. "
    "By default 1 is the best. Headers that wrap the item name, such as Google's 'Question "
    "[Item]', Qualtrics' 'Question - Item' (with its three header rows) and SurveyMonkey's "
    "two header rows, are reduced to the item name."
)
RANKS = (
    "Timestamp,Rank the pizzas [margherita],Rank the pizzas [funghi],Rank the pizzas [hawaii]\n"
    "2024/05/01 10:00:00,1st,2nd,3rd\n"
    "2024/05/01 10:05:00,2nd,1st,\n"
    "2024/05/01 10:09:00,1st,2nd,2nd\n"
)
CELL_TEXT = (
    "One ranking per cell: a single column holds each whole ranking as text, best first: "
    "'A;B;C;' as Microsoft Forms writes it, 'A > B > C' (with '=' for ties), or a "
    "space-separated list as XLSForm and Kobo write it. Other columns may name the ranker; "
    "survey metadata columns are skipped."
)
CELL = (
    "ID,Start time,Completion time,Email,Rank the pizzas\n"
    "1,5/1/24 10:00:00,5/1/24 10:01:00,ann@example.org,margherita;funghi;hawaii;\n"
    "2,5/1/24 10:02:00,5/1/24 10:03:00,bob@example.org,funghi;margherita;\n"
    "3,5/1/24 10:04:00,5/1/24 10:05:00,cat@example.org,hawaii;margherita;funghi;\n"
)
LONG_TEXT = (
    "Long rankings table: one row per ranked item, with the columns 'ranker' (or voter, "
    "user, id ...), 'item' and 'rank' (1 = best). Items of one ranker that share a rank are "
    "tied; ranks need not be consecutive. When one ranker gave several rankings, a column "
    "such as 'preference', 'list', 'ballot', 'query', 'task', 'question', 'round', "
    "'session', 'assignment', 'exam', 'quiz', 'homework' or 'problem' tells them apart. "
    "An optional 'weight' or 'count' column must hold the same "
    "value on every row of one ranking. The CSV this app exports is of this kind. A "
    "results table (an event column such as 'heat', 'round' or 'race', a competitor "
    "column such as 'athlete', 'player' or 'team', and a place, time, strokes, score or "
    "points column) is read as one ranking per event."
)
LONG = (
    "ranker,item,rank\n"
    "alice,margherita,1\nalice,funghi,2\nalice,hawaii,3\nalice,quattro formaggi,4\n"
    "bob,funghi,1\nbob,margherita,2\nbob,hawaii,2\n"
    "carol,quattro formaggi,1\ncarol,margherita,2\ncarol,funghi,3\n"
)
PAIRWISE_TEXT = (
    "Pairwise comparisons: one row per comparison of two items, as CSV, Excel, JSON or JSON "
    "lines (arena battles). Either 'winner' and 'loser' columns (or 'chosen' and 'rejected', "
    "'better' and 'worse'; 'chosen_model' beside 'chosen' answers names the item), with an "
    "optional 'tie' or 'draw' flag column, or the two items ('left'/'right', 'model_a'/'model_b', "
    "'white'/'black', 'home'/'away') with the outcome as: a 'winner' naming the item, 'left', "
    "'right', 'model_a', 'model_b', 'white', 'black', 'A', 'B', 'tie' or 'draw'; a 'result' "
    "of 1-0, 0-1 or 1/2-1/2; one 0/1 flag column per outcome ('winner_model_a', "
    "'winner_model_b', 'winner_tie'); or two scores ('home_score', 'away_score'). An "
    "optional 'judge' (or worker, ranker, voter ...) column says who compared, and a "
    "'weight' or 'count' column how many times. Per-row ids (battle or game ids) are skipped."
)
PAIRWISE = (
    "worker,left,right,winner\n"
    "alice,margherita,funghi,margherita\n"
    "alice,funghi,hawaii,left\n"
    "bob,hawaii,quattro formaggi,right\n"
    "bob,margherita,hawaii,tie\n"
    "carol,quattro formaggi,funghi,funghi\n"
)
PREFLIB_TEXT = (
    "PrefLib file (.soc, .soi, .toc or .toi) as published on preflib.org: header lines "
    "starting with '#', such as '# ALTERNATIVE NAME 1: Foo', then one line per distinct "
    "order, 'count: 1,2,{3,4},5', where the numbers are alternatives best first and braces "
    "hold tied alternatives. The older PrefLib layout (number of alternatives, their names, "
    "a summary line, then 'count,1,2,{3,4}' lines) is read as well."
)
PREFLIB = (
    "# FILE NAME: pizza.toi\n"
    "# TITLE: Favourite pizzas (example)\n"
    "# DATA TYPE: toi\n"
    "# NUMBER ALTERNATIVES: 4\n"
    "# NUMBER VOTERS: 6\n"
    "# NUMBER UNIQUE ORDERS: 3\n"
    "# ALTERNATIVE NAME 1: margherita\n"
    "# ALTERNATIVE NAME 2: funghi\n"
    "# ALTERNATIVE NAME 3: hawaii\n"
    "# ALTERNATIVE NAME 4: quattro formaggi\n"
    "3: 1,2,3,4\n"
    "2: 2,{1,3}\n"
    "1: 4,1\n"
)
BLT_TEXT = (
    "BLT ballots (.blt) as OpaVote and OpenSTV write them: a line with the number of "
    "candidates and of seats, an optional line of withdrawn candidates as negative numbers, "
    "one line per ballot 'weight c1 c2=c3 0' (candidates by number, best first, '=' for ties, "
    "a final 0), a line holding 0, then each candidate's name in double quotes and the "
    "election's title."
)
BLT = (
    "4 1\n"
    "3 1 2 3 4 0\n"
    "2 2 1=3 0\n"
    "1 4 1 0\n"
    "0\n"
    '"margherita"\n"funghi"\n"hawaii"\n"quattro formaggi"\n"Favourite pizzas"\n'
)
PGN_TEXT = (
    "Chess games in PGN, as chess programs, Lichess and chess.com export them: each game is a "
    "block of tags such as [White \"...\"], [Black \"...\"] and [Result \"...\"] followed "
    "by its moves. Each game is read as one comparison of White and Black: 1-0 means White "
    "won, 0-1 Black won, 1/2-1/2 a draw (a tie); unfinished games (*) are skipped and "
    "listed. The moves themselves are not read."
)
PGN = (
    '[Event "Club cup"]\n[White "margherita"]\n[Black "funghi"]\n[Result "1-0"]\n\n'
    "1. e4 e5 2. Nf3 Nc6 1-0\n\n"
    '[Event "Club cup"]\n[White "hawaii"]\n[Black "margherita"]\n[Result "1/2-1/2"]\n\n'
    "1. d4 d5 1/2-1/2\n\n"
    '[Event "Club cup"]\n[White "funghi"]\n[Black "hawaii"]\n[Result "0-1"]\n\n'
    "1. c4 e5 0-1\n"
)
CONDORCET_TEXT = (
    "The Condorcet Election Format (.cvotes) of Condorcet PHP and condorcet.vote: '#/' "
    "parameter lines (#/Candidates: A ; B ; C, #/Implicit Ranking, #/Weight Allowed), then "
    "one vote a line, best first, with '>' between ranks and '=' for ties. A trailing '* 3' "
    "says three voters gave that vote and '^2' gives it a weight (when weights are allowed); "
    "'tags ||' before a vote and '#' comments are ignored. With implicit ranking (the "
    "format's default) the candidates a vote leaves out are tied after its last rank."
)
CONDORCET = (
    "#/Candidates: margherita ; funghi ; hawaii\n"
    "#/Implicit Ranking: false\n"
    "margherita > funghi > hawaii * 3\n"
    "funghi > margherita = hawaii * 2\n"
    "hawaii > margherita\n"
)
