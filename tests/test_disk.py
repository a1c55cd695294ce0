"""What a job writes into a host directory is measured and removed whatever shape it gives the tree."""

from __future__ import annotations

import os
import subprocess

from sandbox import disk


def _deep(root, levels: int) -> None:
    """`levels` nested directories of 200-character names (deeper than PATH_MAX), a 4 MiB file at the bottom."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(levels):
            os.mkdir("a" * 200, dir_fd=fd)
            child = os.open("a" * 200, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        written = os.open("big", os.O_WRONLY | os.O_CREAT, 0o600, dir_fd=fd)
        os.write(written, b"\x01" * (4 << 20))
        os.close(written)
    finally:
        os.close(fd)


def test_a_tree_deeper_than_path_max_is_counted_and_removed(tmp_path):
    """A walk by path names failed below PATH_MAX and skipped the rest: a job could hide its writes there."""
    (tmp_path / "cache").mkdir()
    try:
        _deep(tmp_path / "cache", 1500)
        assert disk.tree_bytes(tmp_path / "cache", 1 << 20) > 1 << 20
        disk.remove_tree(tmp_path / "cache")
        assert not (tmp_path / "cache").exists()
    finally:  # pytest's own cleanup of old temporary directories recurses, and would fail on this tree
        subprocess.run(["rm", "-rf", str(tmp_path / "cache")], check=False, timeout=120)


def test_a_small_tree_is_counted_exactly_and_a_missing_one_is_empty(tmp_path):
    (tmp_path / "d" / "e").mkdir(parents=True)
    (tmp_path / "d" / "e" / "f").write_bytes(b"\x01" * 8192)
    assert 8192 <= disk.tree_bytes(tmp_path / "d", 1 << 30) < 1 << 20
    assert disk.tree_bytes(tmp_path / "missing", 0) == 0
