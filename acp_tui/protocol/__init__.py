"""The wire: JSON-RPC over NDJSON, the ACP models (v1 and the v2 draft), what acp-tui sends
(`agent_api`) and the one reader of `session/update`, the agent process and its process tree
(with the watchdog), and the traffic as the inspector and `check` see it (the traffic store, the
conformance checks, the schema fit). No UI, no policy."""
