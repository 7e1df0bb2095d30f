"""The course's name for :mod:`topkeval.spark` (the same module object)."""

import sys

import topkeval.spark

sys.modules[__name__] = topkeval.spark
