"""Failure-pattern detectors. Each looks at one kind of evidence and returns Diagnoses.

Evidence comes from the stored run: the comparator's results, the checks, the error, the
output tensors against the golden and the CPU control (NaN/Inf positions, never-written
elements, where errors sit in the 2-D view, their sign, how they compare to the CPU's), the
candidate's source (syntactic facts) and, for matmul-like ops, the precision fingerprint.
"""

# Imported in this order: it is the detectors' registration order, which `suppresses` follows.
# isort: off
from tools.diagnosis.detectors import verdicts  # noqa: F401 (each import registers its detectors)
from tools.diagnosis.detectors import structure  # noqa: F401
from tools.diagnosis.detectors import boundary  # noqa: F401
from tools.diagnosis.detectors import transforms  # noqa: F401
from tools.diagnosis.detectors import nan_inf  # noqa: F401
from tools.diagnosis.detectors import integers  # noqa: F401
from tools.diagnosis.detectors import precision  # noqa: F401

# isort: on
from tools.diagnosis.detectors.common import element_indices, flat_index, nonfinite_agree, tail_views

__all__ = ["element_indices", "flat_index", "nonfinite_agree", "tail_views"]
