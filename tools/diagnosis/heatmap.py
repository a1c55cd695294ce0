"""The error heatmap: a PNG of where the output is wrong.

The output is viewed as 2-D (rows = all leading dims, columns = the last), max-pooled to at most
256 x 256 cells, and colored by log10 of the relative error from dark (1e-8 or less) to bright
yellow (1 or more). Magenta: NaN where the golden is not (or the reverse). White: never written
(the poison survived). Grey lines: the tile grid, when the failure lines up with a block size.

With matplotlib installed (the `plot` extra) the picture has a colour bar, row and column index
axes and a legend; without it a plain PNG of the same cells is written by hand.
"""

from __future__ import annotations

import math
import struct
import zlib

import torch

MAX_CELLS = 256
MIN_PIXELS = 256
_NAN = (255, 0, 255)
_UNWRITTEN = (255, 255, 255)
_GRID = (128, 128, 128)
# dark blue -> teal -> green -> yellow, by log10(rel err) from -8 to 0
_STOPS = [(0.0, (20, 20, 60)), (0.35, (30, 100, 140)), (0.7, (60, 170, 90)), (1.0, (250, 230, 40))]


def _color(x: float) -> tuple[int, int, int]:
    for (x0, c0), (x1, c1) in zip(_STOPS, _STOPS[1:], strict=False):
        if x <= x1:
            t = 0.0 if x1 == x0 else (x - x0) / (x1 - x0)
            red, green, blue = (int(round(a + (b - a) * t)) for a, b in zip(c0, c1, strict=True))
            return red, green, blue
    return _STOPS[-1][1]


def _unit(color: tuple[int, int, int]) -> tuple[float, float, float]:
    """An 8-bit RGB colour as matplotlib's 0..1 floats."""
    return color[0] / 255, color[1] / 255, color[2] / 255


def _png(pixels: list[list[tuple[int, int, int]]]) -> bytes:
    height, width = len(pixels), len(pixels[0])
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")


