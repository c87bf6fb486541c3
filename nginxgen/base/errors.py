"""Errors that end a command with a one-line message instead of a traceback."""

from __future__ import annotations


class NginxgenError(Exception):
    """A refusal the user can act on; `exit_code` is the documented code for it."""

    exit_code = 2

    def __init__(self, message: str, *, where: str | None = None) -> None:
        super().__init__(message)
        self.where = where

    def __str__(self) -> str:
        message = super().__str__()
        return f"{self.where}: {message}" if self.where else message


class TargetError(NginxgenError):
    """An nginx version, TLS library or nginx binary that cannot be understood."""


class ValidationError(NginxgenError):
    """A model value that cannot work on the target, named by its field."""
