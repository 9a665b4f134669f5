"""The prompt composer's logic, without Textual: slash commands, @-mentions and the file index,
turning a prompt into content blocks. The widgets in `acp_tui.ui` drive these; getting things
out (export, clipboard, notifications) is `acp_tui.output`."""
