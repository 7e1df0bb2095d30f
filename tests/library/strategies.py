"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

ITEMS = st.integers(min_value=0, max_value=30)


@st.composite
def user_case(draw, min_relevant: int = 0, graded: bool = False, max_len: int = 15):
    """(ranking, relevance, k): a duplicate-free ranking and a relevant set or grade mapping."""
    ranking = draw(st.lists(ITEMS, unique=True, max_size=max_len))
    pool = st.sampled_from(ranking) if ranking and draw(st.booleans()) else ITEMS
    relevant = draw(st.sets(st.one_of(pool, ITEMS), min_size=min_relevant, max_size=12))
    k = draw(st.integers(min_value=1, max_value=max_len + 3))
    if graded:
        grades = {item: draw(st.sampled_from([0, 1, 2, 3, 0.5])) for item in relevant}
        if min_relevant and not any(g > 0 for g in grades.values()):
            grades[next(iter(grades))] = 1
        return ranking, grades, k
    return ranking, relevant, k
