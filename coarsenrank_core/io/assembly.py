"""Cell values to Preferences: numbers, weights, rankers, item names, assembly and its errors."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from ..errors import Cancelled, PreferenceFormatError
from ..export import FORMULA_STARTS
from ..preferences import ID_DTYPE, MAX_WEIGHT, MIN_WEIGHT, Preferences
from .columns import NUMBER, plural, quote_list, skipped_note

UNEXPECTED = "Unexpected problem while reading the file"
#: A header may declare more items than its file names or uses (items nobody ranked), but at
#: most ``DECLARED_FACTOR`` × those present plus ``DECLARED_SLACK``: no reader (nor a saved
#: session) allocates per declared item beyond what the data support.
DECLARED_FACTOR, DECLARED_SLACK = 10, 1_000


def declared_within_present(declared: int, present: int) -> bool:
    """Whether ``declared`` items are plausible for the ``present`` ones a file names or uses."""
    return declared <= DECLARED_FACTOR * present + DECLARED_SLACK


# ---------------------------------------------------------------------------- cell values
def parse_numbers(values: np.ndarray) -> np.ndarray:
    """Parse plain decimal numbers; NaN where a cell is not one (each distinct cell once)."""
    codes, uniques = pd.factorize(np.asarray(values, dtype=object).ravel())
    series = pd.Series(np.asarray(uniques, dtype=object), dtype=object)
    ok = series.str.fullmatch(NUMBER).fillna(False).to_numpy(dtype=bool)
    parsed = np.full(len(series), np.nan)
    if ok.any():
        with np.errstate(over="ignore"):
            parsed[ok] = np.asarray(series[ok].tolist(), dtype=float)
    out = parsed[codes] if len(parsed) else np.full(codes.size, np.nan)
    out[codes < 0] = np.nan
    return out.reshape(np.shape(values))


#: A duration on a clock: minutes and seconds (``1:02.35``) or hours, minutes and seconds
#: (``2:05:30``), each part after the first two digits below 60, seconds maybe decimal.
_DURATION = re.compile(r"\s*(?:(?P<h>\d+):(?=\d\d:))?(?P<m>\d+):(?P<s>[0-5]\d(?:\.\d+)?)\s*")


def parse_durations(values: np.ndarray) -> np.ndarray:
    """Parse durations written on a clock into seconds; NaN where a cell is not one.

    ``1:02.35`` is 62.35 s, ``2:05:30`` 7,530 s and ``58s`` 58 s. Parts are read from the
    right (seconds last), so a column mixing ``59.8`` (read elsewhere as a number) with
    ``1:00.1`` keeps its order. With hours the minutes must be two digits below 60
    (``1:75:00`` is no duration).

    Parameters
    ----------
    values : array_like of str

    Returns
    -------
    numpy.ndarray of float
        Seconds, the shape of ``values``.
    """
    codes, uniques = pd.factorize(np.asarray(values, dtype=object).ravel())
    parts = pd.Series(np.asarray(uniques, dtype=object), dtype=object).astype(str) \
        .str.extract(f"^{_DURATION.pattern}$")
    hours = pd.to_numeric(parts["h"]).fillna(0.0).to_numpy(dtype=float)
    minutes = pd.to_numeric(parts["m"]).to_numpy(dtype=float)
    seconds = pd.to_numeric(parts["s"]).to_numpy(dtype=float)
    total = hours * 3600 + minutes * 60 + seconds
    total[parts["h"].notna().to_numpy() & (minutes >= 60)] = np.nan
    if len(total) and np.isnan(total).any():  # under a minute, Strava writes '58s'
        bare = pd.Series(np.asarray(uniques, dtype=object), dtype=object).astype(str) \
            .str.extract(r"^\s*(\d{1,2}(?:\.\d+)?)\s*s\s*$")[0]
        total = np.where(np.isnan(total), pd.to_numeric(bare).to_numpy(dtype=float), total)
    out = total[codes] if len(total) else np.full(codes.size, np.nan)
    out[codes < 0] = np.nan
    return out.reshape(np.shape(values))


def parse_weights(values: np.ndarray, lines: np.ndarray, column: str) -> np.ndarray:
    """Positive finite weights; a blank cell means 1."""
    values = np.asarray(values, dtype=object)
    numbers = parse_numbers(values)
    blank = values == ""
    numbers[blank] = 1.0
    check_weights(numbers, values, lines, column)
    return numbers


def check_weights(numbers: np.ndarray, values: Sequence[Any] | np.ndarray, lines: np.ndarray,
                  column: str | None, what: str = "weight") -> None:
    """Refuse weights that are not numbers from MIN_WEIGHT to MAX_WEIGHT (sums stay finite)."""
    bad = np.flatnonzero(~(np.isfinite(numbers) & (numbers > 0)))
    if bad.size:
        i = int(bad[0])
        fix = ("Write how many times the ranking was given, e.g. 1 or 3 (or leave the cell "
               "blank for 1).")
        if numbers[i] == 0:  # a blank cell would count a row never given once
            fix = (f"A {what} of 0 says the row was never given: delete the rows with 0 "
                   "(a blank cell would count the row once).")
        raise PreferenceFormatError(
            f"The {what} '{values[i]}' is not a positive number.", row=int(lines[i]),
            column=column, fix=fix)
    bad = np.flatnonzero((numbers < MIN_WEIGHT) | (numbers > MAX_WEIGHT))
    if bad.size:
        i = int(bad[0])
        raise PreferenceFormatError(
            f"The {what} '{values[i]}' is outside the accepted range, {MIN_WEIGHT:g} to "
            f"{MAX_WEIGHT:g}.", row=int(lines[i]), column=column,
            fix=f"Write how many times the ranking was given, between {MIN_WEIGHT:g} and "
                f"{MAX_WEIGHT:g}.")


#: Names a form writes for a respondent it does not know: each is a ranker of its own.
ANONYMOUS_NAMES = frozenset({"anonymous", "anon", "anonymous user", "anonymous participant",
                             "(anonymous)", "n/a"})


#: A long number as a spreadsheet shows it once the column is too narrow or saved as
#: shown: six significant digits and a power of ten (``1.14201E+10``).
_ROUNDED_ID = re.compile(r"\s*\d\.\d{0,6}E\+\d{1,3}\s*", re.IGNORECASE)


def _refuse_rounded_ids(values: np.ndarray, lines: np.ndarray, column: str) -> None:
    """Refuse ranker ids written as a spreadsheet rounds long numbers (``1.14201E+10``)
    where two rows share one: the digits that told those people apart were dropped, and
    every answer they share would be read as one person's."""
    text = pd.Series(values, dtype=object).astype(str)
    rounded = text.str.fullmatch(_ROUNDED_ID.pattern, case=False).to_numpy(dtype=bool)
    if not rounded.any() or rounded.sum() * 2 < len(text):
        return
    repeated = text[rounded].duplicated(keep="first").to_numpy(dtype=bool)
    if not repeated.any():
        return
    i = int(np.flatnonzero(rounded)[np.flatnonzero(repeated)[0]])
    raise PreferenceFormatError(
        f"The ranker ids are long numbers rounded the way a spreadsheet shows them "
        f"('{text.iloc[i].strip()}', as on an earlier row): the digits that told people apart "
        "are lost, and their answers would be read as one person's.", row=int(lines[i]),
        column=column,
        fix="Load the survey tool's own export, not a copy saved from a spreadsheet; or, in "
            "the spreadsheet, import that column as text (Data > From Text, column type "
            "Text) before saving.")


