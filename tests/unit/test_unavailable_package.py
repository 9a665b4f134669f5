"""The installer's words for a package version that cannot be had (issue 39, 10)."""

from __future__ import annotations

from acp_tui.client.unavailable_package import UnavailablePackage, unavailable_package


def test_npm_etarget_e404_and_uv_are_read() -> None:
    assert unavailable_package(
        ["npm ERR! code ETARGET", "npm ERR! notarget No matching version found for pkg@1.2.3."]
    ) == UnavailablePackage("pkg@1.2.3", "npm")
    assert unavailable_package(
        ["npm error code E404", "npm error 404  '@acme/agent@2.0.0' is not in this registry."]
    ) == UnavailablePackage("@acme/agent@2.0.0", "npm")
    assert unavailable_package(["npm error code E404"]) == UnavailablePackage("", "npm")
    assert unavailable_package(
        ["  x No solution found when resolving tool dependencies:",
         "  ╰─▶ Because there is no version of fast-agent-mcp==9.9.9 and you require it"]
    ) == UnavailablePackage("fast-agent-mcp==9.9.9", "uv")  # fmt: skip


def test_other_failures_are_not_taken_for_a_missing_version() -> None:
    assert unavailable_package(["fatal: config file is broken", "Error: EACCES"]) is None
    assert unavailable_package([]) is None
