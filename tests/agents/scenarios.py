"""Builders for scripted-agent scenarios (see acp_tui/demo/scenario.py for the step format)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCRIPTED_AGENT = Path(__file__).resolve().parent / "scripted_agent.py"
Step = dict[str, Any]


def initialize_ok(protocol_version: int = 1, **agent_capabilities: Any) -> Step:
    return {
        "expect": "initialize",
        "respond": {
            "protocolVersion": protocol_version,
            "agentCapabilities": agent_capabilities,
            "authMethods": [],
        },
    }


def new_session_ok(session_id: str = "sess-1", **extra: Any) -> Step:
    return {"expect": "session/new", "respond": {"sessionId": session_id, **extra}}


def expect_prompt(save_as: str = "prompt") -> Step:
    """Wait for session/prompt without answering it yet (answer with `end_turn`)."""
    return {"expect": "session/prompt", "save_as": save_as}


def end_turn(save_as: str = "prompt", stop_reason: str = "end_turn") -> Step:
    return {"respond_to": save_as, "respond": {"stopReason": stop_reason}}


def update(session_id: str, update: dict[str, Any]) -> Step:
    return {"notify": "session/update", "params": {"sessionId": session_id, "update": update}}


def agent_text(session_id: str, text: str) -> Step:
    return update(
        session_id,
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
    )


def stream_text(session_id: str, text: str, chunk: int = 8, rate: float | None = None) -> Step:
    spec: dict[str, Any] = {"session_id": session_id, "text": text, "chunk": chunk}
    if rate:
        spec["rate"] = rate
    return {"stream": spec}


def client_request(method: str, params: Any, save_as: str | None = None) -> Step:
    step: Step = {"request": method, "params": params}
    if save_as:
        step["save_as"] = save_as
    return step


def stderr_flood(total_bytes: int, line: str = "log line from the agent\n") -> Step:
    return {"stderr": line, "repeat": max(1, total_bytes // len(line))}


@dataclass(frozen=True)
class ScriptedAgent:
    argv: list[str]
    scenario_path: Path
    transcript_path: Path

    def transcript(self) -> list[Any]:
        """Every frame the agent received, in order (non-JSON lines as {"raw": ...})."""
        if not self.transcript_path.exists():
            return []
        entries = [json.loads(line) for line in self.transcript_path.read_text().splitlines()]
        return [entry.get("frame", entry) for entry in entries]

    def received(self, method: str) -> list[Any]:
        return [f for f in self.transcript() if isinstance(f, dict) and f.get("method") == method]


def write_scenario(tmp_path: Path, steps: list[Step], name: str = "scenario") -> ScriptedAgent:
    """Write `steps` under tmp_path; return the argv that runs them and the transcript path."""
    scenario = tmp_path / f"{name}.json"
    scenario.write_text(json.dumps(steps))
    transcript = tmp_path / f"{name}.transcript.jsonl"
    argv = [sys.executable, str(SCRIPTED_AGENT), str(scenario), "--transcript", str(transcript)]
    return ScriptedAgent(argv, scenario, transcript)


def write_file(path: str, text: str | None) -> Step:
    """The agent edits a file itself, as claude-agent-acp or codex do (None deletes it)."""
    return {"write_file": {"path": path, "text": text}}
