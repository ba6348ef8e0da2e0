"""Every command a read's note or refusal gives reads the file it was given for."""

from __future__ import annotations

import shlex

import pytest

from coarsenrank_core import PreferenceFormatError
from coarsenrank_core.cli import main
from coarsenrank_core.io import read_file

# three raters' (or events') numbers for three items
MARKS = [("r1", "s1", 3), ("r1", "s2", 9), ("r1", "s3", 6), ("r2", "s1", 7), ("r2", "s3", 0),
         ("r3", "s2", 2), ("r3", "s3", 10), ("r3", "s1", 5.5)]
CLOCK = [("H1", "Ann", "1:02.35"), ("H1", "Bob", "1:01.90"), ("H1", "Eve", "1:01.90"),
         ("H2", "Cy", "59.80"), ("H2", "Dee", "1:00.10"), ("H2", "Ann", "1:03")]
PAR = [("1", "Ann", "-2"), ("1", "Bob", "E"), ("1", "Cy", "+3"), ("2", "Ann", "+1"),
       ("2", "Bob", "-1"), ("2", "Cy", "Even")]


def _csv(header: str, rows) -> str:
    return header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"


CASES = {
    # rater titles the long reader does not know: the command names them (--ranker)
    "scorer": _csv("Scorer,Player,Strokes", MARKS),
    "referee": _csv("Referee Name,athlete,finish_time", MARKS),
    "marker": _csv("Marker,Candidate,Mark", MARKS),
    "grader last": _csv("points,Student,Grader", [(g, s, r) for r, s, g in MARKS]),
    "exam marker": _csv("Exam Name,Marker,Candidate,Mark (out of 20)",
                        [("A1", *r) for r in MARKS] + [("A2", "r1", "s1", 1),
                                                       ("A2", "r1", "s2", 5)]),
    # grades with 0 and halves, read the other way up
    "grades": _csv("reviewer,essay,grade", MARKS),
    "ratings": _csv("rater,item,rating", MARKS),
    # results tables: clock times, even par, decimals, an untitled direction
    "clock": _csv("Heat,Swimmer,Time", CLOCK),
    "par": _csv("Round,Player,To Par", PAR),
    "decimals": _csv("Event,Competitor,Score", MARKS),
    "no direction": _csv("heat,athlete,result", MARKS),
    "club": _csv("Event,Club,Points", MARKS),
    # what is graded beside what splits the rankings: the command names the split
    "dives": _csv("Judge,Diver,Dive,Score",
                  [(j, d, k, 7 + (ord(d[0]) + 3 * k + ord(j[1])) % 5 / 2) for j in ("J1", "J2")
                   for k in (1, 2) for d in ("Daley", "Chen", "Xie")]),
    "criteria": _csv("Assignment,Reviewer,Author,Document,Criterion,Rating",
                     [("Essay 1", r, a, f"{a}.docx", c, 3 + (len(r + a + c) % 5))
                      for r in ("alice", "bob", "carol") for a in ("alice", "bob", "carol")
                      if a != r for c in ("Thesis", "Evidence")]),
    "two readable columns": _csv("reviewer,team,assignment,score",
                                 [(r, f"team{k % 2}", f"hw{k % 3}", g)
                                  for k, (r, _, g) in enumerate(MARKS)]),
}


def _commands(text: str) -> list[list[str]]:
    """The commands in ``text``, each after "in the command line: " up to its unquoted ')'."""
    out, mark = [], "in the command line: "
    for part in text.split(mark)[1:]:
        quote, end = None, len(part)
        for k, c in enumerate(part):
            if quote:
                quote = None if c == quote else quote
            elif c in "'\"":
                quote = c
            elif c == ")":
                end = k
                break
        out.append(shlex.split(part[:end]))
    return out


@pytest.mark.parametrize("name", CASES)
def test_every_command_a_note_or_refusal_gives_reads_the_file(tmp_path, capsys, name):
    path = tmp_path / "answers.csv"
    path.write_text(CASES[name])
    try:
        text = " ".join(read_file(path).report.notes)
    except PreferenceFormatError as error:
        text = str(error)
    commands = _commands(text)
    assert commands, text
    for command in commands:
        assert command[:3] == ["coarsenrank", "rank", path.name]
        code = main(["rank", str(path), *command[3:], "--method", "borda"])
        assert code == 0, (command, capsys.readouterr().err)
