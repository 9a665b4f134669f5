"""The official ACP agent registry: its index, fetched and cached; agents installed from it.

`index` (the index's entries, checked and made safe to show), `cache` (the index's copy under
the XDG cache dir, read without the network), `fetch` (its refresh over HTTP with its
validators; the cache used when offline), `extract` (archives unpacked with nothing outside the
target), `installed` and `install` (a binary agent downloaded once into
`<cache>/agents/<id>/<version>/`, its `progress` on stderr before the UI), `launch` (how the
registry starts an agent), `agents` (registry entries as agent presets, overlaid by the
built-ins and the config), `catalog` (built-ins, registry and config as one preset table).
Stdlib only; nothing here imports Textual.
"""

DEFAULT_URL = "https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json"
"""The official index (what Zed and JetBrains read)."""
