"""Tools for real offline experiments, beyond the metrics themselves.

- :mod:`helpers.experiments.data`: a synthetic interaction log and MovieLens loaders.
- :mod:`helpers.experiments.models`: small NumPy baselines (random, popular, item-kNN, EASE, PureSVD).
- :mod:`topkeval.stats`: bootstrap intervals and paired tests over per-user metrics.
- :mod:`helpers.experiments.sampled`: the sampled-metrics protocol and its expected bias.
- :mod:`helpers.experiments.peers`: run peer libraries on one dataset; their stored results.

Imports: the library root only (and peer libraries, lazily, in ``peers``).
"""
