"""What one CLI invocation carries from the root group to its command: settings, output mode, the Memory."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

import click

from memscribe.errors import ScopeError
from memscribe.settings import Settings, open_memory

if TYPE_CHECKING:
    from memscribe.engine.memory import Memory

__all__ = ["CliState", "json_option", "pass_state", "user_option"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass
class CliState:
    """Settings resolved by the root group; the Memory is opened on first use and closed on exit."""

    settings: Settings
    json: bool = False
    _memory: Memory | None = field(default=None, repr=False)

    def memory(self) -> Memory:
        if self._memory is None:
            self._memory = open_memory(self.settings)
            click.get_current_context().call_on_close(self.close)
        return self._memory

    def close(self) -> None:
        if self._memory is not None:
            memory, self._memory = self._memory, None
            memory.close()

    def user(self, flag: str | None, *, required: bool = True) -> str | None:
        """``--user``, else ``$MEMSCRIBE_USER``; a ScopeError (exit 4) when required and neither is set."""
        value = flag or self.settings.user.value
        if required and not value:
            raise ScopeError("this command needs --user (or set MEMSCRIBE_USER)")
        return value


pass_state = click.make_pass_decorator(CliState)


def _set_json(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    state = ctx.find_object(CliState)
    if value and state is not None:
        state.json = True


def json_option(fn: F) -> F:
    """``--json`` on a command: machine-readable output on stdout (also accepted before the command)."""
    option = click.option(
        "--json", "json_output", is_flag=True, expose_value=False, is_eager=True, callback=_set_json,
        help="Print machine-readable JSON instead of tables.",
    )  # fmt: skip
    return option(fn)


def user_option(help_text: str = "The user whose memories to use (default: $MEMSCRIBE_USER).") -> Callable[[F], F]:
    """``--user/-u``; the command falls back to ``$MEMSCRIBE_USER`` through :meth:`CliState.user` unless its
    help says what no user means."""
    return click.option("--user", "-u", "user", default=None, metavar="USER", help=help_text)
