"""The screens: the main screen of a session (`main`, with the parts it owns:
`composer_actions`, `settings_actions`, `sidebar_fit`; `session_screen_port`: the screen as they
see it) and the modals pushed over it: reviews, questions, forms, pickers, the changes and rules
lists, the overview and compare, the rewind confirmation, the login; and the agent picker app run
before the main one (`agent_picker`).
"""
