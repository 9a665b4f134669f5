"""The wire: JSON-RPC over NDJSON, the ACP models, the agent process. No UI, no policy."""
