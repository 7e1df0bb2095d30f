"""The twenty-eighth red team (final round of stop 42): the grader from a learner's side, in bubblewrap.

Broken (xfail strict, ``test_dict_subclass_answers.py``): an honest leave-one-out notebook whose functions
return a ``collections.OrderedDict`` / ``defaultdict`` (a ``dict``: the course's own ``check()`` passes it)
scores 0 on those questions, told it "returned a class from the notebook or a package, not a dict".
Held: see that file's docstring and the round's report.
"""
