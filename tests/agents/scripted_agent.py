"""A real ACP agent process driven by a scenario file.

Usage: python tests/agents/scripted_agent.py SCENARIO.json [--transcript FILE]
The engine and the step format live in acp_tui/demo/scenario.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from acp_tui.demo.scenario import main

if __name__ == "__main__":
    main()
