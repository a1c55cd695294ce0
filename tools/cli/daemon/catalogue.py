"""The tools a daemon serves: name -> request model, result model, the function (loaded when first run).

The same functions the MCP tools call; the CLI runs them through here in-process too.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel

from tools.models.accuracy import RunAccuracyRequest, RunAccuracyResult
from tools.models.compile import CompileKernelRequest, CompileKernelResult
from tools.models.diagnosis import ExplainRequest, ExplainResult, FixRequest, FixResult
from tools.models.mutate import MutateRequest, MutateResult

ToolName = Literal["compile_kernel", "run_accuracy", "explain_failure", "suggest_fix", "mutate"]


@dataclass(frozen=True)
class ToolEntry:
    request_model: type[BaseModel]
    result_model: type[BaseModel]
    module: str
    function: str

    def load(self) -> Callable[..., BaseModel]:
        """run(request, progress, cancel) -> result; importing it loads torch, so only where it runs."""
        return getattr(importlib.import_module(self.module), self.function)


TOOLS: dict[str, ToolEntry] = {
    "compile_kernel": ToolEntry(CompileKernelRequest, CompileKernelResult, "tools.compile", "compile_kernel"),
    "run_accuracy": ToolEntry(RunAccuracyRequest, RunAccuracyResult, "tools.accuracy", "run_accuracy"),
    "explain_failure": ToolEntry(ExplainRequest, ExplainResult, "tools.diagnosis", "explain_failure"),
    "suggest_fix": ToolEntry(FixRequest, FixResult, "tools.fixes", "suggest_fix"),
    "mutate": ToolEntry(MutateRequest, MutateResult, "tools.mutate", "mutate"),
}
