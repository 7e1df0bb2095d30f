"""Notebook runs under pytest (nbval) use the synthetic log in the capstone, never a download.

Kernels started by nbval inherit this process's environment.
"""

import os

os.environ.setdefault("TOPK_CAPSTONE_DATA", "synthetic")
