"""The README and docs/ are a fresh clone's whole world: their commands parse, their paths exist,
and nothing points outside the repository."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tools.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
SKIP_DIRS = {".venv", ".venv-npu", ".mcp-inspector", "node_modules", ".git", "kernel_eval_mcp.egg-info"}


def _repository_files():
    for path in ROOT.rglob("*"):
        if path.suffix in (".py", ".md") and not SKIP_DIRS & set(path.relative_to(ROOT).parts):
            yield path


def _readme_commands() -> list[str]:
    """Every `kernel-eval ...` line of the README's bash blocks, continuations joined, $T expanded."""
    commands, variables = [], {}
    for block in re.findall(r"```bash\n(.*?)```", README, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #", 1)[0].strip()
            if match := re.fullmatch(r"([A-Z]+)=(\S+)", line):
                variables[match[1]] = match[2]
            elif line.startswith("kernel-eval "):
                for name, value in variables.items():
                    line = line.replace(f"${name}", value)
                commands.append(line)
    return commands


def test_no_reference_to_files_outside_the_repository():
    pattern = re.compile(r"shared/seeds|shared/DESIGN|DESIGN §|\.\./shared")
    offenders = [
        f"{path.relative_to(ROOT)}:{i}"
        for path in _repository_files()
        if path.name != "test_docs.py"
        for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1)
        if pattern.search(line)
    ]
    assert offenders == []


def test_readme_says_how_to_reach_the_venv_and_links_the_comparator_spec():
    assert "source .venv/bin/activate" in README
    assert "`.venv/bin/python examples/compare_demo.py`" in README
    assert "(docs/comparator.md)" in README and (ROOT / "docs" / "comparator.md").is_file()
    layout = README.split("## Layout", 1)[1].split("##", 1)[0]
    assert "tools/" in layout and layout.index("  diagnosis/") < layout.index("sandbox/")  # under tools/
    for folder in ("tools/diagnosis", "tools/fixes", "tools/store", "docs"):
        assert (ROOT / folder).is_dir()


COMMANDS = _readme_commands()


@pytest.mark.parametrize("command", COMMANDS)
def test_readme_kernel_eval_commands_parse_and_their_example_paths_exist(command):
    argv = shlex.split(command)[1:]
    build_parser().parse_args(argv)  # argparse exits on an unknown flag or a bad choice
    for arg in argv:
        if arg.startswith("examples/"):
            assert (ROOT / arg).exists(), arg


def test_readme_has_the_commands_the_tests_above_read():
    assert len(COMMANDS) >= 10 and any("--seeds 1,2" in c for c in COMMANDS)


def test_compare_demo_runs_as_the_readme_shows():
    done = subprocess.run(
        [sys.executable, "examples/compare_demo.py"], capture_output=True, text=True, timeout=600, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "PASS three_dim float16" in done.stdout and "Traceback" not in done.stdout + done.stderr