def ranker_ids(values: np.ndarray, lines: np.ndarray, column: str,
               notes: list[str] | None = None, anonymous: bool = False
               ) -> tuple[np.ndarray, tuple[str, ...]] | tuple[None, None]:
    """Ranker ids in order of first appearance, or (None, None) when all cells are blank.

    Names that differ only in Unicode form, invisible characters or spacing (``Ann  Lee``
    and ``Ann Lee``) are one ranker, as look-alike item names are one item
    (:func:`unify_names`); the note saying so is appended to ``notes``. A blank cell among
    names is refused, unless each value is one whole ranking's (``anonymous``: a row of a
    survey whose name question was optional), when it is a ranker of its own, named by its
    row (``(row 3)``), with a note.
    """
    values = np.asarray(values, dtype=object)
    blank = values == ""
    if blank.all():
        return None, None
    placeholder = pd.Series(values, dtype=object).astype(str).str.strip().str.lower().isin(
        ANONYMOUS_NAMES).to_numpy(dtype=bool)
    if placeholder.all():
        return None, None
    if placeholder.any():  # 'Anonymous' names no one person: a ranker of its own
        shown = str(values[placeholder][0]).strip()
        values = values.copy()
        values[placeholder] = [f"(row {line})" for line in np.asarray(lines)[placeholder]]
        if notes is not None:
            notes.append(f"{plural(int(placeholder.sum()), 'ranking')} name no one in "
                         f"'{column}' ('{shown}'): each is taken as a ranker of its own")
    if blank.any() and anonymous:
        values = values.copy()
        values[blank] = [f"(row {line})" for line in np.asarray(lines)[blank]]
        if notes is not None:
            notes.append(f"{plural(int(blank.sum()), 'ranking')} name no one in '{column}': "
                         "each is taken as a ranker of its own")
    elif blank.any():
        i = int(np.flatnonzero(blank)[0])
        raise PreferenceFormatError(
            "The ranker is blank on this row, while other rows name one.",
            row=int(lines[i]), column=column,
            fix="Fill in who gave this ranking, or delete the ranker column.")
    _refuse_rounded_ids(values, lines, column)
    codes, names = pd.factorize(values)
    codes, labels, note = unify_names(codes, list(map(str, names.tolist())), "ranker name")
    if note and notes is not None:
        notes.append(note)
    return codes, labels


