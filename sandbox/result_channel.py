"""A job's result in shared memory instead of a file: written by the sandboxed child, read in place here.

The pool makes an anonymous memory file (memfd) per job and names it to the zygote as
/proc/<pool pid>/fd/<n>; the zygote opens it and hands the descriptor to the job's child with the
job's command (SCM_RIGHTS). The child writes its result bundle into it as it would into result.bin.
Nothing touches a disk: on the H200 a 192 MB result cost ~0.1 s to write to a file in the state
directory and 0.12 s to read back (readinto at 1.6 GB/s) before the trusted side could use it.

The child is hostile and may have left a process holding the descriptor. Before reading, the pool
seals the file against writes, shrinking and growing (a truncation under a mapping would be a
SIGBUS here). Sealing fails while a writable mapping exists anywhere, or once the job sealed the
seals: then the bundle is copied out with ordinary reads, whose short reads tensorio reports as a
malformed bundle. Sealed, the file is mapped copy-on-write and its tensors are views of the mapping
(no copy; what the comparer writes stays private to this process).

Where memfd or /proc/<pid>/fd is not available the zygote hands nothing and the child writes
result.bin in the job directory as before (`JobResult.result_via` says which).
"""

from __future__ import annotations

import fcntl
import mmap
import os

# stdlib only at import: the zygote imports this before torch (for WRITTEN)

SEALS = ("F_SEAL_SHRINK", "F_SEAL_GROW", "F_SEAL_WRITE")
#: What a job says on its command socket once its result is written and closed: the zygote reports
#: it finished then, not when it exits (a CUDA process spends ~0.16 s exiting on the H200).
WRITTEN = b"done"


def available() -> bool:
    return hasattr(os, "memfd_create") and all(hasattr(fcntl, name) for name in ("F_ADD_SEALS", *SEALS))


class ResultChannel:
    """One job's shared result file, owned by the pool (closed by `close`)."""

    def __init__(self, job_id: str):
        self.fd = os.memfd_create(f"kernel-eval-result-{job_id}", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)

    @property
    def path_for_zygote(self) -> str:
        """Where the zygote (a child of this process, same user) opens the same file."""
        return f"/proc/{os.getpid()}/fd/{self.fd}"

    def read(self, max_bytes: int) -> tuple[dict, dict]:
        """(meta, values) of the bundle the job wrote; raises tensorio.BundleError if malformed."""
        from sandbox import tensorio

        size = os.fstat(self.fd).st_size
        if size > max_bytes:
            raise tensorio.BundleError(f"result of {size} bytes exceeds the {max_bytes}-byte limit")
        if size == 0:
            raise tensorio.BundleError("the job wrote no result")
        if not self._seal():
            return tensorio.read_bundle_fd(self.fd, size)
        mapped = mmap.mmap(self.fd, size, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        return tensorio.parse_bundle(memoryview(mapped), size)

    def _seal(self) -> bool:
        seals = 0
        for name in SEALS:
            seals |= getattr(fcntl, name)
        try:
            fcntl.fcntl(self.fd, fcntl.F_ADD_SEALS, seals)
        except OSError:  # EBUSY: a writable mapping lives on; EPERM: the job sealed the seals
            return False
        return True

    def close(self) -> None:
        """The pool's descriptor; tensors read from the mapping keep the memory until they go."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
