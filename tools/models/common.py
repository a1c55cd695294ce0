"""Types shared by every tool model."""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict


def _special_float(value):
    """JSON has no NaN/Inf: carry them as the strings 'NaN', 'Infinity', '-Infinity'."""
    if isinstance(value, float) and not math.isfinite(value):
        if math.isnan(value):
            return "NaN"
        return "Infinity" if value > 0 else "-Infinity"
    return value


#: A float that may be NaN or +-Inf, serialized as valid JSON.
Number = Annotated[float | Literal["NaN", "Infinity", "-Infinity"], BeforeValidator(_special_float)]


class Model(BaseModel):
    """Base of every output model: strict about unknown fields, plain JSON out."""

    model_config = ConfigDict(extra="forbid")
