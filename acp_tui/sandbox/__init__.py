"""The agent's sandbox: Landlock rules that confine what the agent process and every process it
starts may write (and, in `strict` mode, read). Below `host` (its terminals use it) and above
`protocol` (which takes the confinement as a plain callable); no third-party import."""