def _pool(t: torch.Tensor, rows: int, cols: int) -> tuple[torch.Tensor, int, int]:
    """Max-pool a 2-D tensor to at most rows x cols cells (NaN-free input); also the pooling factors."""
    r, c = t.shape
    fr, fc = math.ceil(r / rows), math.ceil(c / cols)
    padded = torch.nn.functional.pad(
        t, (0, fc * math.ceil(c / fc) - c, 0, fr * math.ceil(r / fr) - r), value=float("-inf")
    )
    return padded.reshape(padded.shape[0] // fr, fr, padded.shape[1] // fc, fc).amax(dim=(1, 3)), fr, fc


def _cells(
    rel_error: torch.Tensor, nan_mismatch: torch.Tensor, unwritten: torch.Tensor
) -> tuple[torch.Tensor, int, int]:
    """Pooled cells: 0..1 = log10 rel error from -8 to 0; 2 = NaN mismatch; 3 = never written."""
    score = torch.log10(rel_error.to(torch.float64).nan_to_num(0.0).clamp(min=1e-12))
    score = ((score + 8.0) / 8.0).clamp(0.0, 1.0)
    score = torch.where(nan_mismatch, 2.0, score)  # 2: NaN mismatch
    if unwritten.numel():
        score = torch.where(unwritten, 3.0, score)  # 3: never written
    return _pool(score, MAX_CELLS, MAX_CELLS)


def readable_image() -> bool:
    """Whether render() makes a picture with axes and a scale (matplotlib is installed)."""
    try:
        import matplotlib  # noqa: F401 - optional: the `plot` extra
    except ImportError:
        return False
    return True


def render(
    rel_error: torch.Tensor, nan_mismatch: torch.Tensor, unwritten: torch.Tensor, tile: int | None = None
) -> bytes:
    """All three are 2-D and of one shape; returns PNG bytes (matplotlib when installed)."""
    try:
        import matplotlib  # noqa: F401 - optional: the `plot` extra
    except ImportError:
        return render_plain(rel_error, nan_mismatch, unwritten, tile)
    return render_matplotlib(rel_error, nan_mismatch, unwritten, tile)


def render_matplotlib(
    rel_error: torch.Tensor, nan_mismatch: torch.Tensor, unwritten: torch.Tensor, tile: int | None = None
) -> bytes:
    """The heatmap with a colour bar, index axes and a legend for the special cells."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.colors import LinearSegmentedColormap
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    cells, fr, fc = _cells(rel_error, nan_mismatch, unwritten)
    rows, cols = rel_error.shape
    values = cells.numpy()
    special = values >= 2
    error = (values.clip(0.0, 1.0) * 8.0) - 8.0  # back to log10(rel error)
    cmap = LinearSegmentedColormap.from_list("rel_error", [(x, _unit(c)) for x, c in _STOPS])
    overlay = [[(0.0, 0.0, 0.0, 0.0)] * values.shape[1] for _ in range(values.shape[0])]
    for i, j in zip(*special.nonzero(), strict=True):
        color = _UNWRITTEN if values[i, j] >= 3 else _NAN
        overlay[i][j] = (*_unit(color), 1.0)

    figure = Figure(figsize=(7.0, 5.5), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    extent = (0, cols, rows, 0)  # axes in element indices of the 2-D view, not in cells
    image = ax.imshow(error, cmap=cmap, vmin=-8.0, vmax=0.0, extent=extent, interpolation="nearest", aspect="auto")
    if special.any():
        ax.imshow(overlay, extent=extent, interpolation="nearest", aspect="auto")
    if tile:
        for r in range(tile, rows, tile):
            ax.axhline(r, color=_unit(_GRID), linewidth=0.6)
        for c in range(tile, cols, tile):
            ax.axvline(c, color=_unit(_GRID), linewidth=0.6)
    bar = figure.colorbar(image, ax=ax)
    bar.set_label("log10 relative error |actual - golden| / (|golden| + eps)")
    ax.set_xlabel("column (last dimension)")
    ax.set_ylabel("row (leading dimensions flattened)")
    pooled = f", max over {fr} x {fc} blocks" if fr > 1 or fc > 1 else ""
    ax.set_title(f"relative error, {rows} x {cols}{pooled}", fontsize=10)
    legend = [
        Patch(facecolor=_unit(c), edgecolor="black", label=label)
        for c, label, code in ((_NAN, "NaN mismatch", 2), (_UNWRITTEN, "never written", 3))
        if (values == code).any()
    ]
    if legend:
        ax.legend(handles=legend, loc="upper right", fontsize=8, framealpha=0.9, edgecolor="black")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def render_plain(
    rel_error: torch.Tensor, nan_mismatch: torch.Tensor, unwritten: torch.Tensor, tile: int | None = None
) -> bytes:
    """The same cells as a bare PNG, written without any plotting library."""
    cells, fr, fc = _cells(rel_error, nan_mismatch, unwritten)
    h, w = cells.shape
    scale = max(1, math.ceil(MIN_PIXELS / max(h, w)))
    grid_rows = {i for i in range(h) if tile and (i * fr) % tile == 0 and i} if tile else set()
    grid_cols = {j for j in range(w) if tile and (j * fc) % tile == 0 and j} if tile else set()
    values = cells.tolist()
    pixels = []
    for i in range(h):
        row = []
        for j in range(w):
            v = values[i][j]
            color = _UNWRITTEN if v >= 3 else _NAN if v >= 2 else _color(max(0.0, v))
            if (i in grid_rows or j in grid_cols) and color not in (_UNWRITTEN, _NAN):
                color = _GRID
            row.extend([color] * scale)
        pixels.extend([row] * scale)
    return _png(pixels)


TEXT_ROWS, TEXT_COLS = 16, 48
#: log10 relative error at or above which a text cell is marked: 1e-3 ('+') and 1e-1 ('#')
TEXT_MARKS = ((-1.0, "#"), (-3.0, "+"))


def render_text(rel_error: torch.Tensor, nan_mismatch: torch.Tensor, unwritten: torch.Tensor) -> str:
    """The same map as text, for clients that show no images: each character a cell (max-pooled):
    '.' error below 1e-3, '+' from 1e-3, '#' from 1e-1, 'N' a NaN where the golden has none (or the
    reverse), 'u' never written; a header says the shape and what a cell spans."""
    score = torch.log10(rel_error.to(torch.float64).nan_to_num(0.0).clamp(min=1e-12))
    code = torch.zeros_like(score)
    for level, (bound, _) in enumerate(reversed(TEXT_MARKS), start=1):
        code = torch.where(score >= bound, float(level), code)
    code = torch.where(nan_mismatch, 10.0, code)
    if unwritten.numel():
        code = torch.where(unwritten, 11.0, code)
    pooled, fr, fc = _pool(code, TEXT_ROWS, TEXT_COLS)
    symbols = {0: ".", 10: "N", 11: "u"} | {i: mark for i, (_, mark) in enumerate(reversed(TEXT_MARKS), start=1)}
    rows, cols = rel_error.shape
    header = (
        f"{rows} x {cols}, a cell is {fr} x {fc} element(s): . < 1e-3 <= + < 1e-1 <= #, N NaN mismatch, u unwritten"
    )
    body = ["".join(symbols.get(int(v), "?") for v in row.tolist()) for row in pooled]
    return "\n".join([header, *body])
