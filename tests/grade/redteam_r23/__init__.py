"""The twenty-third red team (final round): round 22's allow-list fix (`learner_version`) and more.

Broken (xfail strict, ``test_authored_learner_notebook.py``): a hand-graded answer cell's model answer
picture (a markdown cell attachment referenced only inside the solution region) reaches every learner;
a code cell's solution region whose markers carry a label (``### BEGIN SOLUTION (q1)``, nbgrader's
substring match strips it) passes verbatim into the learner notebook with no error; the allow-list
drops JupyterLab's cell locks (``editable``/``deletable``) an instructor set on the given cells.
Held: see the round's report.
"""
