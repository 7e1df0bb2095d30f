"""The course's name for :mod:`topkeval.splits` (the same module object)."""

import sys

import topkeval.splits

sys.modules[__name__] = topkeval.splits
