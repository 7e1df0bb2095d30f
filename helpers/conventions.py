"""The course's name for :mod:`topkeval.conventions` (the same module object)."""

import sys

import topkeval.conventions

sys.modules[__name__] = topkeval.conventions
