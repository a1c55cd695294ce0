"""Errors that are the caller's to fix: the CLI exits 2 with the message, MCP returns isError."""

from __future__ import annotations


class ToolInputError(ValueError):
    """The request cannot be run as given. The message says what was wrong and what to do."""

    def __init__(self, message: str, details: dict | None = None):
        super().__init__(message)
        self.details = details or {}
