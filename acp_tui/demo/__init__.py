"""The built-in scripted agent behind `acp-tui --demo`."""
