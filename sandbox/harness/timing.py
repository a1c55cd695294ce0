"""Job kind `timing`: reference and candidate timed on the same inputs on the device (benchmark_kernel).

Options: mode ("time"; "reference_alone": the reference only, in a process where the candidate's code never
runs; or "count": only the reference's FLOPs and parameter bytes, any backend),
repetitions, warmup, flush_l2, cuda_graphs, vary_inputs, output_rtol, dtype. Given, per input set k (the seeds
of the accuracy run): s{k}/init, s{k}/inputs and s{k}/accepted (the candidate's accepted outputs).

Each repetition, do_bench-style: copy input set k into the fixed input buffers (vary_inputs), keep
the device busy (cuda: a spin, so the forward is queued before its start event runs; its length is
calibrated in the warm-up to cover several times what the host takes to queue one repetition), write
a buffer twice the L2's size (flush_l2), start event, forward (or graph replay), end event, then a
check on the device that the output belongs to input set k (no host synchronisation between
repetitions). Reference and candidate alternate repetition by repetition, so drift hits both.
Then, for the candidate alone: the same input every repetition (what repeated-input timing sees);
for both: a device-wide synchronize inside the timed region (what work left on other streams costs,
beyond what the synchronize itself costs the reference).
Launches are watched for streams other than the one being timed.
Last, for forwards of at most LAUNCH_SKIP_MS on the device: rounds of eager calls back to back (no
graph, no spin), the host time of each call and each round's wall time per call: what a caller that
launches the forward many times pays, launch included (for a microsecond kernel, mostly the launch).

Outputs go back to the trusted parent: the last timed output of every input set, which it checks
against the accepted outputs itself. The in-process checks, like the sandbox's others, catch
honest mistakes and lazy cheats; a deliberately hostile candidate could undo them.
"""

from __future__ import annotations

import functools
import statistics

import torch

from sandbox import protocol
from sandbox.harness import common, errors, timers
from sandbox.isolation import seccomp

FLUSH_MIN_BYTES = 256 << 20  # Triton's do_bench flush size
SPIN_CYCLES = 200_000  # ~0.1 ms at ~2 GHz: the spin before calibration, and its shortest
SPIN_CYCLES_MAX = 40_000_000  # ~20 ms: a host that slow makes the time meaningless anyway
SPIN_MARGIN = 3.0  # the spin lasts this many times the host's slowest (p90) queueing of a repetition
REPEATED_REPS_MAX = 30
SYNCED_REPS_MAX = 20
#: The launch phase: rounds of back-to-back eager calls, each at most LAUNCH_CALLS calls or
#: LAUNCH_ROUND_MS; skipped for a forward whose device time is past LAUNCH_SKIP_MS (the launch is noise).
LAUNCH_ROUNDS, LAUNCH_CALLS, LAUNCH_ROUND_MS, LAUNCH_SKIP_MS = 5, 20, 100.0, 5.0
#: Why cuda_graphs is refused where the job's filter refuses shared anonymous mmap (no cgroup counts those pages,
#: so the filter keeps them out of the job's memory bound): the CUDA driver maps host memory so for a graph.
GRAPHS_NEED_SHARED_MAPPINGS = (
    "cuda_graphs needs shared anonymous memory for the CUDA driver, which this sandbox refuses where no cgroup "
    "memory limit is in force (those pages would escape the job's memory bound): time with cuda_graphs=false, or "
    "run the server where cgroup v2 is delegated to it (README: isolation)"
)


