"""The forty-third red team (final round of issue 33): a learner's notebook content against the grader in
bubblewrap. Nothing found. ``test_runtime_channels_held.py`` runs three of the ideas (a forged float
reply after a hidden case, a ``flush`` that hangs at the runner's last command, an answer's NumPy type
chosen from the drawn data); the others were held by reading the code (see the round's report): gating
of a check never depends on the learner's draw, forged ``q``/cell replies, ``did not report a result for
every case`` (unreachable for functions), a run tainted before it loaded, the second draw of an answer
variable, per-user kernel resources of uid 65534 shared between sandboxes, ``/dev`` and ``/dev/shm``."""
