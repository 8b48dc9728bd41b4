"""The analysis: from raw per-flow records to metrics, tables, figures and comparisons.

``metrics``    the metric names and definitions every table, report and benchmark uses
``tables``     thesis-style tables from tidy summaries
``report``     ``msfc report``: the HTML page with tables and figures
``rundiff``    ``msfc diff``: two runs' per-flow records compared column by column
``thesis``     the thesis's published tables (package data) beside a comparable run
``modes``      whether a mode beyond the thesis changed anything in a study
``doctables``  the docs' tables made from committed data, and the check that they still are
               (``python -m msfc.analysis.doctables``)

Nothing here runs a simulation: every function reads what the runner (msfc.sim) wrote.
"""
