"""The repository is ruff-formatted and ruff-clean, line length (E501, 120) included.

The rules and the kernel fixtures kept as their authors wrote them (the only files without E501)
are in pyproject.toml ([tool.ruff]).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).with_name("ruff")

pytestmark = pytest.mark.skipif(not RUFF.exists(), reason="ruff (dev extra) is needed")


def _ruff(*args: str) -> subprocess.CompletedProcess:
    # --config: this checkout's pyproject.toml, never a ruff.toml in a folder above it
    return subprocess.run(
        [str(RUFF), *args, "--no-cache", "--config", str(ROOT / "pyproject.toml"), str(ROOT)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_ruff_format_is_applied():
    done = _ruff("format", "--check")
    assert done.returncode == 0, (
        f"run .venv/bin/ruff format on these files:\n{done.stdout[-5000:]}{done.stderr[-2000:]}"
    )


def test_ruff_check_is_clean_with_line_length():
    done = _ruff("check", "--output-format", "concise")
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]


def test_line_length_is_enforced():
    """E501 is selected (not ignored globally): a 121-character line in a checked file fails."""
    long_line = "x = " + repr("a" * 115) + "\n"
    assert len(long_line.rstrip("\n")) == 121
    done = subprocess.run(
        [
            str(RUFF),
            "check",
            "--no-cache",
            "--config",
            str(ROOT / "pyproject.toml"),
            "--stdin-filename",
            "tools/example.py",
            "-",
        ],
        input=long_line,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "E501" in done.stdout, done.stdout + done.stderr


def test_the_tools_parse_python_through_the_one_locked_parse():
    """CPython 3.11's ast.parse fails on threads parsing at once (tools/pyast.py): the tools run on server threads."""
    root = Path(__file__).resolve().parents[1]
    direct = [
        f"{path.relative_to(root)}:{number}"
        for folder in ("tools", "mcp_server")
        for path in (root / folder).rglob("*.py")
        if path.name != "pyast.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "ast.parse(" in line and "pyast.parse(" not in line
    ]
    assert not direct, direct
