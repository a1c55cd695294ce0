"""The error heatmap: matplotlib (colour bar, index axes, legend) when installed, a plain PNG
otherwise; and the CLI prints where the picture is."""

from __future__ import annotations

import io
import struct
import sys
from pathlib import Path

import pytest
import torch

from tests.tasks import VECTOR_ADD_CANDIDATE, VECTOR_ADD_REFERENCE
from tools.accuracy import run_accuracy
from tools.cli import main
from tools.diagnosis import heatmap
from tools.models.accuracy import RunAccuracyRequest


def _inputs(rows=300, cols=500):
    gen = torch.Generator().manual_seed(0)
    rel = torch.rand(rows, cols, generator=gen, dtype=torch.float64) * 1e-4
    rel[:64, :64] = 0.5  # one bad tile
    nan = torch.zeros(rows, cols, dtype=torch.bool)
    nan[200:210, 300:320] = True
    unwritten = torch.zeros(rows, cols, dtype=torch.bool)
    unwritten[-20:, -40:] = True
    return rel, nan, unwritten


def _size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def test_plain_png_without_any_plotting_library():
    png = heatmap.render_plain(*_inputs(), tile=64)
    width, height = _size(png)
    assert width >= 256 and height >= 256


def test_render_falls_back_to_the_plain_png_when_matplotlib_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    assert heatmap.render(*_inputs(), tile=64) == heatmap.render_plain(*_inputs(), tile=64)


def test_matplotlib_heatmap_has_a_colour_bar_axes_and_the_special_colours():
    pytest.importorskip("matplotlib")
    from matplotlib.image import imread

    png = heatmap.render(*_inputs(), tile=64)
    assert png != heatmap.render_plain(*_inputs(), tile=64)
    width, height = _size(png)
    assert width > 500 and height > 400  # room for the colour bar and the axes' labels
    pixels = imread(io.BytesIO(png))[..., :3]
    magenta = (pixels[..., 0] > 0.95) & (pixels[..., 1] < 0.05) & (pixels[..., 2] > 0.95)
    yellow = (pixels[..., 0] > 0.9) & (pixels[..., 1] > 0.8) & (pixels[..., 2] < 0.3)
    assert magenta.sum() > 20 and yellow.sum() > 100  # NaN mismatches; the bad tile (and the bar's top)


def test_cli_explain_prints_the_heatmap_file(capsys):
    bad = VECTOR_ADD_CANDIDATE.replace("x + y, mask=mask", "x + y * 1.5, mask=mask")
    run = run_accuracy(
        RunAccuracyRequest(reference=VECTOR_ADD_REFERENCE, candidate=bad, backend="cpu", num_seeds=1, determinism="off")
    )
    assert main(["explain", "--run", run.run_id]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("heatmap: "))
    path = Path(line.split("heatmap: ", 1)[1].split(" (", 1)[0])
    assert path.is_file() and path.name == "heatmap.png" and _size(path.read_bytes())[0] >= 256


def test_the_text_map_marks_error_levels_nan_and_unwritten_cells():
    rel = torch.zeros(8, 8)
    rel[0, 0], rel[1, 1] = 0.5, 5e-3
    nan = torch.zeros(8, 8, dtype=torch.bool)
    nan[2, 2] = True
    unwritten = torch.zeros(8, 8, dtype=torch.bool)
    unwritten[7, :] = True
    header, *rows = heatmap.render_text(rel, nan, unwritten).splitlines()
    assert header.startswith("8 x 8, a cell is 1 x 1 element(s)")
    assert rows[0][0] == "#" and rows[1][1] == "+" and rows[2][2] == "N" and rows[7] == "u" * 8 and rows[3] == "." * 8
