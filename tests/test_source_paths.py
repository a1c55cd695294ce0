"""Path arguments through the real MCP SDK client: read only under the server's roots, symlinks resolved,
nothing echoed from outside, and "no such file" only inside the roots."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from mcp import Client
from mcp.types import ListRootsResult, Root

from mcp_server.app import build_server
from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools import sources
from tools.errors import ToolInputError

pytestmark = pytest.mark.anyio
SECRET = "hunter2-the-secret-line"
FAST = {"backend": "cpu", "num_seeds": 1, "determinism_check": False}


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def layout(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n")
    (outside / "secret.py").write_text(f"{SECRET} (\n")  # a syntax error would echo this line
    (root / "innocent_link.py").symlink_to(outside / "secret.txt")
    (root / "py_link.py").symlink_to(outside / "secret.py")
    (root / "ref.py").write_text(VECTOR_ADD_REFERENCE)
    (root / "broken.py").write_text("def broken(:\n")
    return root, outside


async def call(client, **arguments):
    result = await client.call_tool("run_accuracy", {**FAST, **arguments})
    return result.is_error, result.content[0].text, result.structured_content


async def test_symlinks_and_paths_outside_the_roots_are_refused_without_echo(layout):
    root, outside = layout
    async with Client(build_server(roots=(root,)), mode="legacy") as client:
        messages = []
        for candidate in (
            root / "innocent_link.py",
            root / "py_link.py",
            outside / "secret.py",
            outside / "absent.py",
            root / ".." / "outside" / "secret.py",
        ):
            is_error, text, _ = await call(client, reference=str(root / "ref.py"), candidate=str(candidate))
            assert is_error and "not readable by this server" in text and SECRET not in text, text
            messages.append(text.replace(str(candidate), "PATH"))
        assert len(set(messages)) == 1  # existing or not, the same words
        is_error, text, _ = await call(client, reference=str(root / "ref.py"), candidate=str(root / "absent.py"))
        assert is_error and "no such file" in text
        is_error, text, data = await call(client, reference=str(root / "ref.py"), candidate=str(root / "broken.py"))
        assert not is_error and data["verdict"] == "compile_error" and data["error"]["source_line"] == "def broken(:"


async def test_client_declared_roots_widen_on_stdio_only(layout, tmp_path):
    root, _ = layout
    client_dir = tmp_path / "client"
    client_dir.mkdir()
    (client_dir / "cand.py").write_text(VECTOR_ADD_CANDIDATE)

    async def roots(context):
        return ListRootsResult(roots=[Root(uri=client_dir.as_uri())])

    for client_roots, allowed in ((True, True), (False, False)):
        async with Client(
            build_server(roots=(root,), client_roots=client_roots), mode="legacy", list_roots_callback=roots
        ) as client:
            is_error, text, data = await call(
                client, reference=str(root / "ref.py"), candidate=str(client_dir / "cand.py")
            )
            assert (not is_error and data["verdict"] == "pass") if allowed else (is_error and "not readable" in text), (
                text
            )


def test_unconfined_callers_read_what_they_name(layout):
    root, outside = layout
    text, name = sources.resolve(str(outside / "secret.py"), "candidate")  # the CLI: the user's own files
    assert SECRET in text and name == str(outside / "secret.py")
    with sources.confined((root,)), pytest.raises(ToolInputError, match="not readable"):
        sources.resolve(str(outside / "secret.py"), "candidate")
    cwd = os.getcwd()
    try:
        os.chdir(root)
        assert sources.server_roots() == (Path(root).resolve(),)
        with sources.confined(sources.server_roots()):
            assert sources.resolve("ref.py", "reference")[0] == VECTOR_ADD_REFERENCE
    finally:
        os.chdir(cwd)
    with pytest.raises(sources.RootsError, match="not a directory"):
        sources.server_roots([str(outside / "secret.txt")])


def test_a_confined_read_never_follows_a_symlink_swapped_in_after_the_check(tmp_path):
    """The state a racing process leaves between the path check and the read: the checked name (or a
    directory on its way) is now a symlink to a file outside the roots. The read refuses it."""
    root = (tmp_path / "root").resolve()
    (root / "sub").mkdir(parents=True)
    secret = tmp_path / "secret.py"
    secret.write_text("SECRET = 'host file'\n")
    checked = root / "sub" / "candidate.py"
    checked.write_text("x = 1\n")
    assert sources._read_once(checked, [root]) == b"x = 1\n"
    checked.unlink()
    checked.symlink_to(secret)
    with pytest.raises(OSError):
        sources._read_once(checked, [root])
    checked.unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "candidate.py").write_text("SECRET = 'via a directory link'\n")
    with pytest.raises(OSError):
        sources._read_once(root / "sub" / "candidate.py", [root])


def test_a_symlink_flipped_during_reads_never_leaks_the_target(tmp_path):
    """A second process flips a name under the root between a .py file and a link to a file outside it
    (bounded: 2 s); every answer is the file's text or a refusal, never the outside file's."""
    import threading
    import time

    root = (tmp_path / "root").resolve()
    root.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text("LEAKED = 1\n")
    real, name = root / "real.py", root / "flip.py"
    real.write_text("x = 1\n")
    stop = threading.Event()

    def flip():
        while not stop.is_set():
            for target in (real, outside):
                tmp = root / "tmp_link"
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                tmp.symlink_to(target) if target is outside else os.link(target, tmp)
                os.replace(tmp, name)

    flipper = threading.Thread(target=flip, daemon=True)
    flipper.start()
    answers = set()
    deadline = time.monotonic() + 2.0
    try:
        with sources.confined([root]):
            while time.monotonic() < deadline:
                try:
                    answers.add(sources.resolve(str(name), "candidate")[0])
                except ToolInputError as exc:
                    answers.add(type(exc).__name__)
    finally:
        stop.set()
        flipper.join(5)
    assert not any("LEAKED" in a for a in answers), answers


async def test_the_servers_home_is_never_a_source_even_under_a_root(tmp_path, monkeypatch):
    """Sandboxed jobs write into the home (their Triton caches): a job could plant a file or flip a link
    there that a client then names. A root holding the home does not open it."""
    home = tmp_path / "home"
    cache = home / "sandbox-cuda" / "triton-cache" / "abc"
    cache.mkdir(parents=True)
    (cache / "planted.py").write_text(VECTOR_ADD_CANDIDATE)
    (tmp_path / "ref.py").write_text(VECTOR_ADD_REFERENCE)
    monkeypatch.setenv("KERNEL_EVAL_HOME", str(home))
    with sources.confined((tmp_path,)):
        assert sources.resolve(str(tmp_path / "ref.py"), "reference")[0] == VECTOR_ADD_REFERENCE
        with pytest.raises(ToolInputError, match="not readable by this server"):
            sources.resolve(str(cache / "planted.py"), "candidate")
