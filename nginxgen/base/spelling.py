"""The nearest known word to a mistyped one, for the "did you mean" of every error that names
an unknown code, key or name (one answer for all of them)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: it slows every pre-commit start
if TYPE_CHECKING:
    from collections.abc import Iterable


# letters typed for digits they look like: half an edit, so `NGX4O1` is nearer NGX401 than NGX411
LOOKALIKES = frozenset({("o", "0"), ("0", "o"), ("l", "1"), ("1", "l"), ("i", "1"), ("1", "i")})


def _distance(a: str, b: str) -> int:
    """Edits (insert, delete, substitute, swap two neighbours) from a to b, case ignored, in
    half edits: a look-alike substitution costs one half, every other edit two."""
    a, b = a.lower(), b.lower()
    previous2: list[int] = []
    previous = [2 * j for j in range(len(b) + 1)]
    for i, char in enumerate(a, 1):
        row = [2 * i]
        for j, other in enumerate(b, 1):
            change = 0 if char == other else 1 if (char, other) in LOOKALIKES else 2
            cost = min(previous[j] + 2, row[j - 1] + 2, previous[j - 1] + change)
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                cost = min(cost, previous2[j - 2] + 2)
            row.append(cost)
        previous2, previous = previous, row
    return previous[-1]


def nearest(word: str, known: Iterable[str]) -> str | None:
    """The known word fewest edits away; among equals, the one most alike by difflib's ratio
    (NGX999: NGX409 and NGX009 are both two edits away, and NGX409 shares the longer run).
    None when nothing is known."""
    import difflib  # only on the way to an error

    candidates = list(known)
    if not candidates:
        return None
    distances = {candidate: _distance(word, candidate) for candidate in candidates}
    fewest = min(distances.values())
    ties = [c for c in candidates if distances[c] == fewest]
    return difflib.get_close_matches(word, ties, n=1, cutoff=0.0)[0]
