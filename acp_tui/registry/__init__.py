"""The official ACP agent registry: its index, fetched and cached; agents installed from it.

`index` (the index's entries, checked and made safe to show), `fetch` (the index over HTTP with
its validators, cached under the XDG cache dir, used from the cache when offline), `extract`
(archives unpacked with nothing outside the target), `install` (a binary agent downloaded once
into `<cache>/agents/<id>/<version>/`), `agents` (registry entries as agent presets, overlaid by
the built-ins and the config). Stdlib only; nothing here imports Textual.
"""

DEFAULT_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
"""The official index (what Zed and JetBrains read)."""