def tidy_cells(values: np.ndarray, what: str) -> tuple[np.ndarray, str | None]:
    """Cells naming people or items, with look-alike spellings written one way (each
    distinct cell tidied once, :func:`unify_names`), and the note saying what changed."""
    codes, names = factorize(values)
    codes, tidy, note = unify_names(codes, names, what)
    return np.asarray(tidy, dtype=object)[codes], note


def unneutralise(text: str) -> str:
    """A cell as written before a spreadsheet-safe export: ``'=x`` is read as ``=x``.

    :func:`coarsenrank_core.export.neutralise_cell` prefixes text that a spreadsheet would
    run as a formula with an apostrophe; reading removes exactly that one apostrophe.
    """
    if text.startswith("'") and text[1:2] and text[1] in FORMULA_STARTS:
        return text[1:]
    return text


def factorize(values: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    codes, names = pd.factorize(np.asarray(values, dtype=object))
    return codes.astype(np.intp), tuple(str(n) for n in names)


def check_items(item_names: tuple[str, ...]) -> None:
    if len(item_names) == 0:
        raise PreferenceFormatError("The file names no items.",
                                    fix="Put the item names in the rankings.")
    if len(item_names) == 1:
        raise PreferenceFormatError(
            f"The file mentions only one item in total ('{item_names[0]}'); a ranking needs "
            "at least two items.", fix="Check that the rankings list all the items compared.")


# ---------------------------------------------------------------------------- assembling
def _stopping_early_note(counts: np.ndarray, keep: np.ndarray, n_items: int, unit: str,
                         weights: np.ndarray | None) -> str:
    """How ballots (or orders) listing only some of the candidates are read."""
    weight = np.ones(counts.size) if weights is None else np.asarray(weights, dtype=float)
    early = float(weight[keep & (counts < n_items)].sum())
    total = float(weight[keep].sum())
    return (f"{early:g} of the {total:g} {unit}s read list only some of the {n_items} "
            f"{'candidates' if unit == 'ballot' else 'items'}: each is read as a ranking of "
            "those it lists, so one it leaves off is not placed below them (as an election "
            f"count would place it), and {'an' if unit == 'order' else 'a'} {unit} listing "
            "one alone is left out")


def assemble(pref: np.ndarray, group: np.ndarray, item: np.ndarray, n_pref: int,
              item_names: tuple[str, ...], pref_lines: np.ndarray, *,
              rankers: Iterable[Any] | np.ndarray | None = None,
              ranker_column: str = "", weights: np.ndarray | None = None, notes: Sequence[str] = (),
              unit: str = "row", merge_names: bool = True) -> Preferences:
    """Build Preferences from entries sorted by preference and group; skip one-item lists.

    Item names that differ only in Unicode form, invisible characters or spacing are
    merged (``merge_names``), with a note; formats that number their items pass False.

    ``pref``, ``group`` and ``item`` describe each entry; ``pref_lines``, ``rankers`` (raw
    cell values) and ``weights`` describe each of the ``n_pref`` preferences.
    """
    notes = list(notes)
    note = None
    if merge_names:
        item, item_names, note = unify_names(item, item_names)
    if note:
        notes.append(note)
        repeat = first_repeat(pref.astype(np.int64) * max(len(item_names), 1) + item)
        if repeat is not None:
            raise PreferenceFormatError(
                f"The item '{item_names[item[repeat[1]]]}' appears twice in this ranking, "
                "written in two ways that look the same.", row=int(pref_lines[pref[repeat[1]]]),
                fix="Each item may appear only once per ranking; write its name the same "
                    "way everywhere.")
    check_items(item_names)
    counts = np.bincount(pref, minlength=n_pref)
    keep = counts >= 2
    single = np.flatnonzero(counts == 1)
    if single.size:
        notes.append(skipped_note(pref_lines[single], unit, "with fewer than 2 items"))
    if unit in ("ballot", "order") and (keep & (counts < len(item_names))).any():
        notes.append(_stopping_early_note(counts, keep, len(item_names), unit, weights))
    if not keep.any():
        raise PreferenceFormatError(
            "No ranking in the file has two or more items, so there is nothing to compare.",
            fix="Put at least two items in each ranking. If the values on a row are separated "
                "by spaces or another character, save the file with commas between them.")
    ranker_codes, ranker_names = (None, None)
    if rankers is not None:
        ranker_codes, ranker_names = ranker_ids(np.asarray(rankers, dtype=object)[keep],
                                                pref_lines[keep], ranker_column, notes,
                                                anonymous=unit == "row")
    if keep.all():
        items, groups = item, group
    else:
        entry_keep = keep[pref]
        items, groups = item[entry_keep], group[entry_keep]
        # a name seen only in rows of one item ('Total' under a column) is no item
        only_there = (np.bincount(item, minlength=len(item_names)) > 0) & (
            np.bincount(items, minlength=len(item_names)) == 0)
        if only_there.any():
            left_out = [item_names[i] for i in np.flatnonzero(only_there)]
            notes.append(f"Left out {plural(len(left_out), 'name')} found only in those "
                         f"rows, never beside another item: {quote_list(left_out)}")
            new_id = np.cumsum(~only_there) - 1
            items = new_id[items].astype(ID_DTYPE)
            item_names = tuple(n for n, gone in zip(item_names, only_there) if not gone)
    for array in (items, groups):
        if array.flags.owndata and array.dtype == ID_DTYPE:
            array.flags.writeable = False  # ours alone: the collection keeps it, no copy
    return Preferences.from_arrays(
        items, counts[keep], groups=groups, n_items=len(item_names),
        item_names=item_names, weights=None if weights is None else weights[keep],
        rankers=ranker_codes, ranker_names=ranker_names, notes=tuple(notes))


def without_unpaired_names(ids: Sequence[np.ndarray], item_names: tuple[str, ...]
                           ) -> tuple[list[np.ndarray], tuple[str, ...], str | None]:
    """Leave out the names that no kept comparison holds (seen only in skipped rows).

    Parameters
    ----------
    ids : sequence of numpy.ndarray
        The item ids of the kept comparisons (e.g. winners and losers).
    item_names : tuple of str
        The names the ids number.

    Returns
    -------
    ids : list of numpy.ndarray
        The ids renumbered over the names kept.
    item_names : tuple of str
        The names kept, in their order.
    note : str or None
        The note naming the names left out, or None when every name is kept.
    """
    used = np.zeros(len(item_names), dtype=bool)
    for array in ids:
        used[array] = True
    if used.all():
        return list(ids), item_names, None
    unused = np.flatnonzero(~used)
    note = (f"Left out {plural(unused.size, 'name')} found only in those rows, never beside "
            f"another item: {quote_list(item_names[i] for i in unused)}")
    new_id = np.cumsum(used) - 1
    kept = tuple(item_names[i] for i in np.flatnonzero(used))
    return [new_id[array] for array in ids], kept, note


#: Characters that never show: zero-width spaces, soft hyphens, byte-order marks, the
#: invisible direction marks (left-to-right, right-to-left, Arabic letter mark), the
#: invisible operators, the Hangul fillers, the braille blank, the combining grapheme joiner,
#: the Mongolian vowel separator, variation selectors and the tag characters.
_INVISIBLE = dict.fromkeys([
    *map(ord, "\u200b\u2060\ufeff\u00ad\u200e\u200f\u061c\u2061\u2062\u2063\u2064"
              "\u3164\u115f\u1160\uffa0\u2800\u034f\u180e\u17b4\u17b5"),
    *range(0xFE00, 0xFE10), *range(0xE0000, 0xE0080)], None)
#: Tag characters spell a subdivision's flag after a black flag (England's, Scotland's):
#: there they show, so a name holding the black flag keeps them.
_INVISIBLE_BESIDE_FLAGS = {k: v for k, v in _INVISIBLE.items() if not 0xE0000 <= k < 0xE0080}
#: Zero-width joiners and non-joiners at a name's ends or beside a space, where they join
#: nothing; inside a name they shape it (an emoji sequence ``👩‍💻``, Persian and Indic words).
_LOOSE_JOINERS = re.compile(r"(?:^|(?<=\s))[\u200c\u200d]+|[\u200c\u200d]+(?=\s|$)")


#: Spaces that look alike on screen: runs of spaces, tabs, non-breaking and other
#: Unicode spaces (a line break is kept: a cell on two lines looks different).
_SPACES = re.compile("[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")


#: Curly and typographic quote marks, read as the straight ones when names are compared
#: (``Joe’s Diner`` and ``Joe's Diner`` are one restaurant).
_QUOTES = str.maketrans("\u2018\u2019\u201a\u201b\u02bc\u2032\u201c\u201d\u201e\u201f\u2033",
                        "\'\'\'\'\'\'\"\"\"\"\"")


def name_key(name: str) -> str:
    """A tidied name as names are compared: curly quote marks read as straight ones."""
    return name.translate(_QUOTES)


def same_name_key(name: str) -> str:
    """What two names share when the readers take them as one: the name read back from a
    spreadsheet-safe export (:func:`unneutralise`), tidied (:func:`tidy_name`), its quote
    marks straight (:func:`name_key`)."""
    return name_key(tidy_name(unneutralise(name)))


def tidy_text(text: str) -> str:
    """The text in Unicode NFC form, without invisible characters or surrounding spaces, and
    with each run of spaces (non-breaking ones too) written as one plain space; empty when
    nothing in it shows."""
    invisible = _INVISIBLE_BESIDE_FLAGS if "\U0001f3f4" in text else _INVISIBLE
    shown = _LOOSE_JOINERS.sub("", unicodedata.normalize("NFC", text).translate(invisible))
    return _SPACES.sub(" ", shown).strip()


def tidy_name(name: str) -> str:
    """A name as :func:`tidy_text` writes it, or the name as it is when nothing in it
    shows (a name must not become blank)."""
    return tidy_text(name) or name


def unify_names(codes: np.ndarray, names: Sequence[str], what: str = "item name"
                ) -> tuple[np.ndarray, tuple[str, ...], str | None]:
    """Merge names that differ only in Unicode form, invisible characters, spacing or the
    shape of their quote marks.

    Returns the new codes and names, and a note for the user when anything changed
    (``what`` is the kind of name: ``"item name"`` or ``"ranker name"``); a merge note
    shows up to three of the spellings merged and the name kept.
    """
    plain = [unneutralise(n) for n in names]  # our own spreadsheet-safe export, undone
    tidy = [tidy_name(n) for n in plain]
    keys = [name_key(t) for t in tidy]  # same_name_key of each name
    if tidy == list(names) and len(set(keys)) == len(keys):
        return codes, tuple(names), None
    # names that differ only in their quote marks become the spelling seen first
    new_of_old, _ = pd.factorize(np.asarray(keys, dtype=object))
    unique = pd.Series(tidy, dtype=object).groupby(new_of_old).first().to_numpy()
    merged = len(names) - len(unique)
    changed = sum(a != b for a, b in zip(plain, tidy))
    if not merged and not changed:
        return new_of_old[codes], tuple(str(u) for u in unique), None
    size = np.bincount(new_of_old, minlength=len(unique))
    shown = [(old, str(unique[new])) for old, new in zip(names, new_of_old.tolist())
             if size[new] > 1 and old != unique[new]]
    note = names_note(what, merged, changed, shown)
    return new_of_old[codes], tuple(str(u) for u in unique), note


def names_note(what: str, merged: int, changed: int,
               shown: Sequence[tuple[str, str]] = ()) -> str | None:
    """The note on names merged or tidied (:func:`unify_names`; the chunked reader's too).

    Parameters
    ----------
    what : str
        The kind of name, ``"item name"`` or ``"ranker name"``.
    merged : int
        How many names were merged into another.
    changed : int
        How many names were tidied (written otherwise).
    shown : sequence of (str, str)
        Spellings merged and the name each became; the first three are shown.
    """
    if merged:
        examples = ", ".join(f"{_shown_name(old)} as {_shown_name(new)}"
                             for old, new in shown[:3])
        examples += ", ..." if len(shown) > 3 else ""
        return (f"Merged {plural(merged, what)} that looked the same as another "
                "(Unicode form, invisible characters, non-breaking or repeated spaces, or "
                "curly quote marks)"
                + (f": {examples}" if examples else ""))
    if changed:
        return (f"Tidied {plural(changed, what)} (Unicode form, invisible characters "
                "or spaces)")
    return None


def _shown_name(name: str) -> str:
    """A name quoted for a note, its invisible and unusual spaces written as escapes."""
    shown = "".join(c if c == " " or (c.isprintable() and not c.isspace())
                    else f"\\u{ord(c):04x}" for c in name[:60])
    return f"'{shown}'"


MAX_DIGITS = 12


def whole(text: str, row: int | None = None, what: str = "this number") -> int:
    """A whole number written in a file, refusing ones too long to be meant (> 12 digits)."""
    text = text.strip()
    if len(text.lstrip("+-0")) > MAX_DIGITS:
        shown = text if len(text) <= 20 else text[:12] + f"… ({len(text)} digits)"
        raise PreferenceFormatError(
            f"The number '{shown}' is too large for {what}.", row=row,
            fix=f"Use numbers of at most {MAX_DIGITS} digits.")
    return int(text)


def unique_names(names: Sequence[str], kind: str) -> tuple[list[str], list[str]]:
    """Numbered items' names made unique: a repeated name gets its number, e.g. ``x (3)``.

    Returns the names and one note per renaming (``kind`` is e.g. ``"Alternatives"``).
    """
    taken = set(names)
    out: list[str] = []
    notes: list[str] = []
    first: dict[str, int] = {}
    for number, name in enumerate(names, 1):
        if name in first:
            new, k = f"{name} ({number})", 2
            while new in taken:
                new, k = f"{name} ({number}.{k})", k + 1
            notes.append(f"{kind} {first[name]} and {number} are both called '{name}'; "
                         f"the second is shown as '{new}'")
            taken.add(new)
            name = new
        first.setdefault(name, number)
        out.append(name)
    return out, notes


def empty_error() -> PreferenceFormatError:
    return PreferenceFormatError("The file is empty.",
                                 fix="Choose the file that holds the data; the example files "
                                     "show what it should contain.")


def header_only_error(line: int) -> PreferenceFormatError:
    return PreferenceFormatError("The file has a header but no rows below it.", row=line,
                                 fix="Add the data rows under the header.")


def rank_beyond_items_error(cell: str, places: int, row: int,
                            column: str) -> PreferenceFormatError:
    """A rank larger than the number of items: ratings or scores, read the wrong way up."""
    return PreferenceFormatError(
        f"'{cell}' cannot be a rank here: with {places} items the ranks run from 1 to "
        f"{places}. Numbers above the count of items are ratings or scores (such as 1 to 5 "
        "stars), not ranks, and reading them as ranks with 1 the best would turn the order "
        "upside down.", row=row, column=column,
        fix="If a higher number is better, choose 'Rank numbers mean: 1 is the worst' "
            "(--one-is-worst in the command line): each ranking is then read as an order, "
            "equal numbers tied. If a smaller number is better (school grades, strokes), "
            "choose the layout 'item columns holding ranks' by hand (--format ranks). If "
            "these are ranks, correct the cell.")


def dense_places(pref: np.ndarray, place: np.ndarray) -> np.ndarray:
    """Each entry's place within its preference renumbered 0, 1, 2 ... in the same order,
    so that a place left empty (a blank stage, an item dropped) leaves no gap; ``pref`` is
    sorted."""
    if not pref.size:
        return np.zeros(0, dtype=np.intp)
    low = int(place.min())
    key = pref.astype(np.int64) * (int(place.max()) - low + 1) + (place - low)
    _, dense = np.unique(key, return_inverse=True)
    first = np.r_[True, pref[1:] != pref[:-1]]
    out: np.ndarray = dense - np.repeat(dense[first],
                                        np.diff(np.r_[np.flatnonzero(first), pref.size]))
    return out


def first_repeat(codes: np.ndarray) -> tuple[int, int] | None:
    """Index of the first value seen before, after the index of its earlier occurrence."""
    repeated = np.flatnonzero(pd.Series(codes).duplicated().to_numpy())
    if not repeated.size:
        return None
    second = int(repeated[0])
    return int(np.flatnonzero(codes == codes[second])[0]), second


T = TypeVar("T")


def guard(task: Callable[[], T]) -> T:
    """Run ``task``; turn any failure that is not already a PreferenceFormatError into one."""
    try:
        return task()
    except (PreferenceFormatError, Cancelled):  # a stopped reading is not a bad file
        raise
    except Exception as exc:  # a safety net: the UI must only ever see PreferenceFormatError
        raise PreferenceFormatError(
            f"{UNEXPECTED} ({type(exc).__name__}: {str(exc)[:200]}).",
            fix="Check that the file is laid out like one of the example files; if it is, "
                "please report this problem.") from exc