class _Device:
    """The few device calls timing needs, for cuda and npu (torch_npu mirrors torch.cuda)."""

    def __init__(self, kind: str):
        self.kind = kind
        if kind == "npu":
            import torch_npu  # noqa: F401  # type: ignore[import-not-found]

            self.api = torch.npu  # type: ignore[attr-defined]
        elif kind == "cuda":
            self.api = torch.cuda
        else:
            raise RuntimeError(f"timing needs a device; backend device {kind!r} has none")
        props = self.api.get_device_properties(0)
        self.name = str(getattr(props, "name", "") or self.api.get_device_name(0))
        self.l2_bytes = int(getattr(props, "L2_cache_size", 0) or 0)

    def event(self):
        if self.kind == "cuda":  # the calls bound before any task code ran (timers.py)
            return timers.cuda_event(enable_timing=True)
        return self.api.Event(enable_timing=True)

    def record(self, event) -> None:
        if self.kind == "cuda":
            timers.cuda_record(event, self.stream())
        else:
            event.record()

    def elapsed_ms(self, start, end) -> float:
        return float(timers.cuda_elapsed(start, end) if self.kind == "cuda" else start.elapsed_time(end))

    def stream(self):
        return timers.cuda_current_stream() if self.kind == "cuda" else self.api.current_stream()

    def synchronize(self) -> None:
        if self.kind == "cuda":
            timers.cuda_synchronize()
        else:
            self.api.synchronize()

    def spin(self, cycles: int) -> None:
        sleep = getattr(self.api, "_sleep", None)
        if sleep is not None:
            sleep(cycles)

    def spin_ms_per_cycle(self) -> float | None:
        """The spin's rate on this device now (the fastest of three, after the first has loaded it)."""
        if getattr(self.api, "_sleep", None) is None:
            return None
        elapsed = []
        for _ in range(4):
            start, end = self.event(), self.event()
            self.record(start)
            self.spin(SPIN_CYCLES)
            self.record(end)
            self.synchronize()
            elapsed.append(self.elapsed_ms(start, end))
        return min(elapsed[1:]) / SPIN_CYCLES


class _HostClock:
    """Tests only (options.host_clock, cpu backend): the same job with perf_counter as its 'events', so the
    harness and the checks run where there is no device. Its times mean nothing about a device."""

    class _Event:
        t = 0.0

    kind = "cpu"
    name = "host clock (tests)"
    l2_bytes = 1 << 19
    _stream = object()

    def event(self):
        return self._Event()

    def record(self, event) -> None:
        event.t = timers.perf_counter()

    def elapsed_ms(self, start, end) -> float:
        return (end.t - start.t) * 1e3

    def stream(self):
        return self._stream

    def synchronize(self) -> None:
        pass

    def spin(self, cycles: int) -> None:
        pass

    def spin_ms_per_cycle(self) -> float | None:
        return None


class _StreamWatch:
    """Counts Triton launches, and those made on another stream than the one being timed."""

    def __init__(self, device: _Device | _HostClock):
        self.device = device
        self.expected: object | None = None  # the stream being timed
        self.launches = 0
        self.foreign = 0

    def install(self) -> None:
        from triton.runtime.jit import JITFunction

        original = JITFunction.run
        watch = self

        @functools.wraps(original)
        def run(fn_self, *args, **kwargs):
            if not kwargs.get("warmup"):
                watch.launches += 1
                if watch.expected is not None and watch.device.stream() != watch.expected:
                    watch.foreign += 1
            return original(fn_self, *args, **kwargs)

        JITFunction.run = run  # type: ignore[attr-defined]  # monkey-patch: count launches per stream


def _load(job_dir: str, user_files: dict, name: str, attrs: tuple[str, ...]):
    path = f"{job_dir}/{name}.py"
    try:
        module = common.load_module(path, name)
        for attr in attrs:
            if not hasattr(module, attr):
                raise AttributeError(f"the {name} defines no `{attr}` (KernelBench format)")
    except BaseException as exc:  # noqa: BLE001 - SyntaxError, ImportError, SystemExit at import ...
        raise common.UserCodeError(errors.describe(exc, user_files, f"{name} import")) from None
    return module


def _tensor_bytes(tree) -> int:
    return sum(t.numel() * t.element_size() for t in common.tree_tensors(tree))


def _state(model: torch.nn.Module) -> list[torch.Tensor]:
    return [t.detach().cpu() for t in list(model.parameters()) + list(model.buffers())]


def _weights_seed_independent(module, init, seeds, dtype) -> bool:
    """Whether Model's parameters come out the same under every seed (then every input set can be
    timed on one model; otherwise only the inputs of seed 0 match its weights)."""
    states = []
    for seed in seeds[:2]:
        common.seed_all(seed)
        states.append(_state(common.cast_model(module.Model(*init), dtype)))
    return len(states) < 2 or all(common.bitwise_equal(a, b) for a, b in zip(*states, strict=True))


