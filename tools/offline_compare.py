"""`kernel-eval compare`: judge dumped tensors (.npy / .npz / .pt) without running anything."""

from __future__ import annotations

from tools.compare import compare_outputs
from tools.compare.options import options_from
from tools.models.compare import CompareFilesRequest, CompareReport
from tools.tensor_files import load_tensors


def compare_files(request: CompareFilesRequest) -> CompareReport:
    """Raises TensorFileError / CompareInputError for unusable files or options."""
    actual = load_tensors(request.actual, "actual", request.key)
    golden = load_tensors(request.golden, "golden", request.key)
    cpu = load_tensors(request.cpu, "cpu", request.key) if request.cpu else None
    options = options_from(request, allow_lossless_upcast=True)
    return compare_outputs(actual, golden, cpu, dtype=request.dtype, options=options)
