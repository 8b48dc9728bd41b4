"""MSFC itself, outside the simulator: its parameters, its reference model and its traces.

``params``        the parameters, read from their one definition, the qdisc's UAPI header
                  (``python -m msfc.model.params``)
``reference``     the pure-Python reference of docs/algorithm.md that replays a cross-check
                  trace (``python -m msfc.model.reference TRACE``)
``vectors``       the seeded cross-check traces of test/vectors/ and their expected replay
                  (``python -m msfc.model.vectors [--check]``)
``differential``  the reference against the ns-3 model, trace by trace
                  (``python -m msfc.model.differential``)
``weights``       the class-share errors of weights=rounded and weights=exact on the
                  reference (``python -m msfc.model.weights``, docs/algorithm.md's table)
``kunit``         the traces and their expected decisions as C arrays for the Linux qdisc's
                  KUnit replay (``python -m msfc.model.kunit``, run by
                  kernel/scripts/prepare_tree.py)

``params`` and ``reference`` need only the standard library: the UML test kernel's guest
programs read the parameters through ``msfc.model.params`` with the checkout's python/ on
PYTHONPATH.
"""