def _flops(model, inputs, device: str, user_files: dict) -> int:
    """torch's FLOP counter over one forward (matmul, conv, attention; elementwise ops count 0)."""
    from torch.utils.flop_counter import FlopCounterMode

    try:
        counter = FlopCounterMode(display=False)
        with torch.device(device), torch.no_grad(), counter:
            model(*inputs)
        return int(counter.get_total_flops())
    except BaseException as exc:  # noqa: BLE001
        raise common.UserCodeError(errors.describe(exc, user_files, "reference forward (FLOP count)")) from None


def _count(spec: dict, job_dir: str, backend, user_files: dict, given: dict) -> tuple[dict, dict]:
    """Only the reference's FLOPs and parameter bytes: what a roofline estimate needs (any backend)."""
    options = spec["options"]
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    module = _load(job_dir, user_files, "reference", ("Model",))
    common.seed_all(spec["seeds"][0])
    try:
        model = common.cast_model(module.Model(*given[protocol.key(0, "init")]), dtype).to(backend.device).eval()
    except BaseException as exc:  # noqa: BLE001
        raise common.UserCodeError(errors.describe(exc, user_files, "reference init")) from None
    inputs = common.to_device(given[protocol.key(0, "inputs")], backend.device)
    return {"flops": _flops(model, inputs, backend.device, user_files), "param_bytes": _tensor_bytes(_state(model))}, {}


class _Role:
    """One model being timed: its forward (or graph), its samples, its output checks."""

    def __init__(self, name, model, buffers, device: _Device | _HostClock, watch: _StreamWatch, user_files):
        self.name, self.model, self.buffers = name, model, buffers
        self.device, self.watch, self.user_files = device, watch, user_files
        self.graph = None
        self.static_out = None
        self.pairs: dict[str, list] = {"varied": [], "repeated": [], "synced": []}
        self.host_ms: list[float] = []  # host time to queue each repetition (spin to end event)
        self.launch_host_ms: list[float] = []  # host time of each eager forward call (_launch_round)
        self.loop_ms: list[float] = []  # per round: wall time per call of back-to-back eager calls
        self.stale: torch.Tensor | None = None  # device counter of stale repetitions
        self.checked = 0
        self.last: dict[int, object] = {}

    def forward(self):
        if self.graph is not None:
            self.graph.replay()
            return self.static_out
        self.watch.expected = self.device.stream()
        try:
            with torch.device(self.device.kind), torch.no_grad():
                return self.model(*self.buffers)
        finally:
            self.watch.expected = None

    def eager(self):
        """One forward as a caller makes it: the model's own call, never a graph replay."""
        with torch.device(self.device.kind), torch.no_grad():
            return self.model(*self.buffers)

    def call(self, phase: str):
        try:
            return self.forward()
        except BaseException as exc:  # noqa: BLE001
            raise common.UserCodeError(
                errors.describe(exc, self.user_files, f"{self.name} forward ({phase})")
            ) from None

    def capture(self) -> None:
        """A CUDA graph of the forward on the fixed buffers (warmed up on a side stream first, as
        torch's documentation prescribes)."""
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        try:
            with torch.cuda.stream(side):
                for _ in range(2):
                    self.forward()
            torch.cuda.current_stream().wait_stream(side)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph), torch.device(self.device.kind), torch.no_grad():
                self.static_out = self.model(*self.buffers)
            self.graph = graph
        except BaseException as exc:  # noqa: BLE001
            info = errors.describe(exc, self.user_files, f"{self.name} CUDA graph capture")
            info["hint"] = (
                "the forward cannot be captured in a CUDA graph (host syncs, allocations, side streams): "
                "time it with cuda_graphs=false"
            )
            raise common.UserCodeError(info) from None


