"""Loaders for the paper's datasets (Readlevel, BabyFace, PeerGrading, SUSHI) as Preferences."""

from __future__ import annotations

import csv
from collections import defaultdict
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import scipy.io

from ..frozen import restore_readonly
from ..models.plackett_luce import coarsen_pl
from ..preferences import Preferences

__all__ = ["PaperDataset", "load_readlevel", "load_babyface", "load_peergrading", "load_sushi",
           "peergrading_csvs", "peergrading_rows", "peergrading_truth", "corrupt_orders",
           "PAPER_DATASETS"]


@dataclass(frozen=True)
class PaperDataset:
    """One of the paper's datasets: preferences, a ground truth and what was done to read it.

    Attributes
    ----------
    name : str
        Short display name.
    preferences : Preferences
        The preferences, items ``0 .. M-1`` named as in the source files.
    truth : numpy.ndarray, shape (M,)
        Ground-truth score of every item, higher is better (ties allowed).
    description : str
        One paragraph on the source and the meaning of items and rankers.
    notes : tuple of str
        Rows dropped or repaired while reading, and other caveats.
    """

    name: str
    preferences: Preferences
    truth: np.ndarray
    description: str
    notes: tuple[str, ...] = ()

    def __setstate__(self, state):
        restore_readonly(self, state)  # arrays stay read-only after unpickling

    def __post_init__(self):
        truth = np.array(self.truth, dtype=float, copy=True)
        if truth.shape != (self.preferences.n_items,):
            raise ValueError(f"truth has shape {truth.shape}, expected "
                             f"({self.preferences.n_items},)")
        truth.flags.writeable = False
        object.__setattr__(self, "truth", truth)
        object.__setattr__(self, "notes", tuple(self.notes))


def _rankers(worker_ids: np.ndarray) -> tuple[np.ndarray, tuple[str, ...]]:
    """Consecutive ranker ids (in increasing order of the source ids) and their names."""
    unique, codes = np.unique(worker_ids, return_inverse=True)
    return codes.ravel(), tuple(str(int(u)) for u in unique)


