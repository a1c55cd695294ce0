"""Mutation operators and `kernel-eval mutate`: planted bugs, and whether a task's test catches them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tools.cli import main as cli
from tools.errors import ToolInputError
from tools.models.mutate import MutateRequest
from tools.mutate import mutate
from tools.mutate.operators import OPERATORS

KERNELS = Path(__file__).parent / "mutation_corpus" / "kernels"
VECTOR_ADD = KERNELS / "vector_add"


@pytest.mark.parametrize("op", list(OPERATORS.values()), ids=lambda op: op.id)
def test_every_operator_plants_a_change_somewhere_in_the_corpus(op):
    sources = [(folder / "candidate.py").read_text() for folder in sorted(KERNELS.iterdir()) if folder.is_dir()]
    mutants = [(s, m) for s in sources for m in op.mutants(s)]
    assert mutants, f"{op.id} applies to no corpus kernel"
    for source, mutant in mutants:
        assert mutant != source
        compile(mutant, "mutant.py", "exec")  # still valid Python
    assert op.expected and (op.fix is not None or not op.patchable)


def test_operators_find_nothing_where_their_construct_is_absent():
    source = "import torch\n\ndef f(x):\n    return x + 1\n"
    assert all(not op.mutants(source) for op in OPERATORS.values())


def test_mutate_tells_caught_from_surviving_mutants():
    result = mutate(
        MutateRequest(
            reference=str(VECTOR_ADD / "reference.py"),
            candidate=str(VECTOR_ADD / "candidate.py"),
            backend="cpu",
            num_seeds=1,
            operators=["floor_grid", "drop_store_mask", "drop_load_mask"],
        )
    )
    by_op = result.by_operator
    assert by_op["floor_grid"] == [1, 1] and by_op["drop_store_mask"] == [1, 1]
    # The unmasked loads' tail lanes are never stored: the values pass, the read watch catches them.
    loads = [m for m in result.mutants if m.operator == "drop_load_mask"]
    assert loads and all(m.caught and m.verdict == "pass" for m in loads)
    assert all(m.summary.startswith("caught as a latent out-of-bounds read of input") for m in loads)
    assert result.caught == len(result.mutants) and result.survived == 0 and result.mutation_score == 1.0
    assert all(m.diff.startswith("--- a/candidate.py") for m in result.mutants)


def _mutate(kernel: str, operator: str, **options):
    folder = KERNELS / kernel
    return mutate(
        MutateRequest(
            reference=str(folder / "reference.py"),
            candidate=str(folder / "candidate.py"),
            backend="cpu",
            seeds=[11],  # pinned: on a secret seed the correct kernel itself may fail its small-value check
            operators=[operator],
            **options,
        )
    )


def test_mutate_tells_a_survivor_with_the_same_output_bits_from_one_that_changes_it():
    # layernorm centres twice: a wrong divisor in the first mean changes only the rounding.
    changed = _mutate("layernorm", "wrong_divisor", max_mutants=1)
    assert changed.survived == 1 and changed.mutants[0].same_output is False
    line = next(line for line in changed.advice if line.startswith("wrong_divisor #0"))
    assert "passes but changes the output" in line and "harmless rounding or a small real defect" in line
    assert not any("likely equivalent" in line for line in changed.advice)
    # rmsnorm's second upcast is of a value that is fp32 already: every output bit stays.
    same = _mutate("rmsnorm", "drop_upcast")
    assert [(m.site, m.caught or bool(m.caught_with), m.same_output) for m in same.mutants][1] == (1, False, True)
    equivalent = next(line for line in same.advice if "likely equivalent" in line)
    assert equivalent.startswith("drop_upcast #1 (nor with `--input-profile large_magnitude`): not caught"), equivalent
    assert "the output is bitwise the original's" in equivalent and "fault on a GPU" not in equivalent


def test_mutate_finds_the_inputs_a_weak_test_lacks():
    folder = KERNELS / "rmsnorm"
    result = mutate(
        MutateRequest(
            reference=str(folder / "reference.py"),
            candidate=str(folder / "candidate.py"),
            backend="cpu",
            num_seeds=1,
            operators=["eps_outside_sqrt"],
        )
    )
    survivor = result.mutants[0]
    assert not survivor.caught and survivor.caught_with == "input_profile=small_values"
    assert result.advice == [  # the option to add and the survivor it catches, in so many words
        "add a run with `--input-profile small_values` to your test: the task's inputs miss eps_outside_sqrt #0, "
        "which it catches"
    ]


def test_mutate_cli_prints_the_same_json_and_refuses_unknown_operators(capsys):
    args = [
        "mutate",
        "--reference",
        str(VECTOR_ADD / "reference.py"),
        "--candidate",
        str(VECTOR_ADD / "candidate.py"),
        "--backend",
        "cpu",
        "--num-seeds",
        "1",
        "--operators",
        "floor_grid",
        "--json",
    ]
    assert cli(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["caught"] == 1 and data["mutants"][0]["operator"] == "floor_grid"
    assert cli(args[:-1]) == 0  # text: a test that catches everything is told so, not left to guess
    assert capsys.readouterr().out.splitlines()[-1] == (
        "  advice: nothing survived: the task's test catches every one of the 1 mutant(s) (floor_grid); "
        "no profile or seed to add"
    )
    assert cli(["mutate", "--list-operators"]) == 0
    assert "drop_load_mask" in capsys.readouterr().out
    assert cli(args[:-3] + ["--operators", "no_such_operator"]) == 2
    assert "unknown mutation operator" in capsys.readouterr().err


def test_mutate_needs_a_passing_candidate():
    buggy = Path(__file__).parent / "diagnosis_corpus" / "vadd"
    with pytest.raises(ToolInputError, match="must pass before it is mutated"):
        mutate(
            MutateRequest(
                reference=str(buggy / "reference.py"),
                candidate=str(buggy / "buggy_meta_floor_grid.py"),
                backend="cpu",
                num_seeds=1,
            )
        )


#: A row max whose fp32 running value the fp16_accumulator operator turns into fp16, while the loop
#: assigns it the fp32 maximum: the interpreter runs that, Triton's compiler rejects the type change.
ROW_MAX_REFERENCE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.amax(dim=1)


def get_inputs():
    return [torch.rand(8, 300)]


def get_init_inputs():
    return []
"""

ROW_MAX_CANDIDATE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.zeros((BLOCK,), dtype=tl.float32)  # the inputs are >= 0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        larger = tl.maximum(best, tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0))
        best = larger
    tl.store(out_ptr + row, tl.max(best, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        row_max[(x.shape[0],)](x, out, x.shape[1], BLOCK=128)
        return out
"""


def test_a_survivor_the_gpu_compiler_rejects_is_not_counted():
    result = mutate(
        MutateRequest(
            reference=ROW_MAX_REFERENCE,
            candidate=ROW_MAX_CANDIDATE,
            backend="cpu",
            seeds=[11],
            operators=["fp16_accumulator"],
        )
    )
    [mutant] = result.mutants
    assert not mutant.caught and mutant.verdict == "pass", mutant.summary
    assert mutant.gpu_compile_error and "Loop-carried" in mutant.gpu_compile_error, mutant.gpu_compile_error
    assert result.survived == 0 and result.by_operator == {} and "do not compile for a GPU" in result.summary
    assert any("sm_90 rejects it" in line for line in result.advice), result.advice
