"""The Textual user interface: the app and its session tabs (`app`, `workspace/`), the main
screen and the modals (`screens/`, listed in docs/ARCHITECTURE.md), the widgets (`widgets/`),
streaming Markdown (`markdown/`), the traffic inspector (`inspector/`), the start before
Textual is imported (`early_start`, `first_frame`, `early_input`, `launch`), the questions of
the client core as screens (`screen_ui`, `key_guard`), the process-wide policy (`runtime`) and
Textual's private parts, behind one door (`textual_internals/`). Agent text is never parsed as
markup here; files are read and written only through the host services."""
