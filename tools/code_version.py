"""The code version: a digest of this package's code, the interpreter and the environment the tools and
the sandbox read. A daemon serves only CLIs of its own code version (tools.cli.daemon.location); a kept
explanation is reused only by the code that made it (tools.diagnosis). Standard library only: the
CLI's fast path computes it on every call.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from sandbox import backends

try:  # the built-in SHA-256: hashlib would load OpenSSL first, ~5 ms of every CLI start
    from _sha256 import sha256  # pyright: ignore[reportMissingImports]  (Python <= 3.11)
except ImportError:  # pragma: no cover - Python 3.12+ (or a build without it)
    try:
        from _sha2 import sha256  # pyright: ignore[reportMissingImports]
    except ImportError:
        from hashlib import sha256

#: Bumped when a message changes shape; part of the code version, so old daemons are never asked.
PROTOCOL = 2
PACKAGE_ROOT = Path(__file__).resolve().parents[1]
CODE_DIRS = ("tools", "sandbox", "mcp_server")
#: Variables that change what a tool does (or what the sandbox passes on); the daemon's own
#: switches are left out so that `KERNEL_EVAL_NO_DAEMON=0` still finds the same daemon.
ENV_PREFIXES = ("KERNEL_EVAL_", "TRITON_", "TORCH_", "OMP_", "MKL_", *backends.env_prefixes())
ENV_NAMES = ("PATH", "LD_LIBRARY_PATH", "XDG_CACHE_HOME", "HOME")  # PYTHONPATH: the daemon gets the package root first
DAEMON_SWITCHES = ("KERNEL_EVAL_NO_DAEMON", "KERNEL_EVAL_DAEMON_IDLE_S")
#: The home is the daemon's place (its socket lives there), not part of its code version: the CLI
#: starts the daemon with the resolved KERNEL_EVAL_HOME set, which the caller's environment may not
#: have (the default home) or may spell otherwise (a trailing slash, a symlink).
NOT_FINGERPRINTED = (*DAEMON_SWITCHES, "KERNEL_EVAL_HOME")


def environment_fingerprint(environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    values: Mapping[str, str] = os.environ if environ is None else environ
    return sorted(
        (k, v)
        for k, v in values.items()
        if k not in NOT_FINGERPRINTED and (k in ENV_NAMES or k.startswith(ENV_PREFIXES))
    )


def _python_files(root: str, directory: str) -> Iterator[tuple[str, int, int]]:
    """(path relative to root, size, mtime_ns) of every .py file under root/directory; os.scandir, as
    every CLI call computes this: ~10x faster than Path.rglob."""
    pending = [directory]
    while pending:
        relative = pending.pop()
        with os.scandir(os.path.join(root, relative)) as entries:
            for entry in entries:
                name = os.path.join(relative, entry.name)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(name)
                elif entry.name.endswith(".py"):
                    info = entry.stat()
                    yield name, info.st_size, info.st_mtime_ns


def code_version(environ: Mapping[str, str] | None = None) -> str:
    digest = sha256(f"protocol {PROTOCOL}\n{sys.executable}\n{sys.version}\n".encode())
    for name in CODE_DIRS:
        for relative, size, mtime_ns in sorted(_python_files(str(PACKAGE_ROOT), name)):
            digest.update(f"{relative} {size} {mtime_ns}\n".encode())
    for key, value in environment_fingerprint(environ):
        digest.update(f"{key}={value}\n".encode())
    return digest.hexdigest()[:16]
