"""Getting things out of acp-tui, without Textual: the conversation as Markdown, what
`/copy` takes, the clipboard, terminal notifications, opening media with the system viewer."""
