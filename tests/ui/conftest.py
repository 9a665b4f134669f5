"""UI tests run the app as users run it: each finished turn freezes into the frozen history.

The app freezes a finished turn's entries at the turn end (see
`acp_tui.ui.widgets.conversation_turn_end`); the tests read what the user sees
(`tests/ui/conversation_text.py`: an entry's drawing, frozen or live) or thaw an entry by the
key or click a user would use. The one exception is `live_window` in
`tests/ui/test_conversation_window.py`: its tests of the window of live widgets and of the
frozen drawing against the live one keep their conversation's finished turns live, and say so.
"""
