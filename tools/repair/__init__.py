"""Source rewriting of a candidate, below diagnosis and fixes (both use it; it uses neither):

- source.py: facts about a kernel's source (parsed, never run): accumulators, masks, loops, casts;
- the fix patches (patches.py and formulas, blockwise, layout, padding, reduction) and their
  registry (registry.py: which fix, which diagnosis patterns it answers, how to patch);
- repair by search: single-site edits (edits.py, syntax.py) and the search that re-runs them
  (search.py), each caller with its own way of re-running an edit (explain_failure's
  repair_search experiment on the failing seed, suggest_fix's run_accuracy on every seed).
"""
