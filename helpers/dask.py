"""The course's name for :mod:`topkeval.dask` (the same module object)."""

import sys

import topkeval.dask

sys.modules[__name__] = topkeval.dask
