"""`LaunchOptions`: what the command line asked for, as `cli.parse_args` reads it and
`ui.launch.run_app` runs it. Stdlib only (imported by `--help` and `--version`)."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path

TYPE_CHECKING = False  # (not `typing`'s: `--help` and `--version` import no more than they need)
if TYPE_CHECKING:
    from argparse import ArgumentParser

    from acp_tui.presets import Preset


@dataclass(frozen=True)
class LaunchOptions:
    """The parsed command line (`cli.parse_args`)."""

    agent_argv: list[str]
    cwd: Path
    log_path: Path | None
    demo: bool
    cwd_defaulted: bool = False
    inspect: bool = False
    replay_path: Path | None = None
    replay_speed: float = 1.0
    replay_paused: bool = False
    resume: str | None = None
    """`--resume ID` (an id) or `--resume` alone ("": pick from the list)."""
    continue_last: bool = False
    protocol: int | None = None
    """`--protocol N`: the ACP version to offer (overrides the `protocol_version` setting)."""
    sandbox: str | None = None
    """`--sandbox MODE` (off, project, strict): overrides the preset's and the setting's."""
    sandbox_writable: tuple[Path, ...] = ()
    """`--sandbox-writable DIR` (repeated): more places the agent may write, this run only
    (absolute, existing)."""
    preset: Preset | None = None
    """The agent preset started (its defaults are applied once the session is open)."""
    pick_agent: bool = False
    """No agent given: choose one of the installed presets first."""
    list_agents: bool = False
    messages: tuple[str, ...] = ()
    """Problems with the presets in the config file, for the UI to show."""
    more_presets: tuple[Preset, ...] = ()
    """`-a A -a B …`: the presets after the first, one more session each (no prestart)."""

    @property
    def agent_label(self) -> str:
        """The agent's name for people until it tells its own in `initialize`: the demo's, the
        preset's title or name, else a short name of the command (never a module path)."""
        if self.demo:
            return DEMO_NAME
        if self.preset is not None:
            return self.preset.title or self.preset.name
        from acp_tui.client.command_name import command_name  # standard library only

        return command_name(self.agent_argv)


DEMO_NAME = "acp-tui demo agent"
"""What `--demo`'s agent is called before it says so itself (the name it gives, too)."""


def add_sandbox_writable(parser: ArgumentParser) -> None:
    """`--sandbox-writable DIR`, the same for `acp-tui` and `acp-tui check` (read with
    `sandbox_writable`)."""
    parser.add_argument(
        "--sandbox-writable",
        action="append",
        default=[],
        metavar="DIR",
        help="one more place the sandboxed agent may write, this run only (repeated; it must"
        " exist), e.g. the HOME a wrapper script gives the agent",
    )


def sandbox_writable(given: list[str]) -> tuple[Path, ...]:
    """`--sandbox-writable`'s paths, `~` expanded, made absolute from the current directory.
    Raises ValueError for one that does not exist (as a `sandbox_writable` entry would)."""
    paths = []
    for word in given:
        path = Path(os.path.expanduser(word)).absolute()
        if not path.exists():
            raise ValueError(f"--sandbox-writable: {path} does not exist")
        paths.append(path)
    return tuple(paths)


def with_preset(options: LaunchOptions, preset: Preset) -> LaunchOptions:
    """The options once a preset was picked (the agent picker)."""
    return dataclasses.replace(
        options, agent_argv=list(preset.command), preset=preset, pick_agent=False
    )