def _mismatch(out, expected, rtol: float) -> torch.Tensor | bool:
    """On the device, no host sync: True where `out` cannot be the output for `expected`'s inputs
    (other NaN positions, or a finite difference beyond rtol x the expected output's largest magnitude)."""
    got, want = common.tree_tensors(out), common.tree_tensors(expected)
    if len(got) != len(want) or any(a.shape != b.shape for a, b in zip(got, want, strict=True)):
        return True
    bad = torch.zeros((), dtype=torch.bool, device=want[0].device) if want else False
    for a, b in zip(got, want, strict=True):
        a32, b32 = a.detach().to(torch.float32), b.to(torch.float32)
        finite = torch.isfinite(a32) & torch.isfinite(b32)
        scale = torch.where(torch.isfinite(b32), b32.abs(), 0).amax() if b32.numel() else 0
        diff = torch.where(finite, (a32 - b32).abs(), 0).amax() if b32.numel() else 0
        bad = bad | (torch.isnan(a32) != torch.isnan(b32)).any() | (diff > rtol * scale + 1e-30)
    return bad


class _Bench:
    def __init__(self, spec, device: _Device | _HostClock, roles: list[_Role], input_sets, expected, vary: bool):
        options = spec["options"]
        self.device = device
        self.roles = roles
        self.input_sets = input_sets  # per set: its inputs on the device (sources for the copies)
        self.expected = expected  # per set: what the candidate's output must be, on the device
        self.vary = vary
        self.flush_l2 = bool(options.get("flush_l2", True))
        self.rtol = float(options["output_rtol"])  # tools.thresholds.TIMED_OUTPUT_RTOL
        flush_bytes = max(FLUSH_MIN_BYTES if device.kind != "cpu" else 0, 2 * device.l2_bytes)
        self.flush = torch.empty(flush_bytes // 4, dtype=torch.int32, device=device.kind) if self.flush_l2 else None
        self.spin_cycles = SPIN_CYCLES
        self.spin_ms: float | None = None  # what the calibrated spin lasts

    def calibrate_spin(self) -> None:
        """A spin long enough that the device is still busy when the host has queued the forward, so
        the start event never waits on the host (else a microsecond kernel times the launch overhead)."""
        rate = self.device.spin_ms_per_cycle()
        queued = sorted(t for role in self.roles for t in role.host_ms)
        if rate is None or not queued:
            return
        slowest = queued[min(len(queued) - 1, int(0.9 * len(queued)))]
        self.spin_cycles = int(min(SPIN_CYCLES_MAX, max(SPIN_CYCLES, SPIN_MARGIN * slowest / rate)))
        self.spin_ms = self.spin_cycles * rate

    def load_set(self, k: int, buffers) -> None:
        for dst, src in zip(common.tree_tensors(buffers), common.tree_tensors(self.input_sets[k]), strict=True):
            dst.copy_(src)

    def rep(self, role: _Role, k: int, phase: str) -> None:
        if phase != "repeated" and self.vary:
            self.load_set(k, role.buffers)
        queued_from = timers.perf_counter()
        self.device.spin(self.spin_cycles)
        if self.flush is not None:
            self.flush.zero_()
        start, end = self.device.event(), self.device.event()
        self.device.record(start)
        out = role.call(phase)
        if phase == "synced":
            self.device.synchronize()  # device-wide: work on any stream ends inside the timed region
        self.device.record(end)
        role.host_ms.append((timers.perf_counter() - queued_from) * 1e3)
        if phase in role.pairs:  # warm-up repetitions are not kept
            role.pairs[phase].append((start, end))
        if role.name != "candidate":
            return
        # checked in the warm-up too (not counted): the check's kernels load before anything is timed
        bad = torch.as_tensor(_mismatch(out, self.expected[k], self.rtol), device=self.device.kind).to(torch.int32)
        if phase != "warmup":
            role.stale = bad if role.stale is None else role.stale + bad
            role.checked += 1
            role.last[k] = common.clone(out)

    def times(self, role: _Role, phase: str) -> list[float]:
        return [self.device.elapsed_ms(s, e) for s, e in role.pairs[phase]]


def run(spec: dict, job_dir: str, backend, user_files: dict, given: dict) -> tuple[dict, dict]:
    options = spec["options"]
    if options.get("mode") == "count":
        return _count(spec, job_dir, backend, user_files, given)
    # reference_alone: the reference timed in a process where the candidate's code never runs, so an
    # import that slows the reference (a patched forward) shows against the joint job's reference time
    alone = options.get("mode") == "reference_alone"
    device = _HostClock() if options.get("host_clock") and backend.device == "cpu" else _Device(backend.device)
    if options.get("cuda_graphs") and device.kind != "cuda":
        raise common.UserCodeError(
            errors.error_info("setup", "unsupported", f"cuda_graphs needs backend cuda, not {device.kind}")
        )
    if options.get("cuda_graphs") and seccomp.refuses_shared_mappings():
        raise common.UserCodeError(errors.error_info("setup", "unsupported", GRAPHS_NEED_SHARED_MAPPINGS))
    dtype = getattr(torch, options["dtype"]) if options.get("dtype") else None
    watch = _StreamWatch(device)
    watch.install()
    reference = _load(job_dir, user_files, "reference", ("Model",))
    candidate = None if alone else _load(job_dir, user_files, "candidate", ("ModelNew",))
    clocks_changed = set(timers.changed())  # by an import (a forward's own change is seen after the timing)
    seeds = spec["seeds"]
    init = given[protocol.key(0, "init")]
    sets = [common.to_device(given[protocol.key(k, "inputs")], device.kind) for k in range(len(seeds))]
    same_weights = _weights_seed_independent(reference, init, seeds, dtype)
    shapes = [[(t.shape, t.dtype) for t in common.tree_tensors(s)] for s in sets]
    usable = [k for k in range(len(sets)) if shapes[k] == shapes[0]] if same_weights else [0]
    vary = bool(options.get("vary_inputs", True)) and len(usable) > 1
    note = (
        "varied over the accuracy run's seeds"
        if vary
        else "not varied: "
        + (
            "vary_inputs=false"
            if not options.get("vary_inputs", True)
            else "the task's weights depend on the seed"
            if not same_weights
            else "one input set only"
            if len(sets) == 1
            else "the input sets differ in shape or dtype"
        )
    )

    def build(cls, role: str):
        common.seed_all(seeds[0])  # as run_accuracy built it for the first seed
        try:
            return common.cast_model(cls(*init), dtype).to(device.kind).eval()
        except BaseException as exc:  # noqa: BLE001
            raise common.UserCodeError(errors.describe(exc, user_files, f"{role} init")) from None

    ref_model = build(reference.Model, "reference")
    buffers = common.clone(sets[0])
    roles = [_Role("reference", ref_model, buffers, device, watch, user_files)]
    if candidate is not None:
        roles.append(_Role("candidate", build(candidate.ModelNew, "candidate"), buffers, device, watch, user_files))
    flops = _flops(ref_model, sets[0], device.kind, user_files)
    expected = {} if alone else _expected(given, usable, sets, ref_model, device)
    bench = _Bench(spec, device, roles, sets, expected, vary)
    order = usable if vary else [0]
    launches_before_timing, foreign_before_timing = _measure(bench, roles, options, order, device, watch)

    meta = {
        "clocks_changed": sorted(clocks_changed | set(timers.changed())),
        "device_name": device.name,
        "flops": flops,
        "param_bytes": _tensor_bytes(_state(ref_model)),
        "l2_bytes": device.l2_bytes,
        "method": _method(device, options),
        "inputs_varied": vary,
        "inputs_note": note,
        "input_sets_used": [seeds[k] for k in order],
        "expected_from": "accepted"
        if all(given.get(protocol.key(k, "accepted")) is not None for k in usable)
        else "reference",
        "spin_ms": bench.spin_ms,
        "reference": {
            "times_ms": bench.times(roles[0], "varied"),
            "synced_ms": bench.times(roles[0], "synced"),
            "host_ms": roles[0].host_ms,
            "launch_host_ms": roles[0].launch_host_ms,
            "loop_ms": roles[0].loop_ms,
        },
    }
    if alone:
        return meta, {}
    cand = roles[1]
    meta["candidate"] = {
        "times_ms": bench.times(cand, "varied"),
        "host_ms": cand.host_ms,
        "launch_host_ms": cand.launch_host_ms,
        "loop_ms": cand.loop_ms,
        "repeated_ms": bench.times(cand, "repeated"),
        "synced_ms": bench.times(cand, "synced"),
        "stale": int(cand.stale) if cand.stale is not None else 0,
        "checked": cand.checked,
        "launches": watch.launches - launches_before_timing,
        "foreign_stream_launches": watch.foreign - foreign_before_timing,
    }
    values = {protocol.key(k, "timed"): common.to_cpu(out) for k, out in cand.last.items()}
    return meta, values


def _expected(given: dict, usable: list[int], sets: list, ref_model, device) -> dict:
    """Per input set: what the candidate's output must be, on the device (the accepted output, else the
    reference's own)."""
    expected = {}
    for k in usable:
        accepted = given.get(protocol.key(k, "accepted"))
        if accepted is not None:
            expected[k] = common.to_device(accepted, device.kind)
        else:
            with torch.device(device.kind), torch.no_grad():
                expected[k] = ref_model(*sets[k])
    return expected


def _measure(bench: _Bench, roles: list[_Role], options: dict, order: list[int], device, watch) -> tuple[int, int]:
    """Every phase, in order; the stream watch's counts before the timed phases (autotuning may use its own)."""
    for role in roles:  # the first call compiles (Triton's JIT): never timed
        role.call("first call")
    device.synchronize()
    if options.get("cuda_graphs"):
        for role in roles:
            role.capture()
    before = watch.launches, watch.foreign
    warmup, reps = int(options.get("warmup", 10)), int(options["repetitions"])
    for r in range(max(warmup, 1)):
        for role in roles:
            bench.rep(role, order[r % len(order)], "warmup")
    bench.calibrate_spin()
    for role in roles:
        role.host_ms.clear()
    for r in range(reps):
        for role in roles if r % 2 == 0 else roles[::-1]:
            bench.rep(role, order[r % len(order)], "varied")
    if len(roles) > 1:
        cand = roles[1]
        bench.load_set(0, cand.buffers)  # the repeated-input phase times input set 0, loaded once
        for _ in range(min(reps, REPEATED_REPS_MAX)):
            bench.rep(cand, 0, "repeated")
    for r in range(min(reps, SYNCED_REPS_MAX)):  # the reference's: what the synchronize itself costs
        for role in roles if r % 2 == 0 else roles[::-1]:
            bench.rep(role, order[r % len(order)], "synced")
    device.synchronize()
    slowest = max(statistics.median(bench.times(role, "varied") or [0.0]) for role in roles)
    if slowest <= float(options.get("launch_skip_ms", LAUNCH_SKIP_MS)):
        for r in range(LAUNCH_ROUNDS):
            for role in roles if r % 2 == 0 else roles[::-1]:
                _launch_round(role, device)
    return before


def _launch_round(role: _Role, device) -> None:
    """The launch as a caller pays it: LAUNCH_CALLS eager forwards back to back (no graph, no spin), the
    host time of each call, and the whole round's wall time to its last result per call (launch included)."""
    device.synchronize()
    calls, started = 0, timers.perf_counter()
    while calls < LAUNCH_CALLS and (calls < 2 or (timers.perf_counter() - started) * 1e3 < LAUNCH_ROUND_MS):
        calls += 1
        before = timers.perf_counter()
        try:
            role.eager()
        except BaseException as exc:  # noqa: BLE001
            raise common.UserCodeError(errors.describe(exc, role.user_files, f"{role.name} forward (launch)")) from None
        role.launch_host_ms.append((timers.perf_counter() - before) * 1e3)
    device.synchronize()
    role.loop_ms.append((timers.perf_counter() - started) * 1e3 / calls)


def _method(device: _Device | _HostClock, options: dict) -> str:
    api = {"npu": "npu_events", "cpu": "host_clock"}.get(device.kind, "cuda_events")
    return (
        f"{api}{'_graph' if options.get('cuda_graphs') else ''}: do_bench-style, one event pair per repetition"
        + (", CUDA graph replays" if options.get("cuda_graphs") else "")
        + (
            ", L2 flushed before each (a write of max(256 MiB, 2 x L2))"
            if options.get("flush_l2", True)
            else ", warm L2"
        )
        + ", no host synchronisation between repetitions, reference and candidate alternating"
    )
