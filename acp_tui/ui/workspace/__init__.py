"""Several sessions in one app: a tab per session (its own agent process, `ScreenUi` and Textual
mode, so its screens and questions stay with it), the tab bar, the new-session picker, the
overview (ctrl+o) and what it leads to, closing a worktree tab, rewind's branches, and the saved
workspace written and restored for `--continue`."""
