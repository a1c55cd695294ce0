"""The store shared by several processes on one home: seed pools, goldens computed once, atomic and
bounded run storage, damaged entries read as missing. Real processes (spawned), bounded in time."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from pathlib import Path

import pytest
import torch

from tools.errors import ToolInputError
from tools.store.golden import GoldenCache, GoldenEntry
from tools.store.runs import RunStore
from tools.store.seeds import POOL_SIZE, SeedPool

KEY = "k" * 32
PROCESSES = 4
SPAWN = multiprocessing.get_context("spawn")


def _in_processes(target, home: Path, count: int = PROCESSES, timeout: float = 120.0) -> list:
    with SPAWN.Pool(count) as pool:
        return pool.starmap_async(target, [(str(home), i) for i in range(count)]).get(timeout)


# --- seeds ---------------------------------------------------------------------------------------


def test_pinned_seeds_never_become_secret_seeds(tmp_path):
    seeds = SeedPool(tmp_path)
    pinned = list(range(1, 17))
    seeds.pin(KEY, pinned)
    drawn = {s for _ in range(50) for s in seeds.draw(KEY, 3)}
    assert not drawn & set(pinned)
    assert len(seeds.secret(KEY)) == POOL_SIZE and not set(seeds.secret(KEY)) & set(pinned)
    seeds.pin(KEY, pinned[:3] + seeds.secret(KEY)[:2])  # re-running a run's own secret seeds keeps them
    assert len(seeds.secret(KEY)) == POOL_SIZE


def test_a_pool_made_by_a_pinned_call_still_gets_secret_seeds(tmp_path):
    seeds = SeedPool(tmp_path)
    seeds.pin(KEY, [7])
    assert 7 not in seeds.draw(KEY, 3) and len(seeds.secret(KEY)) == POOL_SIZE
    (tmp_path / "seeds" / f"{KEY}.json").write_text(json.dumps([7, 8, 9]))  # the old format mixed pinned seeds in
    assert not set(seeds.draw(KEY, 3)) & {7, 8, 9}


def _draw_many(home: str, _: int) -> list[int]:
    seeds = SeedPool(Path(home))
    return [s for _ in range(200) for s in seeds.draw(KEY, 2)]


def test_processes_drawing_at_once_share_one_pool(tmp_path):
    drawn = _in_processes(_draw_many, tmp_path)
    assert (
        set().union(*drawn) <= set(SeedPool(tmp_path).secret(KEY)) and len(SeedPool(tmp_path).secret(KEY)) == POOL_SIZE
    )


# --- goldens -------------------------------------------------------------------------------------


def _golden_once(home: str, i: int) -> tuple[int, int]:
    cache = GoldenCache(Path(home))
    computed = errors = 0
    for seed in (1, 2, 3):
        with cache.computing(KEY, [seed, 99]):
            if cache.get(KEY, seed) is None:
                computed += 1
                time.sleep(0.05)
                cache.put(KEY, seed, GoldenEntry([], torch.full((1024,), float(seed)), None, "f", "cpu"))
        value = cache.get(KEY, seed)
        errors += value is None or float(value.golden[0]) != seed
    return computed, errors


def test_concurrent_processes_compute_each_golden_once(tmp_path):
    results = _in_processes(_golden_once, tmp_path)
    assert sum(c for c, _ in results) == 3 and sum(e for _, e in results) == 0, results
    assert not [p for p in (tmp_path / "golden" / KEY).iterdir() if ".tmp-" in p.name]


def _rewrite(home: str, i: int) -> int:
    cache = GoldenCache(Path(home))
    torn = 0
    for _ in range(40):
        cache.put(KEY, 5, GoldenEntry([], torch.full((4096,), float(i)), None, "f", "cpu"))
        cache.flush()  # on disk now (put writes it from a writer thread)
        cache._memory.clear()
        value = cache.get(KEY, 5)
        torn += value is None or value.golden.unique().numel() != 1
    return torn


def test_concurrent_writers_of_one_entry_never_tear_it(tmp_path):
    assert sum(_in_processes(_rewrite, tmp_path)) == 0


def test_a_torn_golden_reads_as_missing(tmp_path):
    cache = GoldenCache(tmp_path)
    cache.put(KEY, 1, GoldenEntry([], torch.ones(8), None, "f", "cpu"))
    cache.flush()
    path = tmp_path / "golden" / KEY / "1.bin"
    path.write_bytes(path.read_bytes()[:20])
    assert GoldenCache(tmp_path).get(KEY, 1) is None and not path.exists()


# --- runs ----------------------------------------------------------------------------------------


def _save_runs(home: str, i: int) -> list[str]:
    store = RunStore(Path(home), max_runs=10, min_keep_s=3600)
    ids = []
    for n in range(30):
        run_id = f"r-20261201-0000{i:02d}-{n:06x}"
        store.save(run_id, {"run_id": run_id}, {"candidate": "x" * 4000}, {"t": torch.zeros(256)})
        ids.append(run_id)
        store._last_evict = 0.0  # evict on every save: the worst case
    return ids


def test_runs_saved_from_several_processes_are_whole_and_recent_ones_kept(tmp_path):
    ids = [run_id for batch in _in_processes(_save_runs, tmp_path) for run_id in batch]
    store = RunStore(tmp_path)
    for run_id in ids:  # over the count limit, but all younger than min_keep_s: none evicted
        assert store.result(run_id)["run_id"] == run_id and store.task(run_id)["candidate"] == "x" * 4000
    assert not [p for p in (tmp_path / "runs").iterdir() if p.name.startswith(".incoming-")]


def test_eviction_by_age_and_bytes_spares_young_runs(tmp_path):
    store = RunStore(tmp_path, max_bytes=20_000, max_age_s=86400, min_keep_s=600)
    now = time.time()
    for n, age in enumerate((10 * 86400, 5000, 4000, 3000, 60)):
        run_id = f"r-20261201-000000-{n:06x}"
        store.save(run_id, {}, {"blob": "x" * 8000}, None)
        os.utime(store.root / run_id, (now - age, now - age))
    (store.root / ".incoming-r-20261201-000000-ffffff-1").mkdir()  # a run being written
    removed = store.evict(now)
    assert removed == ["r-20261201-000000-000000", "r-20261201-000000-000001", "r-20261201-000000-000002"]
    assert (store.root / ".incoming-r-20261201-000000-ffffff-1").exists()
    few = RunStore(tmp_path, max_runs=1, min_keep_s=600)
    assert few.evict(now) == ["r-20261201-000000-000003"]  # the 60 s old run stays, over the count or not
    tiny = RunStore(tmp_path, max_bytes=1, min_keep_s=600)
    assert tiny.evict(now) == ["r-20261201-000000-000004"]  # bytes are a hard cap: young or not


def test_a_loop_of_runs_never_holds_more_than_the_byte_cap_young_or_not(tmp_path):
    store = RunStore(tmp_path, max_bytes=100_000, min_keep_s=3600)
    for n in range(40):  # 40 x ~17 KB, all seconds old
        store.save(f"r-20261201-000000-{n:06x}", {}, {"blob": "x" * 1000}, {"t": torch.zeros(4096)})
        store._last_evict = 0.0
    held = sum(f.stat().st_size for f in store.root.rglob("*") if f.is_file())
    assert held <= 100_000 + 20_000  # the cap, plus the run saved after the last eviction
    assert store.result("r-20261201-000000-000027") == {}  # the newest are readable


def test_damaged_or_malformed_runs_are_clear_errors(tmp_path):
    store = RunStore(tmp_path)
    store.save("r-20261201-000000-abcdef", {"ok": 1}, {}, {"t": torch.zeros(4)})
    (store.root / "r-20261201-000000-abcdef" / "result.json").write_text('{"ok": ')
    with pytest.raises(ToolInputError, match="missing or damaged"):
        store.result("r-20261201-000000-abcdef")
    (store.root / "r-20261201-000000-abcdef" / "tensors.bin").write_bytes(b"junk")
    with pytest.raises(ToolInputError, match="missing or damaged"):
        store.tensors("r-20261201-000000-abcdef")
    with pytest.raises(ToolInputError, match="is not a run id"):
        store.path("r-20261201-000000-abcdef\n")


# --- small validations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"timeout_s": float("nan")}, "timeout_s: Input should be a finite number"),
        ({"value_range": [float("-inf"), 1.0]}, "value_range must be two finite numbers"),
        ({"value_range": [0.0, float("nan")]}, "value_range must be two finite numbers"),
        ({"compute_num": 10**30}, "compute_num: Input should be less than or equal to"),
    ],
)
def test_non_finite_and_unbounded_numbers_are_refused_with_the_right_words(fields, message):
    from pydantic import ValidationError

    from tools.errors import describe_validation_error
    from tools.models.accuracy import RunAccuracyRequest

    with pytest.raises(ValidationError) as caught:
        RunAccuracyRequest(reference="a", candidate="b", **fields)
    assert message in describe_validation_error(caught.value)


def test_unknown_runs_stay_unknown_not_damaged(tmp_path):
    with pytest.raises(ToolInputError, match="unknown run_id"):
        RunStore(tmp_path).result("r-20200101-000000-abcdef")
