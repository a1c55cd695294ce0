"""The interpreter's pace: a launch that cannot end before the job's deadline is stopped at once, with the
estimate, instead of running into the timeout (a 4096 x 8192 elementwise kernel takes minutes on the
interpreter, which runs every program in Python).

The interpreter sets the grid, then each program's index before running it: after PACE_OBSERVE_S of a
launch, the programs done so far give its rate, and a launch whose remaining programs at that rate end
past the deadline raises InterpreterLimitation (verdict `unsupported`: the backend's limit, not the
kernel's bug) naming the grid, the rate and the time it would take."""

from __future__ import annotations

import time

#: A launch is judged once it has run this long (a rate from less is noise, and a launch this short never
#: matters): well under any useful timeout.
PACE_OBSERVE_S = 2.0
#: The projected end must pass the deadline by this factor (the first programs of a launch can be slower).
PACE_MARGIN = 1.5

_deadline: float | None = None


def set_deadline(timeout_s: float | None) -> None:
    """The job's deadline, from its start (the zygote kills it then)."""
    global _deadline
    _deadline = None if timeout_s is None else time.monotonic() + float(timeout_s)


class _Launch:
    def __init__(self, grid: tuple[int, int, int]):
        self.grid = grid
        self.total = grid[0] * grid[1] * grid[2]
        self.done = 0
        self.started = time.monotonic()

    def step(self) -> None:
        self.done += 1
        if _deadline is None or self.done & 15:  # every 16 programs: the clock costs little
            return
        now = time.monotonic()
        elapsed = now - self.started
        if elapsed < PACE_OBSERVE_S:
            return
        rate = self.done / elapsed
        left = (self.total - self.done) / rate
        if now + left / PACE_MARGIN > _deadline:
            from sandbox.harness.interpreter_compat import InterpreterLimitation

            raise InterpreterLimitation(
                f"a launch of {self.total:,} programs (grid {self.grid[0]} x {self.grid[1]} x {self.grid[2]})",
                f"the interpreter runs {rate:,.0f} programs/s here, so it needs about {self.total / rate:,.0f} s, "
                f"and the job has {max(0.0, _deadline - now):,.0f} s left of its timeout_s",
                "run smaller shapes (the same kernel at a smaller size) on cpu, or backend='cuda' for this size",
            )


def install() -> None:
    from triton.runtime import interpreter

    builder = interpreter.InterpreterBuilder
    original_dim, original_idx = builder.set_grid_dim, builder.set_grid_idx
    current: list[_Launch] = []

    def set_grid_dim(self, nx, ny, nz):
        current[:] = [_Launch((nx, ny, nz))]
        return original_dim(self, nx, ny, nz)

    def set_grid_idx(self, x, y, z):
        if current:
            current[0].step()
        return original_idx(self, x, y, z)

    builder.set_grid_dim = set_grid_dim  # pyright: ignore[reportAttributeAccessIssue] (a patch)
    builder.set_grid_idx = set_grid_idx  # pyright: ignore[reportAttributeAccessIssue] (a patch)
