"""Agents of acp-tui's own, run as processes of their own: the demo agent behind `acp-tui --demo`
(`agent`, v2 in `v2`, with the sample project it opens, `sample_project`) and the scripted agent
that plays a list of steps for tests and benchmarks (`scenario`). They speak `protocol` only."""
