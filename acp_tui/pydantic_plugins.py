"""The app does not look for pydantic plugins.

The first time a model is built, pydantic looks for plugins (the `pydantic` entry-point group):
`pydantic.plugin._loader` imports `importlib.metadata` (and with it `email`, `zipfile`, `csv`,
...) and reads the entry points of every installed distribution: about 17 ms of CPU before the
first frame (measured with the app's 51 distributions installed; more with more), for nothing: a
plugin (logfire's, say) would wrap the validation of every frame the agent sends, which acp-tui
neither needs nor offers, and an app installed in its own environment (`uv tool`, pipx) has none
to find. `PYDANTIC_DISABLE_PLUGINS` would skip the scan but not the import, and an environment
variable is inherited by the agent, which may want its plugins.

`skip_pydantic_plugins()` (called first thing by `acp-tui`, this process only) puts a loader
that finds no plugins in the place of pydantic's, unless pydantic's is loaded already or
`ACP_TUI_PYDANTIC_PLUGINS=1`. Standard library only, nothing imported: it is called before the
first frame is drawn. Layer-neutral: it uses no other module of acp_tui.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterable

LOADER = "pydantic.plugin._loader"
"""The module `pydantic.plugin._schema_validator` asks for `get_plugins` (pydantic 2.x)."""
OPT_IN = "ACP_TUI_PYDANTIC_PLUGINS"


def skip_pydantic_plugins() -> None:
    """pydantic's plugin loader replaced, in this process, by one that finds none."""
    if LOADER in sys.modules or os.environ.get(OPT_IN) == "1":
        return
    loader = types.ModuleType(LOADER, "acp-tui: no pydantic plugins (acp_tui.pydantic_plugins)")
    loader.get_plugins = _no_plugins  # type: ignore[attr-defined]
    sys.modules[LOADER] = loader


def _no_plugins(*args: object, **kwargs: object) -> Iterable[object]:
    return ()  # (any arguments: a later pydantic may pass some)