def _from_padded(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """Flatten 0-padded 1-based item rows; drop rows left with < 2 items or a repeated item.

    Returns the 0-based flat items, the lengths, the kept-row mask, and the numbers of rows
    dropped for being too short and for repeating an item.
    """
    present = rows > 0
    lengths = present.sum(axis=1)
    ordered = np.sort(np.where(present, rows, 0), axis=1)
    repeated = np.any((ordered[:, 1:] == ordered[:, :-1]) & (ordered[:, 1:] > 0), axis=1)
    keep = (lengths >= 2) & ~repeated
    kept = rows[keep]
    return (kept[kept > 0] - 1, lengths[keep], keep, int(np.sum(lengths < 2)),
            int(np.sum(repeated & (lengths >= 2))))


# --------------------------------------------------------------------------- Readlevel
def load_readlevel(root) -> PaperDataset:
    """Readlevel: 12,728 crowd comparisons of the reading level of 490 documents.

    ``readlevel/read_data/all_pair.txt`` holds ``worker item_a item_b`` (1-based, ``item_a``
    judged the more difficult, i.e. preferred); ``doc_info.txt`` the truth ``doc level``
    (levels 1..12, many ties). The 2 rows that compare a document with itself are dropped.
    Items are named by their 1-based document id, rankers by the worker id.

    Parameters
    ----------
    root : path
        The datasets folder (the one holding ``readlevel/``).
    """
    folder = Path(root) / "readlevel" / "read_data"
    pairs = np.loadtxt(folder / "all_pair.txt", dtype=np.int64, ndmin=2)
    levels = np.loadtxt(folder / "doc_info.txt", dtype=np.int64, ndmin=2)
    n_items = int(levels[:, 0].max())
    truth = np.full(n_items, np.nan)
    truth[levels[:, 0] - 1] = levels[:, 1]
    self_pairs = pairs[:, 1] == pairs[:, 2]
    rows = ", ".join(str(i + 1) for i in np.flatnonzero(self_pairs))
    notes = (f"dropped {int(self_pairs.sum())} of {len(pairs)} comparisons that compare a "
             f"document with itself (rows {rows})",)
    pairs = pairs[~self_pairs]
    rankers, ranker_names = _rankers(pairs[:, 0])
    prefs = Preferences.from_pairs(pairs[:, 1] - 1, pairs[:, 2] - 1, n_items=n_items,
                                   rankers=rankers, ranker_names=ranker_names,
                                   item_names=tuple(str(i) for i in range(1, n_items + 1)),
                                   notes=notes)
    return PaperDataset(
        name="Readlevel", preferences=prefs, truth=truth, notes=notes,
        description=("Crowdsourced pairwise comparisons of the reading difficulty of 490 "
                     "documents by 624 workers (Chen et al., WSDM 2013). The preferred item is "
                     "the one judged harder; the truth is the document's reading level 1..12."))


# --------------------------------------------------------------------------- BabyFace
def load_babyface(root) -> PaperDataset:
    """BabyFace: 3074 ternary preferences of 21 workers over 18 baby-face images.

    ``babyface/read_data/BabyFace.mat`` holds ``data`` (``worker, best, middle, worst``,
    1-based) and ``ground_truth`` (18 values, higher is better). Items are named by their
    1-based image id, rankers by the worker id. The 6 lists that name an image twice (e.g.
    ``1 > 14 > 1``) cannot be preferences and are dropped, leaving 3068.
    """
    mat = scipy.io.loadmat(Path(root) / "babyface" / "read_data" / "BabyFace.mat")
    data = mat["data"].astype(np.int64)
    truth = mat["ground_truth"].astype(float).ravel()
    n_items = truth.size
    items, lengths, keep, _, _ = _from_padded(data[:, 1:])
    notes = (f"dropped {int(np.sum(~keep))} of {len(data)} lists that name one image twice "
             f"(rows {', '.join(str(i + 1) for i in np.flatnonzero(~keep))}, e.g. "
             f"{data[~keep][0, 1:].tolist() if np.any(~keep) else []})",)
    rankers, ranker_names = _rankers(data[keep, 0])
    prefs = Preferences.from_arrays(items, lengths, n_items=n_items, rankers=rankers,
                                    ranker_names=ranker_names, notes=notes,
                                    item_names=tuple(str(i) for i in range(1, n_items + 1)))
    return PaperDataset(
        name="BabyFace", preferences=prefs, truth=truth, notes=notes,
        description=("Crowdsourced ternary preferences (best, middle, worst) over 18 baby-face "
                     "images (Han, Pan & Tsang, Machine Learning 2018); the truth is a strict "
                     "order of the 18 images."))


# --------------------------------------------------------------------------- PeerGrading
def _read_grades(path: Path) -> np.ndarray:
    """A ``taskid,reviewerid,groupid,grade`` CSV as an (n, 4) integer array, in file order."""
    with open(path, newline="") as handle:
        reader = csv.reader(handle)
        header = [h.strip() for h in next(reader)]
        if header != ["taskid", "reviewerid", "groupid", "grade"]:
            raise ValueError(f"{path} has header {header}, expected "
                             "taskid,reviewerid,groupid,grade")
        rows = [[int(v) for v in row] for row in reader if row]
    return np.array(rows, dtype=np.int64).reshape(-1, 4)


def peergrading_csvs(root) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``ta``, ``self`` and ``peer`` grade tables of ``peergrading/read_data``."""
    folder = Path(root) / "peergrading" / "read_data"
    ta, own, peer = (_read_grades(folder / f"{name}.csv") for name in ("ta", "self", "peer"))
    return ta, own, peer


def peergrading_truth(ta: np.ndarray) -> np.ndarray:
    """Ground truth of every group from the TA grades (as in the authors' script).

    In each task the TA grades are min-max rescaled to [1, 10], with the minimum taken as
    ``min(task minimum, 1)``; a group's truth is the mean of its rescaled grades over the
    tasks where it has one. When a TA graded a group twice in a task the later row counts.
    """
    n_groups = int(ta[:, 2].max())
    total = np.zeros(n_groups)
    count = np.zeros(n_groups)
    for task in np.unique(ta[:, 0]):
        rows = ta[ta[:, 0] == task]
        high, low = rows[:, 3].max(), min(rows[:, 3].min(), 1)
        # a dict keeps the last grade of a group graded twice in one task, as MATLAB does
        last = {int(g): v for g, v in zip(rows[:, 2], (rows[:, 3] - low) * 9 / (high - low) + 1)}
        groups = np.fromiter(last, dtype=np.intp) - 1
        total[groups] += np.fromiter(last.values(), dtype=float)
        count[groups] += 1
    with np.errstate(invalid="ignore"):
        return total / count


def peergrading_rows(self_grades, peer, reproduce_bug: bool = False,
                     ties: str = "pairs") -> list[tuple[int, list]]:
    """Re-run the authors' list construction (``Generate_Ground_truth.m``) on the CSVs.

    For every task and every reviewer found in ``self.csv`` (both in increasing id order),
    the reviewer's self-grade of their own group and their peer grades of other groups are
    turned into preferences, best grade first, when the reviewer has a self-grade and 1 or 2
    peer grades, or no self-grade and exactly 2 peer grades; other (task, reviewer) cells
    (among them those with 4 or 5 peer grades) give nothing, as in the script.

    Ties (``ties="pairs"``, the script's rule): a strict 2- or 3-item order becomes one list;
    when two of three grades tie, the strict relations become separate pairs (``s = p1 > p2``
    gives ``s > p2`` and ``p1 > p2``; ``p1 = p2 < s`` gives ``s > p1`` and ``s > p2``); an
    all-tied cell gives nothing. ``ties="groups"`` instead keeps every cell with at least two
    distinct grades as one list whose equal grades form a tied group.

    Parameters
    ----------
    self_grades, peer : numpy.ndarray, shape (n, 4)
        ``self.csv`` and ``peer.csv`` (``taskid, reviewerid, groupid, grade``), in file order.
    reproduce_bug : bool
        Write, as the released script does, the peer's grade where its group id belongs in
        the second row of the four "self ties one peer" branches (``ties="pairs"`` only).
    ties : {"pairs", "groups"}

    Returns
    -------
    list of (int, list)
        ``(reviewer id, preference)``; a preference lists 1-based group ids best first, a
        frozenset for a tied group. With the bug a "group id" can be 0 or repeat an item.
    """
    if ties not in ("pairs", "groups"):
        raise ValueError(f"ties must be 'pairs' or 'groups', not {ties!r}")
    if reproduce_bug and ties != "pairs":
        raise ValueError("the script's bug is only defined for ties='pairs'")
    self_cells: dict = defaultdict(list)
    peer_cells: dict = defaultdict(list)
    for row in self_grades.tolist():
        self_cells[row[0], row[1]].append(row)
    for row in peer.tolist():
        peer_cells[row[0], row[1]].append(row)
    out: list[tuple[int, list]] = []
    for task in np.unique(self_grades[:, 0]).tolist():
        for reviewer in np.unique(self_grades[:, 1]).tolist():
            own, peers = self_cells.get((task, reviewer), []), peer_cells.get((task, reviewer), [])
            if not peers or len(peers) > 2 or (not own and len(peers) != 2) or len(own) > 1:
                continue
            if ties == "groups":
                graded = own + peers
                by_grade: dict = defaultdict(set)
                for row in graded:
                    by_grade[row[3]].add(row[2])
                if len(by_grade) > 1:
                    pref = [next(iter(g)) if len(g) == 1 else frozenset(g)
                            for _, g in sorted(by_grade.items(), reverse=True)]
                    out.append((reviewer, pref))
                continue
            out.extend((reviewer, pref) for pref in _script_cell(own, peers, reproduce_bug))
    return out


def _script_cell(own: list, peers: list, bug: bool) -> list[list[int]]:
    """The preferences the script writes for one (task, reviewer) cell (``ties="pairs"``)."""
    if not own:
        (_, _, g1, v1), (_, _, g2, v2) = peers
        return [] if v1 == v2 else [[g1, g2] if v1 > v2 else [g2, g1]]
    _, _, gs, vs = own[0]
    if len(peers) == 1:
        _, _, gp, vp = peers[0]
        return [[gs, gp]] if vs > vp else [[gp, gs]] if vs < vp else []
    (_, _, g1, v1), (_, _, g2, v2) = peers
    if v1 == v2:
        return [[gs, g1], [gs, g2]] if vs > v1 else [[g1, gs], [g2, gs]] if vs < v1 else []
    if vs == v1:
        wrong = v1 if bug else g1  # the released script writes the peer's grade here
        return [[gs, g2], [wrong, g2]] if vs > v2 else [[g2, gs], [g2, wrong]]
    if vs == v2:
        wrong = v2 if bug else g2
        return [[gs, g1], [wrong, g1]] if vs > v1 else [[g1, gs], [g1, wrong]]
    ranked = sorted(((vs, 0, gs), (v1, 1, g1), (v2, 2, g2)), key=lambda t: (-t[0], t[1]))
    return [[g for _, _, g in ranked]]


def load_peergrading(root, rebuilt: bool = False, ties: str = "pairs") -> PaperDataset:
    """PeerGrading: students' self- and peer grades of 79 project groups (Sajjadi et al. 2016).

    Items are the 79 groups (named ``"1".."79"``), rankers the reviewing students, named by
    ``reviewerid − 6`` as in the released file. The truth is the mean rescaled TA grade of
    each group (:func:`peergrading_truth`).

    ``rebuilt=False`` reads the released ``PeerGrader.mat`` (what the paper used). Its rows
    are 0-padded; 790 of them were corrupted by a bug of the authors' script (see
    ``peergrading/SOURCE.md``): the 4 rows left with a single item and the 15 rows that
    compare a group with itself cannot be preferences and are dropped, leaving 3600 lists.

    ``rebuilt=True`` rebuilds the lists from ``ta.csv``, ``self.csv`` and ``peer.csv`` with
    the script's logic and the bug fixed (:func:`peergrading_rows`); ``ties`` chooses how
    equal grades are treated (default ``"pairs"``, the script's own rule).

    Parameters
    ----------
    root : path
        The datasets folder (the one holding ``peergrading/``).
    rebuilt : bool
        Rebuild the lists from the CSVs instead of reading the released file.
    ties : {"pairs", "groups"}
        Tie rule of the rebuilt lists (ignored for the released file).
    """
    if ties not in ("pairs", "groups"):
        raise ValueError(f"ties must be 'pairs' or 'groups', not {ties!r}")
    folder = Path(root) / "peergrading" / "read_data"
    description = ("Self- and peer grades from a course on algorithms and data structures "
                   "(Sajjadi, Alamgir & von Luxburg, L@S 2016). Items are the 79 project groups, "
                   "rankers the students; a preference orders the groups one student graded in "
                   "one task (own group and 1–2 others) by grade. The truth is the mean of the "
                   "TA grades rescaled to [1, 10] per task.")
    if not rebuilt:
        mat = scipy.io.loadmat(folder / "PeerGrader.mat")
        data = mat["data"].astype(np.int64)
        truth = mat["ground_truth"].astype(float).ravel()
        items, lengths, keep, short, repeated = _from_padded(data[:, 1:])
        groups = None
        notes = (f"dropped {short} of {len(data)} released lists left with a single item after "
                 "removing the 0 padding (a grade of 0 written as a group id by the script's bug)",
                 f"dropped {repeated} released lists that compare a group with itself (the bug "
                 "wrote a grade equal to the group id)",
                 "about 790 released lists hold a grade in place of a group id; "
                 "load_peergrading(root, rebuilt=True) gives the corrected lists")
        workers = data[keep, 0]
        name = "PeerGrading"
    else:
        ta, self_grades, peer = peergrading_csvs(root)
        truth = peergrading_truth(ta)
        built = peergrading_rows(self_grades, peer, ties=ties)
        workers = np.array([r for r, _ in built], dtype=np.int64) - 6
        flat = Preferences.from_lists(
            [[x - 1 if isinstance(x, int) else frozenset(v - 1 for v in x) for x in pref]
             for _, pref in built], n_items=truth.size)
        items, lengths, groups = flat.items, flat.lengths, flat.groups
        notes = ("rebuilt from ta.csv, self.csv and peer.csv with the authors' script logic and "
                 "its group-id/grade bug fixed",
                 "as in the script, (task, reviewer) cells with 4-5 peer grades, or with one peer "
                 "grade and no self-grade, give no preference",
                 "ties: " + ("two of three equal grades give the strict pairs; an all-tied cell "
                             "is dropped (the script's rule)" if ties == "pairs" else
                             "equal grades form a tied group of one list; all-tied cells dropped"))
        name = "PeerGrading (rebuilt)" if ties == "pairs" else "PeerGrading (rebuilt, tied)"
    names = tuple(str(i) for i in range(1, truth.size + 1))
    rankers, ranker_names = _rankers(workers)
    prefs = Preferences.from_arrays(items, lengths, groups=groups, n_items=truth.size,
                                    rankers=rankers, ranker_names=ranker_names, notes=notes,
                                    item_names=names)
    return PaperDataset(name=name, preferences=prefs, truth=truth, description=description,
                        notes=notes)


# --------------------------------------------------------------------------- SUSHI
def _read_order_file(path) -> tuple[np.ndarray, int]:
    """Kamishima's ``.order`` format: header ``n_items 1``, then ``0 k i1 .. ik`` (0-based)."""
    with open(path) as handle:
        header = handle.readline().split()
    if len(header) < 1:
        raise ValueError(f"{path} has no header line")
    n_items = int(header[0])
    rows = np.loadtxt(path, dtype=np.int64, skiprows=1, ndmin=2)
    if rows.shape[1] < 4 or np.any(rows[:, 1] != rows.shape[1] - 2):
        raise ValueError(f"{path}: every line must be '0 k i1 .. ik' with the same k")
    orders = rows[:, 2:]
    if orders.min() < 0 or orders.max() >= n_items:
        raise ValueError(f"{path}: item ids must lie in 0..{n_items - 1}")
    return orders, n_items


def corrupt_orders(orders: np.ndarray, n_items: int, n_kept: int, min_length: int = 4,
                   random_state=0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The paper's SUSHI corruption of complete orders (one list per user, same length k).

    ``n_kept`` users, chosen at random, keep a random subsequence of random length
    ``min_length..k`` (the kept positions are chosen at random and stay in their original
    order); every other user's list is replaced by ``min_length..k`` distinct random items
    out of ``n_items`` in random order.

    Returns
    -------
    items, lengths, noise
        Flat 0-based item ids and list lengths in user order, and a boolean mask of the
        users whose list is noise.
    """
    rng = np.random.default_rng(random_state)
    n_users, k = orders.shape
    if not 0 <= n_kept <= n_users or not 2 <= min_length <= k or n_items < k:
        raise ValueError("need 0 <= n_kept <= users, 2 <= min_length <= list length <= items")
    noise = np.ones(n_users, dtype=bool)
    noise[rng.choice(n_users, size=n_kept, replace=False)] = False
    lengths = rng.integers(min_length, k + 1, size=n_users)
    # kept users: the positions with the L smallest random keys, in their original order
    keys = rng.random((n_users, k))
    rank = np.argsort(np.argsort(keys, axis=1), axis=1)
    kept_mask = rank < lengths[:, None]
    # noise users: the first L entries of a random permutation of all items
    perm = np.argsort(rng.random((n_users, n_items)), axis=1)[:, :k]
    noise_mask = np.arange(k)[None, :] < lengths[:, None]
    table = np.where(noise[:, None], perm, orders)
    mask = np.where(noise[:, None], noise_mask, kept_mask)
    return table[mask], lengths, noise


def load_sushi(path, random_state=0, n_kept: int | None = None, min_length: int = 4,
               truth_iterations: int = 25) -> tuple[PaperDataset, PaperDataset]:
    """SUSHI (not redistributable): the clean lists and the paper's corrupted version.

    Reads Kamishima's ``sushi3b.5000.10.order`` (5000 users, complete orders of 10 of 100
    sushi, 0-based ids, best first). The truth is PL-EM on all the clean lists with prior
    (a, b) = (1, 2), τ = 1, 25 iterations and θ rescaled to sum to 10 after each one.
    The corrupted lists follow the paper's script (:func:`corrupt_orders`): 3000 random users
    keep a random subsequence of random length 4–10, the other 2000 get pure noise.

    Parameters
    ----------
    path : path
        The ``.order`` file.
    random_state : None, int or numpy.random.Generator
        Seed of the corruption.
    n_kept : int, optional
        Users whose list is kept (shortened); default 3/5 of the users (3000 of 5000).
    min_length : int
        Shortest length of a corrupted list.
    truth_iterations : int
        PL-EM iterations of the ground truth.

    Returns
    -------
    (PaperDataset, PaperDataset)
        The clean dataset and the corrupted one; both share the truth and the rankers
        (one per user, named ``"1".."N"`` in file order).
    """
    orders, n_items = _read_order_file(path)
    n_users, k = orders.shape
    names = tuple(str(i) for i in range(n_items))
    users = tuple(str(u) for u in range(1, n_users + 1))
    clean = Preferences.from_arrays(orders.ravel(), np.full(n_users, k), n_items=n_items,
                                    item_names=names, rankers=np.arange(n_users),
                                    ranker_names=users)
    truth = coarsen_pl(clean, alpha=np.inf, prior=(1.0, 2.0), calibration=10.0,
                       max_iter=truth_iterations, tol=0.0).scores
    n_kept = round(0.6 * n_users) if n_kept is None else int(n_kept)
    items, lengths, noise = corrupt_orders(orders, n_items, n_kept, min_length, random_state)
    notes = (f"{n_kept} users keep a random subsequence of random length {min_length}-{k}; "
             f"the other {int(noise.sum())} lists are random noise "
             f"(random_state={random_state!r}; corrupt_orders gives the mask of noisy users)",)
    corrupted = Preferences.from_arrays(items, lengths, n_items=n_items, item_names=names,
                                        rankers=np.arange(n_users), ranker_names=users,
                                        notes=notes)
    description = ("Kamishima's SUSHI preference data: {} users each order 10 of 100 sushi. "
                   "The truth is PL-EM on the clean complete lists.")
    truth_note = (f"truth: PL-EM on the {n_users} clean lists, prior (1, 2), "
                  f"{truth_iterations} iterations, calibration C = 10",)
    return (PaperDataset(name="SUSHI", preferences=clean, truth=truth,
                         description=description.format(n_users), notes=truth_note),
            PaperDataset(name="SUSHI (corrupted)", preferences=corrupted, truth=truth,
                         description=description.format(n_users)
                         + " Here 2/5 of the lists are replaced by noise and the rest shortened.",
                         notes=truth_note + notes))


PAPER_DATASETS = {
    "readlevel": load_readlevel,
    "babyface": load_babyface,
    "peergrading_released": partial(load_peergrading, rebuilt=False),
    "peergrading_rebuilt": partial(load_peergrading, rebuilt=True),
}
