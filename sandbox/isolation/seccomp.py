"""A seccomp filter, assembled by hand as classic BPF (no libseccomp needed).

Denied with EPERM: every socket family but AF_UNIX (no AF_INET/INET6/PACKET network, no AF_VSOCK to
the hypervisor, no AF_NETLINK to the host's kernel), ptrace, shared memory a GPU job's data limit
does not count (memfd_create, memfd_secret, SysV shmget, shared anonymous mmap; the job's result
file is made by the pool, outside), and the calls that reach kernel attack surface a job never
needs: new namespaces (unshare, setns, clone with CLONE_NEWUSER), mounts, keyrings, bpf, perf
events, userfaultfd, io_uring, cross-process memory, module and kexec loading. clone3 gets ENOSYS:
its flags live in memory a filter cannot read, and glibc then falls back to clone (threads and
subprocesses keep working). On x86_64 the x32 ABI is refused. Everything else is allowed: the
namespaces and the read-only root do the rest; this is the second wall, and the only one for the
network where namespaces are unavailable.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

from sandbox.isolation import linux

_ARCH = {  # audit arch, syscall numbers
    "x86_64": (
        0xC000003E,
        {
            "socket": 41,
            "mmap": 9,
            "clone": 56,
            "clone3": 435,
            "ptrace": 101,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "chroot": 161,
            "unshare": 272,
            "setns": 308,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "kexec_load": 246,
            "init_module": 175,
            "finit_module": 313,
            "delete_module": 176,
            "memfd_create": 319,
            "memfd_secret": 447,
            "shmget": 29,
        },
    ),
    "aarch64": (
        0xC00000B7,
        {
            "socket": 198,
            "mmap": 222,
            "clone": 220,
            "clone3": 435,
            "ptrace": 117,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "chroot": 51,
            "unshare": 97,
            "setns": 268,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "kexec_load": 104,
            "init_module": 105,
            "finit_module": 273,
            "delete_module": 106,
            "memfd_create": 279,
            "memfd_secret": 447,
            "shmget": 194,
        },
    ),
}
_ALWAYS_DENIED = [
    "ptrace",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "process_vm_readv",
    "process_vm_writev",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "kexec_load",
    "init_module",
    "finit_module",
    "delete_module",
    "memfd_create",
    "memfd_secret",
    "shmget",
]
_ALLOWED_SOCKET_FAMILY = 1  # AF_UNIX: within the job's own namespaces; every other family is refused

_LD_ABS_W, _JEQ, _JGE, _JSET, _RET, _AND = 0x20, 0x15, 0x35, 0x45, 0x06, 0x54
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16  # struct seccomp_data (args[0] low word, little-endian)
_OFF_ARG3 = _OFF_ARG0 + 3 * 8
#: mmap flags of a shared anonymous mapping (MAP_SHARED_VALIDATE includes MAP_SHARED): shmem pages
#: RLIMIT_DATA does not count, refused so that the data limit of a GPU job holds.
_SHARED_ANONYMOUS = 0x01 | 0x20


class _Assembler:
    """Classic BPF with symbolic jump targets (jt/jf are 8-bit forward offsets)."""

    def __init__(self):
        self.code: list[tuple] = []
        self.labels: dict[str, int] = {}

    def op(self, code, k=0, jt=None, jf=None):
        self.code.append((code, jt, jf, k))

    def label(self, name):
        self.labels[name] = len(self.code)

    def assemble(self) -> bytes:
        out = bytearray()
        for i, (code, jt, jf, k) in enumerate(self.code):
            out += struct.pack("<HBBI", code, self._offset(jt, i), self._offset(jf, i), k)
        return bytes(out)

    def _offset(self, target: str | None, index: int) -> int:
        if target is None:
            return 0
        delta = self.labels[target] - (index + 1)
        if not 0 <= delta <= 255:
            raise ValueError("BPF jump out of range")
        return delta


def build_filter(shared_mappings: bool = False) -> bytes | None:
    """The filter for this machine's architecture, or None where it is unknown. `shared_mappings`: shared anonymous
    mmap allowed, for a job whose cgroup counts those pages (the CUDA driver maps host memory so for CUDA graphs:
    with the rule, capture fails with "out of memory", scripts/gpu_graph_probe.py)."""
    arch = _ARCH.get(platform.machine())
    if arch is None:
        return None
    audit_arch, nr = arch
    a = _Assembler()
    a.op(_LD_ABS_W, _OFF_ARCH)
    a.op(_JEQ, audit_arch, jt="arch_ok", jf="eperm")
    a.label("arch_ok")
    a.op(_LD_ABS_W, _OFF_NR)
    if platform.machine() == "x86_64":
        a.op(_JGE, 0x40000000, jt="eperm", jf="native")  # x32 ABI
        a.label("native")
    for name in _ALWAYS_DENIED:
        a.op(_JEQ, nr[name], jt="eperm")
    a.op(_JEQ, nr["socket"], jt="socket")
    a.op(_JEQ, nr["clone"], jt="clone")
    a.op(_JEQ, nr["clone3"], jt="enosys")
    if not shared_mappings:
        a.op(_JEQ, nr["mmap"], jt="mmap")
    a.op(_RET, _RET_ALLOW)
    a.label("mmap")
    a.op(_LD_ABS_W, _OFF_ARG3)
    a.op(_AND, _SHARED_ANONYMOUS)
    a.op(_JEQ, _SHARED_ANONYMOUS, jt="eperm")
    a.op(_RET, _RET_ALLOW)
    a.label("socket")
    a.op(_LD_ABS_W, _OFF_ARG0)
    a.op(_JEQ, _ALLOWED_SOCKET_FAMILY, jt="allow", jf="eperm")
    a.label("allow")
    a.op(_RET, _RET_ALLOW)
    a.label("clone")
    a.op(_LD_ABS_W, _OFF_ARG0)
    a.op(_JSET, linux.CLONE_NEWUSER, jt="eperm")
    a.op(_RET, _RET_ALLOW)
    a.label("enosys")
    a.op(_RET, _RET_ERRNO | errno.ENOSYS)
    a.label("eperm")
    a.op(_RET, _RET_ERRNO | errno.EPERM)
    return a.assemble()


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def load_filter(program: bytes) -> str:
    """Install the filter on every thread of the process (threads a device driver started before
    the job included), else on the calling thread and the threads it starts; returns which.
    Needs no_new_privs or CAP_SYS_ADMIN."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    if linux.seccomp_all_threads(ctypes.addressof(fprog)):
        return "every thread"
    linux.prctl(linux.PR_SET_SECCOMP, linux.SECCOMP_MODE_FILTER, ctypes.addressof(fprog))
    return "this thread and its children"


#: Whether the filter this process loaded refuses shared anonymous mmap (None: no filter loaded here).
_refuses_shared_mappings: bool | None = None


def loaded(refuses_shared_mappings: bool) -> None:
    """Records what the filter loaded in this process refuses (sandbox/isolation sets it as it loads one)."""
    global _refuses_shared_mappings
    _refuses_shared_mappings = refuses_shared_mappings


def refuses_shared_mappings() -> bool:
    """The filter in force here refuses shared anonymous mmap (what CUDA graphs need)."""
    return bool(_refuses_shared_mappings)
