"""The course's shared package: the metrics of :mod:`topkeval` under the course's name, and the course itself.

``import helpers`` gives every name of the library (``helpers.evaluate`` is
:func:`topkeval.evaluate`), and ``helpers.<module>`` is the library's module of
that name (``helpers.spark`` is :mod:`topkeval.spark`), so notebooks and
exercises written against ``helpers`` keep working. What is the course's own
lives in the subpackages:

======================  ===============================================  ==============================
subpackage              purpose                                          may import
======================  ===============================================  ==============================
``helpers.experiments`` teaching data, baseline models, sampled metrics,  topkeval
                        online-evaluation simulations, peer libraries
``helpers.checking``    how an answer is judged (one rule set for        nothing (stdlib, NumPy)
                        notebooks, self-checks and the grader)
``helpers.course``      the notebooks' exercises, seed examples,         topkeval, experiments,
                        progress                                         checking
``helpers.grade``       the autograder (``python -m helpers.grade``)     topkeval, experiments,
                                                                         checking
``helpers.grade.child`` runs inside the sandbox                          standard library only
======================  ===============================================  ==============================

The library never imports ``helpers`` (``tests/library/test_layers.py``
enforces every arrow). ``helpers.progress()`` and ``helpers.reset_progress()``
load the course on first use.
"""

from topkeval import *  # noqa: F403  (the library's public API, under the course's name)
from topkeval import __all__ as _LIBRARY_ALL

__version__ = "0.3.0"  # the course package's own version (the library's is topkeval.__version__)

_COURSE = ("progress", "reset_progress")

__all__ = [*_LIBRARY_ALL, *_COURSE]


def __getattr__(name: str):
    """Load the course's progress helpers on first use (``import helpers`` stays the library only)."""
    if name in _COURSE:
        from helpers import course

        return getattr(course, name)
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")
