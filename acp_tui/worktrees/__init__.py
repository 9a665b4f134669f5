"""Git worktrees below the UI: a worktree per session (`worktrees`), what changed in one
(`worktree_diff`), bringing it into the main checkout (`apply`, `merge`), git itself (`git`).
No Textual here. (The saved workspace of a directory is `client/saved_workspace.py`; the UI's
session tabs are `ui/workspace`.)"""
