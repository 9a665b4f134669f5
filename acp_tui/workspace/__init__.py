"""The workspace below the UI: git worktrees for sessions (`worktrees`), what changed in one
(`worktree_diff`), bringing it into the main checkout (`apply`), and the saved workspace of a
directory (`store`). No Textual here."""
