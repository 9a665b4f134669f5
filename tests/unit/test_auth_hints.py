"""Which variable a login method needs, read from what the agent sent or known (issue 39, 10)."""

from __future__ import annotations

from acp_tui.client.auth_hints import env_hint, env_vars, sent_env_vars
from acp_tui.client.handshake import read_initialize_result
from acp_tui.client.hello import AuthMethodInfo


def methods(*raw: dict[str, object]) -> list[AuthMethodInfo]:
    answer = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": list(raw)}
    return read_initialize_result(answer).auth_methods


def test_the_variables_come_from_the_agents_own_fields_and_words() -> None:
    found = methods(
        {"id": "key", "name": "API key", "type": "env_var",
         "vars": [{"name": "ACME_API_KEY", "secret": True}, {"name": "ACME_BASE_URL"}]},
        {"id": "old", "name": "Old draft", "varName": "OLD_TOKEN"},
        {"id": "meta", "name": "Meta", "_meta": {"envVar": "META_KEY"}},
        {"id": "words", "name": "Words", "description": "Set `WORDS_API_KEY` first"},
        {"id": "gemini-api-key", "name": "Use Gemini API key"},
        {"id": "bad", "name": "Bad", "vars": [{"name": "rm -rf /; X"}, "lower"]},
    )  # fmt: skip
    assert [env_vars(m) for m in found] == [
        ("ACME_API_KEY", "ACME_BASE_URL"), ("OLD_TOKEN",), ("META_KEY",), ("WORDS_API_KEY",),
        ("GEMINI_API_KEY",), (),
    ]  # fmt: skip


def test_the_hint_names_the_variable_and_where_to_set_it() -> None:
    found = methods({"id": "gemini-api-key", "name": "Use Gemini API key"},
                    {"id": "oauth-personal", "name": "Log in with Google"})  # fmt: skip
    hint = env_hint(found, "gemini", "/home/u/.config/acp-tui/config.toml")
    assert hint == (
        "Use Gemini API key needs GEMINI_API_KEY. Set it in the environment you start acp-tui "
        "from, or in /home/u/.config/acp-tui/config.toml under [agents.gemini] as "
        'env = { GEMINI_API_KEY = "…" }, then restart the agent (ctrl+r).'
    )
    assert env_hint(found[1:], "gemini") is None
    assert sent_env_vars([None], None) == ()
