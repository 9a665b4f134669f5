"""The prompt composer's logic, without Textual: slash commands, @-mentions and the file index,
turning a prompt into content blocks, exporting a conversation, the clipboard and terminal
notifications. The widgets in `acp_tui.ui` drive these."""
