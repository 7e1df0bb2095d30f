"""The course's name for :mod:`topkeval.user_models` (the same module object)."""

import sys

import topkeval.user_models

sys.modules[__name__] = topkeval.user_models
