"""Theme files (TOML): the ones shipped in `themes/` and the user's own; problems collected.
Files are read through the host (`host/settings_file.read_settings_file`): regular files of at
most 1 MiB only, so a FIFO named `*.toml` is a problem reported, never a start-up that hangs."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

from acp_tui.host.settings_file import read_settings_file, settings_files_in

COLOR_KEYS = (
    "primary", "secondary", "warning", "error", "success", "accent",
    "foreground", "background", "surface", "panel", "boost",
)  # fmt: skip
OTHER_KEYS = ("name", "dark", "luminosity_spread", "text_alpha", "variables")


def theme_dirs() -> list[Path]:
    """Shipped themes (in the wheel, or the repo's top-level `themes/`), then the user's."""
    package = Path(__file__).resolve().parents[1]
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return [package / "themes", package.parent / "themes", config_home / "acp-tui" / "themes"]


def load_themes(dirs: Iterable[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every valid theme file in `dirs`; one message per file that could not be used."""
    themes: list[Theme] = []
    problems: list[str] = []
    for directory in theme_dirs() if dirs is None else dirs:
        for path in settings_files_in(directory, ".toml"):
            try:
                themes.append(theme_from_file(path))
            except (OSError, ValueError) as error:
                problems.append(f"theme {path}: {error}")
    return themes, problems


def theme_from_file(path: Path) -> Theme:
    """A Textual theme from a TOML theme file; raises ValueError saying what is wrong with it."""
    try:
        data = tomllib.loads(read_settings_file(path))  # a regular file of at most 1 MiB
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"not valid TOML ({error})") from None
    except RecursionError:  # tomllib recurses once per level of arrays and inline tables
        raise ValueError("nested too deep to read") from None
    unknown = sorted(set(data) - set(COLOR_KEYS) - set(OTHER_KEYS))
    if unknown:
        raise ValueError(f"unknown keys: {', '.join(unknown)}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("needs a `name`")
    if "primary" not in data:
        raise ValueError("needs a `primary` colour")
    for key in COLOR_KEYS:
        if key in data:
            try:
                Color.parse(data[key])
            except (ColorParseError, TypeError):
                raise ValueError(f"{key} = {data[key]!r} is not a colour") from None
    if "dark" in data and not isinstance(data["dark"], bool):
        raise ValueError("dark must be true or false")
    return Theme(**data)
