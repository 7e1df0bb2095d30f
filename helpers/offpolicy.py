"""The course's name for :mod:`topkeval.offpolicy` (the same module object)."""

import sys

import topkeval.offpolicy

sys.modules[__name__] = topkeval.offpolicy
