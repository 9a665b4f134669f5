"""The Textual user interface."""
