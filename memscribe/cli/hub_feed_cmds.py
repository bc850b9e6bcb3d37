"""``memscribe hub install|uninstall|doctor|recall``: feed the shared memory back into each tool.

``install TOOL`` registers the memscribe MCP server in the tool's own config (with the absolute path of this
``memscribe``), installs the managed instruction digest and the recall hooks where the tool has them;
``--dry-run`` prints the exact diff. ``uninstall TOOL`` restores every file byte for byte. ``recall --hook
TOOL`` is the hook command itself: the tool's JSON on stdin, the recalled memories as JSON on stdout.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from memscribe.cli.state import CliState, pass_state
from memscribe.errors import ConfigError

if TYPE_CHECKING:
    from memscribe.hub.feed.install import Outcome
    from memscribe.hub.feed.tools import Ctx

__all__ = ["attach"]


def memscribe_executable() -> str:
    """The absolute path of the running ``memscribe`` script (found outside any virtualenv)."""
    argv0 = Path(sys.argv[0])
    if argv0.name == "memscribe" and argv0.is_file():
        return os.path.abspath(argv0)
    candidate = Path(sys.executable).parent / "memscribe"
    if candidate.is_file():
        return str(candidate.absolute())
    found = shutil.which("memscribe")
    if found:
        return os.path.abspath(found)
    raise ConfigError("cannot find the memscribe executable; pass --executable PATH")


def _ctx(state: CliState, executable: str | None) -> Ctx:
    from memscribe.hub.feed.doctor import state_dir
    from memscribe.hub.feed.tools import Ctx

    exe = executable or memscribe_executable()
    if not os.path.isabs(exe):
        raise ConfigError(f"--executable must be an absolute path, got {exe!r}")
    return Ctx(Path.home(), exe, state_dir(state.settings.home.value), dict(os.environ), sys.platform)


_TOOLS_HELP = (
    "claude-code, codex, cursor, opencode, qwen-code, gemini-cli, hermes, openclaw, pi, workbuddy, codebuddy, "
    "deepseek-harness, cline"
)
_exe_option = click.option(
    "--executable", default=None, help="memscribe to register (default: this one, as an absolute path)."
)


@click.command("install")
@click.argument("tools", nargs=-1, required=True)
@click.option("--dry-run", is_flag=True, help="Print the exact diff and change nothing.")
@_exe_option
@pass_state
def install_cmd(state: CliState, tools: tuple[str, ...], dry_run: bool, executable: str | None) -> None:
    """Register memscribe in TOOLS (MCP server, instruction digest, recall hooks)."""
    from memscribe.hub.feed import install as feed

    ctx = _ctx(state, executable)
    for name in tools:
        if dry_run:
            text = feed.diff(feed.plan(name, ctx))
            click.echo(text or f"{name}: already installed, nothing to change", nl=not text)
            continue
        out = feed.install(name, ctx)
        _report(name, "installed into", out)


@click.command("uninstall")
@click.argument("tools", nargs=-1, required=True)
@pass_state
def uninstall_cmd(state: CliState, tools: tuple[str, ...]) -> None:
    """Restore every file that install changed in TOOLS, byte for byte."""
    from memscribe.hub.feed import install as feed

    ctx = _ctx(state, "/memscribe")  # the path is not used by uninstall
    for name in tools:
        _report(name, "restored", feed.uninstall(name, ctx))


def _report(name: str, verb: str, out: Outcome) -> None:
    for path in out.changed:
        click.echo(f"{name}: {verb} {path}")
    if not out.changed and not out.left_alone:
        click.echo(f"{name}: already installed, nothing changed")
    for path, why in out.left_alone:
        click.echo(f"{name}: left alone {path}: {why}", err=True)
    if out.note and out.changed and verb == "installed into":
        click.echo(f"{name}: {out.note}")


@click.command("doctor")
@_exe_option
@pass_state
def doctor_cmd(state: CliState, executable: str | None) -> None:
    """For each tool: present, installed, whether its config runs a memscribe that exists, and whether its
    recall hook is there and runs with the interpreter it names."""
    from memscribe.hub.feed.doctor import check_all

    rows = check_all(_ctx(state, executable or "/memscribe"))
    if state.json:
        click.echo(json.dumps([r.__dict__ for r in rows], indent=2))
        return
    for r in rows:
        flags = f"{'here' if r.present else 'absent':6} {'installed' if r.installed else '-':9}"
        click.echo(f"{r.tool:17} {flags} {r.server:8} {r.detail}")
        if r.hooks != "none":
            click.echo(f"{'':17} hooks: {r.hooks} {r.hooks_detail}".rstrip())


@click.command("recall")
@click.option("--hook", "tool", required=True, help=f"The tool calling: {_TOOLS_HELP}.")
@click.option("--budget", default=600, show_default=True, type=click.IntRange(50, 2000), help="Token budget.")
@click.option("--user", "-u", "user", default=None, help="User (default: $MEMSCRIBE_USER, else the OS user).")
def recall_cmd(tool: str, budget: int, user: str | None) -> None:
    """Hook command: the tool's hook JSON on stdin, the memories that matter as JSON on stdout.

    Installed hooks run the same thing without the CLI: ``python -m memscribe.cli.hub_hook TOOL``."""
    from memscribe.cli.hub_hook import run

    environ = {**os.environ, **({"MEMSCRIBE_USER": user} if user else {})}
    reply = run(tool, sys.stdin.read(), environ, budget=budget)
    if reply.get("error"):
        click.echo(f"memscribe recall: {reply['error']}", err=True)
    click.echo(json.dumps(reply["answer"], ensure_ascii=False))


def attach(group: click.Group) -> None:
    """Add these commands to the ``memscribe hub`` group."""
    for command in (install_cmd, uninstall_cmd, doctor_cmd, recall_cmd):
        group.add_command(command)
