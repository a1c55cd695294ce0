"""Command-line flags generated from the pydantic request models (one source of truth).

A field `compute_num: int | None` becomes `--compute-num N`; `bool` becomes `--flag/--no-flag`;
`Literal[...]` becomes a choice; `dict[str, X]` becomes a repeatable `--name KEY=VALUE` or one
JSON object; `list[X]` a repeatable `--name VALUE`, numbers also as a comma list (`--seeds 1,2`);
`tuple[X, Y]` takes two values (`--value-range LOW HIGH`).
"""

from __future__ import annotations

import argparse
import json
import types
import typing
from typing import Any, Literal, TypeVar, get_args, get_origin

from pydantic import BaseModel, ValidationError

from tools.errors import ToolInputError, describe_validation_error

M = TypeVar("M", bound=BaseModel)


class UsageError(ToolInputError):
    """Bad command-line input; main() prints it and exits 2."""


def _unwrap_optional(annotation):
    origin = get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def flag_name(field: str) -> str:
    return "--" + field.replace("_", "-")


#: The namespace attribute of a field given as a positional argument (model_from_args merges it).
POSITIONAL_SUFFIX = "__positional"


def add_model_arguments(
    parser: argparse.ArgumentParser,
    model: type[BaseModel],
    skip: tuple[str, ...] = (),
    aliases: dict[str, list[str]] | None = None,
    positional: tuple[str, ...] = (),
) -> None:
    """`aliases` adds shorter spellings, e.g. {"run_id": ["--run"]}; `positional` fields may also be given
    without their flag, in that order."""
    for name in positional:
        parser.add_argument(
            name + POSITIONAL_SUFFIX,
            nargs="?",
            metavar=name.upper(),
            default=argparse.SUPPRESS,
            help=f"the same as {flag_name(name)}",
        )
    for name, field in model.model_fields.items():
        if name in skip:
            continue
        annotation = _unwrap_optional(field.annotation)
        origin = get_origin(annotation)
        help_text = (field.description or "").replace("%", "%%")
        kwargs: dict[str, Any] = {"dest": name, "help": help_text, "default": argparse.SUPPRESS}
        flags = [flag_name(name), *(aliases or {}).get(name, [])]
        if annotation is bool:
            parser.add_argument(*flags, action=argparse.BooleanOptionalAction, **kwargs)
        elif origin is Literal:
            parser.add_argument(*flags, choices=[str(c) for c in get_args(annotation)], **kwargs)
        elif origin is dict:
            kwargs["help"] += " On the command line: KEY=VALUE (repeatable) or one JSON object."
            parser.add_argument(*flags, action="append", metavar="KEY=VALUE|JSON", **kwargs)
        elif origin is list:
            parser.add_argument(*flags, action="append", metavar="VALUE", **kwargs)
        elif origin is tuple:
            parser.add_argument(*flags, nargs=len(get_args(annotation)), metavar="V", **kwargs)
        elif annotation in (int, float, str):
            parser.add_argument(*flags, metavar=name.upper(), **kwargs)
        else:  # nested models: JSON on the command line
            parser.add_argument(*flags, metavar="JSON", **kwargs)


def _parse_value(raw: str):
    """'0.5' -> 0.5, '3' -> 3, 'true' -> True; anything else stays a string (pydantic coerces)."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _scalar_items(list_annotation) -> bool:
    return all(arg in (int, float, str) for arg in get_args(list_annotation))


def _comma_list(flag: str, item: str) -> list:
    """One command-line item of a list: a JSON list, or values separated by commas."""
    if item.lstrip().startswith("["):
        try:
            parsed = json.loads(item)
        except ValueError as exc:
            raise UsageError(f"{flag}: not a valid JSON list ({exc}): {item!r}") from None
        if isinstance(parsed, list):
            return parsed
    parts = [part.strip() for part in item.split(",")]
    if not all(parts):
        raise UsageError(f"{flag} takes values separated by commas (e.g. {flag} 1,2) or repeated, got {item!r}")
    return parts


def _parse_mapping(flag: str, items: list[str]) -> dict:
    """Repeated KEY=VALUE items and JSON objects, merged in order."""
    parsed: dict = {}
    for item in items:
        if item.lstrip().startswith("{"):
            try:
                obj = json.loads(item)
            except ValueError as exc:
                raise UsageError(f"{flag}: not a valid JSON object ({exc}): {item!r}") from None
            if not isinstance(obj, dict):
                raise UsageError(f"{flag} takes KEY=VALUE or a JSON object, got {item!r}")
            parsed.update(obj)
            continue
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{flag} takes KEY=VALUE or a JSON object such as '{{\"float16\": 0.002}}', got {item!r}")
        parsed[key.strip()] = _parse_value(raw)
    return parsed


def _merge_positionals(namespace: argparse.Namespace) -> None:
    """Fields given as positional arguments, under their own names; one given both ways is an error."""
    for attribute, value in list(vars(namespace).items()):
        if not attribute.endswith(POSITIONAL_SUFFIX):
            continue
        name = attribute.removesuffix(POSITIONAL_SUFFIX)
        if hasattr(namespace, name):
            raise UsageError(f"{name.upper()} given twice: once as a positional argument, once as {flag_name(name)}")
        setattr(namespace, name, value)
        delattr(namespace, attribute)


def model_from_args(model: type[M], namespace: argparse.Namespace, extra: dict | None = None) -> M:
    _merge_positionals(namespace)
    data: dict[str, Any] = dict(extra or {})
    for name, field in model.model_fields.items():
        if not hasattr(namespace, name):
            continue
        value = getattr(namespace, name)
        annotation = _unwrap_optional(field.annotation)
        origin = get_origin(annotation)
        if origin is dict:
            value = _parse_mapping(flag_name(name), value)
        elif origin is list and _scalar_items(annotation):
            value = [
                _parse_value(part) if isinstance(part, str) and get_args(annotation) != (str,) else part
                for item in value
                for part in _comma_list(flag_name(name), item)
            ]
        elif origin in (list, tuple):
            value = [_parse_value(v) for v in value]
        elif isinstance(value, str) and annotation not in (str,) and origin is not Literal:
            value = _parse_value(value)
        data[name] = value
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UsageError(describe_validation_error(exc, label=flag_name)) from None
