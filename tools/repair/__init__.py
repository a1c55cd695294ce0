"""Repair by search: single-site edits of a candidate (edits.py) and the search that re-runs them (search.py).

Below diagnosis and fixes: explain_failure's repair_search experiment and suggest_fix both use it, each
with its own way of re-running an edit (a trial on the failing seed, run_accuracy on every seed).
"""
