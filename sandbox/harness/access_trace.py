"""Which input elements each output element was computed from, by the candidate's own loads (cpu).

On the Triton interpreter every load and store goes through InterpreterBuilder with the address of
every lane, while the kernel's Python frame is on the stack: AccessTrace records, per program (one
launch's grid point), which elements of which forward input each load line read, and per element
of every tensor a kernel wrote, which program stored it last and from which line. A program that
reads what another program stored (a workspace, an atomically accumulated output) depends on that
program: the elements an output element was computed from are the reads of its writer and of the
writers it read from, transitively. Reads of memory no kernel wrote and no input holds (a tensor
the forward made with torch ops) are marked unknown: nothing is claimed about such an element.

Per program it also records where the first Inf or NaN was made from finite operands (the line, the
operation, the operands of one such lane): an overflow or a 0/0 is a value event no load or store
shows. Lanes masked off later are not told apart, so the parent cites it only for wrong non-finite
outputs that program stored. Likewise where it first wrapped a signed integer of 32 bits or fewer (an add,
subtract or multiply whose exact result the type cannot hold): the line an int32 index or id overflows at.

Programs are the unit: what one lane read is not separated from what its neighbours read, so the
reads of an output element are a superset of its true dependencies. Beside that, lanes are aligned
where the tiles allow it: a store whose tile has the shape of a load's in the same program (or a
shape the load's broadcasts to, as a bias row's) stored, at each lane, a value computed at the same
lane of that load, so each stored element gets the element that lane read, per load line (the last
load of that line before the store). And per load line, which kernel variables held the index of
each dimension of what it read (sandbox.harness.index_names). explain_failure compares them
with the reference's (autograd in float64, sandbox.harness.reference): an element the reference
needs that the writing program never read is a read at the wrong address, with the line that read
instead. And at the store of each sampled output element, the kernel's floating locals at the lane that
stored it (what tools/diagnosis/stored_value.py relates the error to: a term or factor the stored value lacks).
The trace is evidence for the diagnosis only; verdicts never depend on it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import torch

from sandbox.harness import common, index_names

#: Bounds on what one forward records; past them the trace is marked truncated (no claim is made).
MAX_RECORDED_ELEMENTS = 30_000_000
MAX_PROGRAMS = 200_000
#: Per sampled output element and (input, line): at most this many read elements returned.
MAX_RETURNED_READS = 8192
#: The input index of regions that hold known values the comparison ignores (the model's parameters).
KNOWN = -1
#: Programs followed back through the workspaces an output's writer read.
MAX_CLOSURE_PROGRAMS = 4096
#: Load lines of one program remembered for aligning a store's lanes with them, and kept per written tensor.
MAX_ALIGNED_LINES = 8
#: Written tensors up to this many elements keep, per load line, the element each of theirs was aligned with.
MAX_ALIGNED_ELEMENTS = 4_000_000
#: Floating locals of the kernel's frame kept per store of a sampled element (the first ones, in frame order).
MAX_STORE_LOCALS = 64
#: The interpreter's floating operations whose result can be Inf or NaN from finite operands.
VALUE_OPS = (
    "create_fadd",
    "create_fsub",
    "create_fmul",
    "create_fdiv",
    "create_precise_divf",
    "create_approx_divf",
    "create_frem",
    "create_fma",
    "create_exp",
    "create_exp2",
    "create_log",
    "create_log2",
    "create_sqrt",
    "create_precise_sqrt",
    "create_rsqrt",
    "create_sin",
    "create_cos",
    "create_erf",
    "create_fp_trunc",
    "create_fp_to_fp",
    "create_dot",
    "create_extern_elementwise",
)
#: The interpreter's integer operations that wrap silently (numpy's), with their exact counterparts.
WRAPPING_OPS = {"create_add": np.add, "create_sub": np.subtract, "create_mul": np.multiply}


@dataclass
class _Region:
    start: int  # bytes
    end: int
    element_size: int
    key: int  # index into AccessTrace.regions
    input_index: int | None  # the forward input it holds, KNOWN, or None (a tensor the forward made)
    #: an input's shape and storage offset (elements), where it is contiguous (coordinates are read from them)
    shape: tuple[int, ...] | None = None
    offset: int = 0
    #: an input that is a strided view: per storage element, the view's (row-major) element there, -1 in a gap
    flat_of: np.ndarray | None = None
    #: per element: the program that stored it last (-1: none) and that store's line; made at the first store
    writer: np.ndarray | None = None
    line: np.ndarray | None = None
    #: per element: the value a plain store wrote there last, as 64 bits (AccessTrace._bits)
    bits: np.ndarray | None = None
    #: per element: the program that loaded it last (-1: none), for a tensor no forward input holds
    loaded: np.ndarray | None = None
    #: (input, load line) -> per element: the element of that input its storing lane's load read (-1: none)
    aligned: dict[tuple[int, int], np.ndarray] | None = None
    #: the sampled elements of the tensors launches were given in it (sampled flat index + storage offset)
    wanted: np.ndarray | None = None

    def written(self) -> tuple[np.ndarray, np.ndarray]:
        if self.writer is None or self.line is None:
            count = (self.end - self.start) // self.element_size
            self.writer, self.line = np.full(count, -1, dtype=np.int64), np.zeros(count, dtype=np.int32)
        return self.writer, self.line


class AccessTrace:
    """`source_path`: the candidate's file (its frames give the lines); `samples`: the output elements
    to report, [output position, flat index] each."""

    def __init__(self, source_path: str, samples: list[list[int]]):
        self.source_path = source_path
        self.samples = samples
        self.regions: list[_Region] = []
        self._starts = np.zeros(0, dtype=np.uint64)
        self._order: list[int] = []  # region keys sorted by start
        self.programs: list[tuple[int, tuple[int, int, int], str]] = []  # (launch, grid point, kernel)
        self.reads: dict[tuple[int, int, int], list[np.ndarray]] = {}  # (program, input, line) -> elements
        self.parents: dict[int, set[int]] = {}  # program -> programs whose stores it read
        self.unknown: set[int] = set()  # programs that read memory of unknown provenance
        self.recorded = 0
        self.truncated = False
        self.launches = 0
        self.stopped = False
        self._program = -1
        self._kernel = "?"
        #: program -> the first Inf / NaN it made from finite operands: (line, operation, lanes, operands of one,
        #: "Inf" or "NaN")
        self.first_nonfinite: dict[int, tuple[int, str, int, list[float], str]] = {}
        #: program -> the first signed integer it wrapped: (line, operation, lanes, operands of one, "wrap")
        self.first_wrap: dict[int, tuple[int, str, int, list[float], str]] = {}
        #: this program's last load of each line: line -> (input, the element each lane read, -1 where none)
        self._loaded: dict[int, tuple[int, np.ndarray]] = {}
        #: (load line, input) -> the variables that hold the index of each dimension it read
        self.index_names: dict[tuple[int, int], index_names.IndexNames] = {}
        #: the sampled flat indices (an output's element is its storage's when it starts at the storage)
        self._sampled = np.unique(np.array([flat for _, flat in samples], dtype=np.int64))
        #: (region, element) -> the kernel's floating locals at the lane that last stored that element
        self.at_store: dict[tuple[int, int], dict[str, float]] = {}
        #: (region, store line) -> [how many stored elements another store of the same launch had given another value
        #: (_collide), the first such element, the program that stored it first, the second, the first one's line]
        self.collisions: dict[tuple[int, int], list[int]] = {}
        self._launch_first = 0  # the first program of the running launch

    # -- regions ----------------------------------------------------------------------------------
    def add_input(self, tensor: torch.Tensor, index: int) -> None:
        self._add(tensor, index)

    def add_known(self, tensors: list[torch.Tensor]) -> None:
        """Tensors whose values are the task's (the model's parameters): reading them is no unknown read."""
        for t in tensors:
            self._add(t, KNOWN)

    def add_launch_arguments(self, args: tuple, kwargs: dict) -> None:
        for value in (*args, *kwargs.values()):
            if isinstance(value, torch.Tensor) and value.device.type == "cpu":
                self._add(value, None)
                self._want(value)

    def _want(self, tensor: torch.Tensor) -> None:
        """A tensor a kernel may write: its sampled elements, by where they sit in its storage (an output
        allocated with guard margins starts past its storage's start)."""
        region = self._find(tensor.untyped_storage().data_ptr())
        if region is None or region.input_index is not None or not self._sampled.size:
            return
        offset = int(tensor.storage_offset())
        wanted = self._sampled + offset
        region.wanted = wanted if region.wanted is None else np.union1d(region.wanted, wanted)

    def _add(self, tensor: torch.Tensor, input_index: int | None) -> None:
        storage = tensor.untyped_storage()
        start, size = storage.data_ptr(), tensor.element_size()
        if storage.nbytes() == 0 or self._find(start) is not None:
            return  # empty, or known already (an input, a tensor of an earlier launch)
        end = start + storage.nbytes()
        if any(r.start < end and start < r.end for r in self.regions):
            return  # overlaps another region: ambiguous, left out
        region = _Region(start, end, size, len(self.regions), input_index)
        if input_index is not None and input_index >= 0 and tensor.is_contiguous():
            region.shape, region.offset = tuple(tensor.shape), int(tensor.storage_offset())
        elif input_index is not None and input_index >= 0 and min(tensor.stride(), default=0) >= 0:
            region.shape, region.flat_of = tuple(tensor.shape), _flat_of(tensor, (end - start) // size)
        self.regions.append(region)
        self._order = sorted(range(len(self.regions)), key=lambda k: self.regions[k].start)
        self._starts = np.array([self.regions[k].start for k in self._order], dtype=np.uint64)

    def _find(self, address: int) -> _Region | None:
        for r in self.regions:
            if r.start <= address < r.end:
                return r
        return None

    def _split(self, addresses: np.ndarray):
        """(region, element indices) for each region the addresses fall in."""
        for region, elements, _at in self._split_at(addresses):
            yield region, elements

    def _split_at(self, addresses: np.ndarray):
        """(region, element indices, their positions in `addresses`) for each region the addresses fall in."""
        if not self.regions or not addresses.size:
            return
        slot = np.searchsorted(self._starts, addresses, side="right") - 1
        for s in np.unique(slot):
            if s < 0:
                continue
            region = self.regions[self._order[int(s)]]
            at = np.nonzero(slot == s)[0]
            at = at[addresses[at] < np.uint64(region.end)]
            if at.size:
                elements = (addresses[at] - np.uint64(region.start)) // np.uint64(region.element_size)
                yield region, elements.astype(np.int64), at

    # -- events -----------------------------------------------------------------------------------
    def _line(self) -> int:
        return common.candidate_line(self.source_path, depth=3)

    def start_launch(self, kernel: str) -> None:
        self.launches += 1
        self._kernel = kernel
        self._launch_first = len(self.programs)

    def stop(self) -> None:
        """Record nothing more (the forward that was to be traced is over)."""
        self.stopped = True
        self._program = -1

    def start_program(self, point: tuple[int, int, int]) -> None:
        if self.stopped:
            return
        if len(self.programs) >= MAX_PROGRAMS:
            self.truncated = True
            self._program = -1
            return
        self.programs.append((self.launches, point, self._kernel))
        self._program = len(self.programs) - 1
        self._loaded = {}

    @staticmethod
    def _lanes(ptrs, mask) -> np.ndarray:
        lanes = np.asarray(ptrs, dtype=np.uint64)
        if mask is not None:
            lanes = lanes[np.broadcast_to(np.asarray(mask, dtype=bool), lanes.shape)]
        return lanes.ravel()

    def load(self, ptrs, mask) -> None:
        program = self._program
        if program < 0 or self.truncated or self.stopped:
            return
        lanes = self._lanes(ptrs, mask)
        line = self._line()
        self._remember(line, ptrs, mask)
        for region, elements in self._split(lanes):
            if region.input_index == KNOWN:
                continue
            if region.input_index is not None:
                if region.flat_of is not None:  # a view: its elements, not storage offsets (a gap is none of them)
                    elements = region.flat_of[elements]
                    elements = elements[elements >= 0]
                self._record(program, region.input_index, line, elements)
                continue
            writers = region.written()[0][elements]
            if region.loaded is None:
                region.loaded = np.full(region.written()[0].shape, -1, dtype=np.int64)
            region.loaded[elements] = program
            if (writers < 0).any():
                self.unknown.add(program)
            self.parents.setdefault(program, set()).update(int(w) for w in np.unique(writers[writers >= 0]))

    def _record(self, program: int, input_index: int, line: int, elements: np.ndarray) -> None:
        self.recorded += elements.size
        if self.recorded > MAX_RECORDED_ELEMENTS:
            self.truncated = True
            return
        self.reads.setdefault((program, input_index, line), []).append(np.unique(elements))

    def _tile(self, ptrs, mask) -> tuple[_Region, np.ndarray] | None:
        """The one region every unmasked lane falls in, and each lane's element of it (-1 where masked off)."""
        lanes = np.asarray(ptrs, dtype=np.uint64)
        valid = (
            np.ones(lanes.shape, dtype=bool) if mask is None else np.broadcast_to(np.asarray(mask, bool), lanes.shape)
        )
        if not valid.any():
            return None
        region = self._find(int(lanes[valid].min()))
        if region is None or int(lanes[valid].max()) >= region.end:
            return None
        offsets = (lanes - np.uint64(region.start)) // np.uint64(region.element_size)
        return region, np.where(valid, offsets.astype(np.int64), -1)

    def _remember(self, line: int, ptrs, mask) -> None:
        """A load of a forward input: kept for the stores of this program to align with, and its index names."""
        tile = self._tile(ptrs, mask)
        if tile is None or tile[0].input_index is None or tile[0].input_index < 0:
            return
        region, elements = tile
        index = int(region.input_index)  # type: ignore[arg-type] - checked above
        if region.flat_of is not None:
            elements = np.where(elements >= 0, region.flat_of[np.maximum(elements, 0)], -1)
        elif region.shape is not None:
            elements = np.where(elements >= 0, elements - region.offset, -1)
        if region.shape is not None:
            names = self.index_names.get((line, index))
            if names is None:
                names = self.index_names[(line, index)] = index_names.IndexNames(len(region.shape))
            frame = common.candidate_frame(self.source_path, depth=4)
            if frame is not None:
                names.check(region.shape, elements, frame.f_locals)
        if line in self._loaded or len(self._loaded) < MAX_ALIGNED_LINES:
            self._loaded[line] = (index, elements)

    def _align(self, tile: tuple[_Region, np.ndarray] | None) -> None:
        """A store (its tile: _tile): each stored element gets, per load line of this program whose tile broadcasts
        to the store's, the element the same lane of that load read."""
        if tile is None or tile[0].input_index is not None:
            return
        region, stored = tile
        if (region.end - region.start) // region.element_size > MAX_ALIGNED_ELEMENTS:
            return
        if region.aligned is None:
            region.aligned = {}
        valid = stored >= 0
        for read in region.aligned.values():
            read[stored[valid]] = -1  # stored anew: what an earlier program aligned no longer holds
        for line, (index, elements) in self._loaded.items():
            try:
                lanes = np.broadcast_to(elements, stored.shape)
            except ValueError:
                continue  # another tile (a reduction's operand)
            key = (index, line)
            if key not in region.aligned:
                if len(region.aligned) >= MAX_ALIGNED_LINES:
                    continue
                region.aligned[key] = np.full((region.end - region.start) // region.element_size, -1, dtype=np.int64)
            region.aligned[key][stored[valid]] = lanes[valid]

    def store(self, ptrs, mask, value=None, accumulate: bool = False) -> None:
        """`value`: what a plain store writes (broadcast to `ptrs`); an atomic update (`accumulate`) reads what is
        there."""
        program = self._program
        if program < 0 or self.stopped:
            return
        line = self._line()
        lanes = self._lanes(ptrs, mask)
        bits = None if accumulate or value is None else self._bits(np.broadcast_to(value, np.shape(ptrs)), mask)
        for region, elements, at in self._split_at(lanes):
            writer, lines = region.written()
            if accumulate:
                writers = writer[elements]
                self.parents.setdefault(program, set()).update(int(w) for w in np.unique(writers[writers >= 0]))
            elif bits is not None:
                self._collide(region, line, program, elements, bits[at])
            writer[elements] = program
            lines[elements] = line
        if not accumulate:
            tile = self._tile(ptrs, mask)
            self._align(tile)
            self._keep_locals(tile)

    def _bits(self, values: np.ndarray, mask) -> np.ndarray | None:
        """The stored values of the unmasked lanes (in _lanes' order) as comparable 64-bit patterns: equal values,
        equal bits (NaNs by payload); None for values of no numeric kind."""
        kind = np.asarray(values).dtype.kind
        if kind not in "fiub":
            return None
        wide = np.asarray(values).astype(np.float64 if kind == "f" else np.int64)
        if mask is not None:
            wide = wide[np.broadcast_to(np.asarray(mask, dtype=bool), wide.shape)]
        return wide.ravel().view(np.uint64)

    def _collide(self, region: _Region, line: int, program: int, elements: np.ndarray, bits: np.ndarray) -> None:
        """Counts the elements this store writes another value to than a store of the same launch wrote there
        already: another program's, another of this store's lanes', or another store line's of this program that
        did not read the element back (an update in place reads it). A launch whose store addresses are one-to-one
        writes each element once; a loop that stores its own elements again is the same line and program, and a
        scatter that writes one value twice, or a row's statistic every program of the row stores, collides
        harmlessly: none of these counts."""
        writer, lines = region.written()
        if region.bits is None:
            region.bits = np.zeros(writer.shape, dtype=np.uint64)
        before = writer[elements]
        read_back = region.loaded[elements] == program if region.loaded is not None else np.zeros(before.shape, bool)
        elsewhere = (before != program) | ((lines[elements] != line) & ~read_back)
        other = (before >= self._launch_first) & elsewhere & (region.bits[elements] != bits)
        again = elements[other]
        order = np.argsort(elements, kind="stable")
        ordered, ordered_bits = elements[order], bits[order]
        twice = (ordered[1:] == ordered[:-1]) & (ordered_bits[1:] != ordered_bits[:-1])
        doubled = np.unique(ordered[1:][twice])
        region.bits[elements] = bits
        count = int(again.size + doubled.size)
        if not count:
            return
        entry = self.collisions.setdefault((region.key, line), [0, -1, -1, -1, line])
        if entry[1] < 0:
            element = int(again[0]) if again.size else int(doubled[0])
            first, first_line = (int(writer[element]), int(lines[element])) if again.size else (program, line)
            entry[1:] = [element, first, program, first_line]
        entry[0] += count

    def _keep_locals(self, tile: tuple[_Region, np.ndarray] | None) -> None:
        """A store (its tile) of sampled elements: the kernel's floating locals (those that broadcast to the stored
        tile) at the lanes that stored them."""
        wanted = tile[0].wanted if tile is not None and tile[0].input_index is None else None
        if tile is None or wanted is None:
            return
        region, stored = tile[0], np.atleast_1d(tile[1])  # a scalar store's one lane too
        hit = (stored >= 0) & np.isin(stored, wanted)
        if not hit.any():
            return
        frame = common.candidate_frame(self.source_path, depth=2)
        if frame is None:
            return
        arrays = {}
        for name, local in frame.f_locals.items():
            data = getattr(getattr(local, "handle", None), "data", None)
            if not isinstance(data, np.ndarray) or data.dtype.kind != "f":
                continue
            try:
                arrays[name] = np.broadcast_to(data, stored.shape)
            except ValueError:
                continue  # another tile's (a reduction's operand)
            if len(arrays) >= MAX_STORE_LOCALS:
                break
        for lane in zip(*np.nonzero(hit), strict=True):
            values = {name: float(a[lane]) for name, a in arrays.items()}
            self.at_store[(region.key, int(stored[lane]))] = {k: v for k, v in values.items() if np.isfinite(v)}

    def value(self, operation: str, operands: tuple, result) -> None:
        """After a floating operation: record where this program first made Inf / NaN of finite operands."""
        program = self._program
        if program < 0 or self.stopped or program in self.first_nonfinite:
            return
        data = getattr(result, "data", None)
        if not isinstance(data, np.ndarray) or data.dtype.kind != "f":
            return
        made = ~np.isfinite(data)
        if not made.any():
            return
        arrays = [a.data for a in operands if isinstance(getattr(a, "data", None), np.ndarray)]
        for array in arrays:
            if array.dtype.kind != "f":
                continue
            try:
                made &= np.broadcast_to(np.isfinite(array), made.shape)
            except ValueError:  # another shape (a reduction's operand): it must be finite throughout
                if not np.isfinite(array).all():
                    return
        if not made.any():
            return
        lane = np.unravel_index(int(np.argmax(made)), made.shape)
        example = [v for v in (_at(a, made.shape, lane) for a in arrays if a.dtype.kind == "f") if v is not None]
        kind = "NaN" if np.isnan(data[lane]) else "Inf"
        self.first_nonfinite[program] = (
            self._line(),
            operation.removeprefix("create_"),
            int(made.sum()),
            example,
            kind,
        )

    def wrapped(self, operation: str, operands: tuple, result) -> None:
        """After an integer add / subtract / multiply: record where this program first wrapped a signed integer."""
        program = self._program
        if program < 0 or self.stopped or program in self.first_wrap:
            return
        data = getattr(result, "data", None)
        if not isinstance(data, np.ndarray) or data.dtype.kind != "i" or data.dtype.itemsize > 4:
            return
        arrays = [np.asarray(a.data) for a in operands if isinstance(getattr(a, "data", None), np.ndarray | np.generic)]
        if len(arrays) != 2 or any(a.dtype.kind not in "iub" for a in arrays):
            return
        exact = WRAPPING_OPS[operation](arrays[0].astype(np.int64), arrays[1].astype(np.int64))
        try:
            made = np.broadcast_to(exact, data.shape) != data
        except ValueError:
            return
        if not made.any():
            return
        lane = np.unravel_index(int(np.argmax(made)), made.shape)
        example = [v for v in (_at(a, made.shape, lane) for a in arrays) if v is not None]
        self.first_wrap[program] = (self._line(), operation.removeprefix("create_"), int(made.sum()), example, "wrap")

    def nonfinite_origin(self, program: int) -> dict | None:
        """Where `program`, or else the nearest program it read from, first made Inf / NaN of finite operands."""
        return self._origin(self.first_nonfinite, program)

    def wrap_origin(self, program: int) -> dict | None:
        """Where `program`, or else the nearest program it read from, first wrapped a signed integer."""
        return self._origin(self.first_wrap, program)

    def _origin(self, first: dict[int, tuple[int, str, int, list[float], str]], program: int) -> dict | None:
        seen, todo = {program}, [program]
        while todo and len(seen) <= MAX_CLOSURE_PROGRAMS:
            current = todo.pop(0)
            if current in first:
                line, operation, lanes, operands, kind = first[current]
                return {"line": line, "operation": operation, "lanes": lanes, "operands": operands[:3], "makes": kind}
            for parent in sorted(self.parents.get(current, ())):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        return None

    # -- the answer -------------------------------------------------------------------------------
    def writer_of(self, tensor: torch.Tensor, flat_index: int) -> tuple[int, int] | None:
        """(program, store line) of one element of a contiguous output, None if no kernel wrote it."""
        if not tensor.is_contiguous() or tensor.device.type != "cpu":
            return None
        address = tensor.data_ptr() + flat_index * tensor.element_size()
        region = self._find(address)
        if region is None:
            return None
        element = (address - region.start) // region.element_size
        if region.writer is None or region.line is None:
            return None
        program = int(region.writer[element])
        return (program, int(region.line[element])) if program >= 0 else None

    def aligned_of(self, tensor: torch.Tensor, flat_index: int) -> list[dict]:
        """Per (input, load line): the element the lane that stored this element of a contiguous output read."""
        if not tensor.is_contiguous() or tensor.device.type != "cpu":
            return []
        address = tensor.data_ptr() + flat_index * tensor.element_size()
        region = self._find(address)
        if region is None or not region.aligned:
            return []
        element = (address - region.start) // region.element_size
        return [
            {"input": index, "line": line, "element": int(read[element])}
            for (index, line), read in sorted(region.aligned.items())
            if read[element] >= 0
        ]

    def locals_at_store(self, tensor: torch.Tensor, flat_index: int) -> dict[str, float]:
        """The kernel's floating locals at the lane that last stored this element of a contiguous output."""
        if not tensor.is_contiguous() or tensor.device.type != "cpu":
            return {}
        address = tensor.data_ptr() + flat_index * tensor.element_size()
        region = self._find(address)
        if region is None:
            return {}
        return self.at_store.get((region.key, (address - region.start) // region.element_size), {})

    def sources(self, program: int) -> tuple[dict[tuple[int, int], np.ndarray], bool]:
        """The input elements `program` and the programs it read from read, per (input, line), and
        whether all of it is known (no read of unknown memory, no bound reached)."""
        seen, todo = {program}, [program]
        while todo and len(seen) <= MAX_CLOSURE_PROGRAMS:
            for parent in self.parents.get(todo.pop(), ()):
                if parent not in seen:
                    seen.add(parent)
                    todo.append(parent)
        complete = not self.truncated and not todo and not (seen & self.unknown)
        per_line: dict[tuple[int, int], list[np.ndarray]] = {}
        for (p, input_index, line), chunks in self.reads.items():
            if p in seen:
                per_line.setdefault((input_index, line), []).extend(chunks)
        return {k: np.unique(np.concatenate(v)) for k, v in per_line.items()}, complete

    def install(self) -> None:
        """Wrap the interpreter's loads, stores, atomics and grid points (after the other patches)."""
        from triton.runtime import interpreter

        builder = interpreter.InterpreterBuilder
        trace = self
        load, store = builder.create_masked_load, builder.create_masked_store
        rmw, cas, grid_idx = builder.create_atomic_rmw, builder.create_atomic_cas, builder.set_grid_idx
        launch = interpreter.GridExecutor.__call__

        @functools.wraps(launch)
        def grid_call(executor, *args, **kwargs):
            trace.start_launch(getattr(executor.fn, "__name__", "?"))
            trace.add_launch_arguments(args, kwargs)
            return launch(executor, *args, **kwargs)

        @functools.wraps(load)
        def create_masked_load(self, ptrs, mask, *args, **kwargs):
            trace.load(ptrs.data, None if mask is None else mask.data)
            return load(self, ptrs, mask, *args, **kwargs)

        @functools.wraps(store)
        def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
            trace.store(ptrs.data, None if mask is None else mask.data, value=value.data)
            return store(self, ptrs, value, mask, *args, **kwargs)

        @functools.wraps(rmw)
        def create_atomic_rmw(self, op, ptr, val, mask, *args, **kwargs):
            trace.store(ptr.data, None if mask is None else mask.data, accumulate=True)
            return rmw(self, op, ptr, val, mask, *args, **kwargs)

        @functools.wraps(cas)
        def create_atomic_cas(self, ptr, *args, **kwargs):
            trace.store(ptr.data, None, accumulate=True)
            return cas(self, ptr, *args, **kwargs)

        @functools.wraps(grid_idx)
        def set_grid_idx(self, x, y, z):
            trace.start_program((int(x), int(y), int(z)))
            return grid_idx(self, x, y, z)

        for name in VALUE_OPS:
            if hasattr(builder, name):
                setattr(builder, name, self._watched(name, getattr(builder, name), self.value))
        for name in WRAPPING_OPS:
            if hasattr(builder, name):
                setattr(builder, name, self._watched(name, getattr(builder, name), self.wrapped))
        builder.create_masked_load = create_masked_load  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        builder.create_masked_store = create_masked_store  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        builder.create_atomic_rmw = create_atomic_rmw  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        builder.create_atomic_cas = create_atomic_cas  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        builder.set_grid_idx = set_grid_idx  # pyright: ignore[reportAttributeAccessIssue] (a patch)
        interpreter.GridExecutor.__call__ = grid_call  # pyright: ignore[reportAttributeAccessIssue] (a patch)

    @staticmethod
    def _watched(name: str, operation, watch):
        @functools.wraps(operation)
        def watched(builder, *args, **kwargs):
            result = operation(builder, *args, **kwargs)
            watch(name, args, result)
            return result

        return watched

    def collided(self, outputs: list[torch.Tensor]) -> list[dict]:
        """Per store line that gave an element of a contiguous output a second value in one launch: the output's
        position, the line, the line of the store it overwrote, how many times, and the first such element (flat
        index) with the grid points of its two writers."""
        found = []
        for position, tensor in enumerate(outputs):
            if not isinstance(tensor, torch.Tensor) or tensor.device.type != "cpu" or not tensor.is_contiguous():
                continue
            region = self._find(tensor.data_ptr()) if tensor.numel() else None
            if region is None:
                continue
            offset = (tensor.data_ptr() - region.start) // region.element_size
            for (key, line), (count, element, first, second, first_line) in sorted(self.collisions.items()):
                flat = element - offset
                if key == region.key and 0 <= flat < tensor.numel():
                    programs = [list(self.programs[p][1]) for p in (first, second)]
                    found.append(
                        {
                            "output": position,
                            "line": line,
                            "first_line": first_line,
                            "stores": count,
                            "index": flat,
                            "programs": programs,
                        }
                    )
        return found

    def report(self, outputs: list[torch.Tensor]) -> tuple[dict, dict]:
        """(meta, values) for the sampled output elements: per element its writer and the input
        elements it was computed from, per (input, line)."""
        return _report(self, outputs, self.samples)


def _flat_of(view: torch.Tensor, storage_elements: int) -> np.ndarray:
    """Per element of the view's storage, the view's row-major element index there (-1 where none is)."""
    flat_of = np.full(storage_elements, -1, dtype=np.int64)
    offsets = torch.as_strided(torch.arange(storage_elements), view.shape, view.stride(), view.storage_offset())
    flat_of[offsets.reshape(-1).numpy()] = np.arange(view.numel(), dtype=np.int64)
    return flat_of


def _at(array: np.ndarray, shape: tuple, lane: tuple) -> float | None:
    """One lane of an operand broadcast to the result's shape (None where it is not broadcastable)."""
    try:
        return float(np.broadcast_to(array, shape)[lane])
    except ValueError:
        return None


def _report(trace: AccessTrace, outputs: list[torch.Tensor], samples: list[list[int]]) -> tuple[dict, dict]:
    entries, values = [], {}
    for number, (position, flat) in enumerate(samples):
        entry: dict = {"output": position, "index": flat}
        entries.append(entry)
        if not (0 <= position < len(outputs)) or not (0 <= flat < outputs[position].numel()):
            entry["status"] = "no such element"
            continue
        found = trace.writer_of(outputs[position], flat)
        if found is None:
            entry["status"] = "not stored by a kernel"
            continue
        program, line = found
        launch, point, kernel = trace.programs[program]
        reads, complete = trace.sources(program)
        entry |= {
            "status": "ok" if complete else "incomplete",
            "kernel": kernel,
            "launch": launch,
            "program": list(point),
            "store_line": line,
            "reads": [],
            "nonfinite": trace.nonfinite_origin(program),
            "wrap": trace.wrap_origin(program),
            "aligned": trace.aligned_of(outputs[position], flat),
            "at_store": trace.locals_at_store(outputs[position], flat),
        }
        for (input_index, line_read), elements in sorted(reads.items()):
            name = f"trace/{number}/{input_index}/{line_read}"
            entry["reads"].append({"input": input_index, "line": line_read, "count": int(elements.size), "key": name})
            values[name] = torch.from_numpy(elements[:MAX_RETURNED_READS].copy())
    names = [
        {"line": line, "input": index, "dim": dim, "names": found}
        for (line, index), held in sorted(trace.index_names.items())
        for dim, found in held.found().items()
    ]
    meta = {
        "samples": entries,
        "truncated": trace.truncated,
        "programs": len(trace.programs),
        "index_names": names,
        "collisions": trace.collided(outputs),
    }
    return meta, values
