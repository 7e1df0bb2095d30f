"""Deadlines and the late policy: how late a submission is and what it costs.

The policy (``--deadline``, ``--grace``, ``--late-penalty``, ``--late-cap``) is stored in the
gradebook, so every export (and the review page) applies the same one. Decisions:

- Lateness counts from ``deadline + grace``; a submission at that instant is on time. Every
  started day after it is one day late (one second late is one day; 24 h and 1 s are two).
- The penalty is ``--late-penalty`` percent of the assignment's points per day late, at most
  ``--late-cap`` percent (Canvas's "deduct per interval, lowest possible grade" rule); the score
  never goes below 0.
- A submission without a time (the LMS gave none) is never penalised; it is shown as such.
- Times are timezone-aware: a deadline without a zone is refused (which 23:59 would it be?).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

__all__ = ["LatePolicy", "Lateness", "parse_deadline", "parse_duration", "assess", "apply"]

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "": 60}


def parse_deadline(text: str) -> datetime:
    """An ISO 8601 moment with its timezone, in UTC.

    Raises
    ------
    ValueError
        For text that is not ISO 8601 or has no timezone.

    Parameters
    ----------
    text : str
        An ISO 8601 date and time with a timezone (``Z`` or an offset); a deadline without one
        would mean different moments on the instructor's and the LMS's clocks.

    Returns
    -------
    datetime
        The same moment, in UTC.

    Examples
    --------
    >>> parse_deadline("2026-03-01T23:59:00+01:00")
    datetime.datetime(2026, 3, 1, 22, 59, tzinfo=datetime.timezone.utc)
    >>> parse_deadline("2026-03-01 23:59")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: the deadline '2026-03-01 23:59' has no timezone: write it as 2026-03-01T23:59:00Z (UTC) ...
    """
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(
            f"the deadline {text!r} is not an ISO 8601 date and time, e.g. 2026-03-01T23:59:00+01:00"
        ) from None
    if moment.tzinfo is None:
        raise ValueError(
            f"the deadline {text!r} has no timezone: write it as {moment.strftime('%Y-%m-%dT%H:%M:%S')}Z "
            "(UTC) or with an offset such as +01:00"
        )
    return moment.astimezone(UTC)


def parse_duration(text: str) -> timedelta:
    """A grace period: a number and a unit ``s``, ``m`` (the default), ``h`` or ``d``.

    Parameters
    ----------
    text : str
        ``"15m"``, ``"2h"``, ``"1d"``, ``"30s"`` or a bare number of minutes.

    Returns
    -------
    timedelta
        The duration.

    Raises
    ------
    ValueError
        For anything else, or a negative duration.

    Examples
    --------
    >>> parse_duration("15m"), parse_duration("2h"), parse_duration("0")
    (datetime.timedelta(seconds=900), datetime.timedelta(seconds=7200), datetime.timedelta(0))
    """
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"the duration {text!r} is not a number and a unit (s, m, h or d), e.g. 15m or 2h")
    return timedelta(seconds=float(match.group(1)) * _UNIT_SECONDS[match.group(2)])


@dataclass(frozen=True)
class LatePolicy:
    """A deadline, a grace period, a penalty per day late (percent) and its cap (percent).

    Parameters
    ----------
    deadline : datetime or None
        The deadline in UTC (:func:`parse_deadline`); None: no late policy at all.
    grace : timedelta
        Time after the deadline still counted as on time (a clock skew, an upload in progress).
    per_day : float
        Percent of the score taken per started day after the grace period, 0 to 100.
    cap : float
        The largest penalty in percent, 0 to 100.
    missing_zero : bool
        Give 0 to a roster learner with no submission (needs a deadline: before it, a missing
        submission may still come).

    Raises
    ------
    ValueError
        For a percentage outside 0 to 100, a negative grace period, or ``missing_zero`` without
        a deadline.

    Examples
    --------
    >>> policy = LatePolicy(parse_deadline("2026-03-01T12:00:00Z"), parse_duration("10m"), per_day=10, cap=30)
    >>> policy.cap
    30
    """

    deadline: datetime | None = None
    grace: timedelta = timedelta(0)
    per_day: float = 0.0
    cap: float = 100.0
    missing_zero: bool = False

    def __post_init__(self) -> None:
        if not (0 <= self.per_day <= 100 and 0 <= self.cap <= 100):
            raise ValueError("--late-penalty and --late-cap are percentages from 0 to 100")
        if self.grace < timedelta(0):
            raise ValueError("--grace must not be negative")
        if self.missing_zero and self.deadline is None:
            raise ValueError("--missing-zero needs a --deadline (missing learners get 0 only after it)")

    @property
    def closes(self) -> datetime | None:
        """The deadline plus the grace period: later is late."""
        return None if self.deadline is None else self.deadline + self.grace

    def to_json(self) -> dict:
        """The policy as stored in the gradebook."""
        return {
            "deadline": None if self.deadline is None else self.deadline.isoformat(),
            "grace_seconds": self.grace.total_seconds(),
            "per_day": self.per_day,
            "cap": self.cap,
            "missing_zero": self.missing_zero,
        }

    @classmethod
    def from_json(cls, data: dict | None) -> LatePolicy:
        """The policy stored by :meth:`to_json` (no policy: no deadline)."""
        if not data:
            return cls()
        deadline = data.get("deadline")
        return cls(
            deadline=None if deadline is None else datetime.fromisoformat(deadline),
            grace=timedelta(seconds=data.get("grace_seconds", 0)),
            per_day=float(data.get("per_day", 0.0)),
            cap=float(data.get("cap", 100.0)),
            missing_zero=bool(data.get("missing_zero", False)),
        )


@dataclass(frozen=True)
class Lateness:
    """How late one submission is: ``days`` started days late, ``penalty`` percent, and a sentence.

    Parameters
    ----------
    days : int
        Started days late after the grace period (0: on time).
    penalty : float
        The penalty in percent, already capped.
    note : str
        The sentence the learner's feedback shows (empty when on time).

    Examples
    --------
    >>> apply(10.0, 10.0, Lateness(1, 10.0, "1 day late: -10%"))
    9.0
    """

    days: int
    penalty: float
    note: str


def assess(submitted_at: datetime | None, policy: LatePolicy) -> Lateness:
    """The lateness of a submission handed in at ``submitted_at`` under ``policy``.

    Parameters
    ----------
    submitted_at : datetime or None
        When the LMS says the submission was handed in (aware, any timezone); None when it gave
        no time, which is never penalised.
    policy : LatePolicy
        The deadline and penalty.

    Returns
    -------
    Lateness
        Days late, penalty and the sentence shown.

    Examples
    --------
    >>> policy = LatePolicy(parse_deadline("2026-03-01T12:00:00Z"), timedelta(minutes=10), 10, 25)
    >>> assess(parse_deadline("2026-03-01T12:10:00Z"), policy).days
    0
    >>> late = assess(parse_deadline("2026-03-01T12:10:01Z"), policy)
    >>> late.days, late.penalty
    (1, 10.0)
    >>> assess(parse_deadline("2026-03-04T13:00:00Z"), policy).penalty  # 4 days: capped at 25
    25.0
    >>> assess(None, policy).note
    'submission time unknown (the LMS gave none): no late penalty'
    """
    if policy.closes is None:
        return Lateness(0, 0.0, "")
    if submitted_at is None:
        return Lateness(0, 0.0, "submission time unknown (the LMS gave none): no late penalty")
    overdue = (submitted_at - policy.closes).total_seconds()
    if overdue <= 0:
        return Lateness(0, 0.0, "on time")
    days = math.ceil(overdue / 86400)
    penalty = float(min(policy.cap, days * policy.per_day))
    return Lateness(days, penalty, f"{days} day(s) late: -{penalty:g} % of the points")


def apply(score: float, max_score: float, lateness: Lateness) -> float:
    """The score after the late penalty (never below 0), rounded to 2 decimals.

    Parameters
    ----------
    score : float
        The points before the penalty.
    max_score : float
        The assignment's maximum: the penalty is a percentage of it, not of the score, so two
        learners equally late lose the same points.
    lateness : Lateness
        From :func:`assess`.

    Returns
    -------
    float
        The penalised score.

    Examples
    --------
    >>> apply(12.0, 14.0, Lateness(2, 20.0, ""))
    9.2
    >>> apply(1.0, 14.0, Lateness(5, 50.0, ""))
    0.0
    """
    return round(max(0.0, score - max_score * lateness.penalty / 100.0), 2)
