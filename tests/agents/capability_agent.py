"""An ACP v1 agent that sends each optional feature only to a client that asked for it.

Usage: python tests/agents/capability_agent.py [FEATURE ...]   (default: every feature)

At each prompt it sends, for every FEATURE whose client capability `initialize` offered, that
feature's updates, and for every one not offered a text chunk "not asked: FEATURE" (so a test
tells "not offered" from "not shown"); then it ends the turn. Features and what asks for them:

  notices     clientCapabilities.session.notices   a `notice`
  compaction  clientCapabilities.session.compaction  a `compaction_update` and its summary chunk
  plans       clientCapabilities.plan              a `plan_update`
  subagents   clientCapabilities.subagents         a child announced (`subagent_update`), its own
                                                   message under its session id, then idle

As the schema says an agent must: nothing of a feature reaches a client that did not offer it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

FEATURES = ("notices", "compaction", "plans", "subagents")


def offered(capabilities: dict[str, Any], feature: str) -> bool:
    """Whether `clientCapabilities` asks for `feature` (an object present)."""
    session = capabilities.get("session")
    session = session if isinstance(session, dict) else {}
    where = {
        "notices": session.get("notices"),
        "compaction": session.get("compaction"),
        "plans": capabilities.get("plan"),
        "subagents": capabilities.get("subagents"),
    }
    return isinstance(where[feature], dict)


def feature_updates(feature: str, session_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(session id, update) pairs that show `feature`."""
    if feature == "notices":
        notice = {"sessionUpdate": "notice", "severity": "warning", "title": "Rate limit near"}
        return [(session_id, notice)]
    if feature == "compaction":
        return [
            (session_id, {"sessionUpdate": "compaction_update", "compactionId": "k1",
                          "status": "completed"}),
            (session_id, {"sessionUpdate": "compaction_summary_chunk", "compactionId": "k1",
                          "content": {"type": "text", "text": "earlier: set up the project"}}),
        ]  # fmt: skip
    if feature == "plans":
        plan = {"type": "markdown", "planId": "p1", "content": "- look\n- fix"}
        return [(session_id, {"sessionUpdate": "plan_update", "plan": plan})]
    child = f"{session_id}/child-1"
    return [
        (session_id, {"sessionUpdate": "subagent_update", "sessionId": child,
                      "title": "Explore", "state": {"state": "running"}}),
        (child, {"sessionUpdate": "agent_message_chunk",
                 "content": {"type": "text", "text": "the child looked around"}}),
        (session_id, {"sessionUpdate": "subagent_update", "sessionId": child,
                      "state": {"state": "idle", "stopReason": "end_turn"}}),
    ]  # fmt: skip


def send(frame: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **frame}) + "\n")
    sys.stdout.flush()


def main() -> None:
    features = tuple(sys.argv[1:]) or FEATURES
    capabilities: dict[str, Any] = {}
    for line in sys.stdin:
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        if not isinstance(frame, dict) or "id" not in frame or "method" not in frame:
            continue  # notifications (session/cancel) and answers: nothing to do
        method, params = frame["method"], frame.get("params") or {}
        if method == "initialize":
            offer = params.get("clientCapabilities")
            capabilities = offer if isinstance(offer, dict) else {}
            result: Any = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
        elif method == "session/new":
            result = {"sessionId": "cap-1"}
        elif method == "session/prompt":
            session_id = str(params.get("sessionId"))
            for feature in features:
                if offered(capabilities, feature):
                    for target, update in feature_updates(feature, session_id):
                        send({"method": "session/update",
                              "params": {"sessionId": target, "update": update}})  # fmt: skip
                else:
                    text = {"type": "text", "text": f"not asked: {feature}\n"}
                    update = {"sessionUpdate": "agent_message_chunk", "content": text}
                    send({"method": "session/update",
                          "params": {"sessionId": session_id, "update": update}})  # fmt: skip
            result = {"stopReason": "end_turn"}
        else:
            send({"id": frame["id"], "error": {"code": -32601, "message": f"no {method}"}})
            continue
        send({"id": frame["id"], "result": result})


if __name__ == "__main__":
    main()
