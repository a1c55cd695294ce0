"""Linux system calls the sandbox needs, through ctypes (Python 3.11 has no os.unshare)."""

from __future__ import annotations

import ctypes
import os
import platform

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2

_SYSCALLS = {  # pivot_root and seccomp have no glibc wrapper
    "x86_64": {"pivot_root": 155, "seccomp": 317},
    "aarch64": {"pivot_root": 41, "seccomp": 277},
}


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _b(s):
    return None if s is None else os.fsencode(s)


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), "unshare")


def setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(fd, nstype), "setns")


def mount(source, target, fstype, flags: int, data=None) -> None:
    _check(_libc.mount(_b(source), _b(target), _b(fstype), flags, _b(data)), f"mount {target}")


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(_b(target), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    number = _SYSCALLS.get(platform.machine(), {}).get("pivot_root")
    if number is None:
        raise OSError(38, f"pivot_root: unknown syscall number on {platform.machine()}")
    _check(_libc.syscall(number, _b(new_root), _b(put_old)), "pivot_root")


SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_TSYNC = 1


def seccomp_all_threads(fprog_address: int) -> bool:
    """seccomp(SET_MODE_FILTER, TSYNC): the filter on every thread at once. False where the
    syscall is unknown here or a thread could not be synchronised (nothing installed then)."""
    number = _SYSCALLS.get(platform.machine(), {}).get("seccomp")
    if number is None:
        return False
    ret = _libc.syscall(
        ctypes.c_long(number),
        ctypes.c_long(SECCOMP_SET_MODE_FILTER),
        ctypes.c_long(SECCOMP_FILTER_FLAG_TSYNC),
        ctypes.c_void_p(fprog_address),
    )
    return ret == 0


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> None:
    _check(_libc.prctl(option, arg2, arg3, arg4, arg5), f"prctl({option})")


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc.sethostname(raw, len(raw)), "sethostname")


class PidNamespaceForker:
    """fork() whose child is pid 1 of a new pid namespace, at the cost of one fork (as root).

    unshare(CLONE_NEWPID) moves only the caller's future children; setns() back to the caller's
    own namespace afterwards resets that, so the next unshare works again (measured: one fork
    instead of two saves ~10 ms per job, the page-table copy of a torch-sized process).
    """

    def __init__(self):
        self._own = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)

    def fork(self) -> int:
        unshare(CLONE_NEWPID)
        pid = -1
        try:
            pid = os.fork()
        finally:
            if pid != 0:
                setns(self._own, CLONE_NEWPID)
        return pid


def status_bytes(field: str, pid: int | str = "self") -> int:
    """A size field of /proc/<pid>/status (VmSize, VmData, ...) in bytes; OSError where it is not there."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) << 10  # kB
    raise OSError(f"/proc/{pid}/status has no {field}")
