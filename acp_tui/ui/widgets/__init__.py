"""The widgets of the main screen: the conversation (live entries as Line-API views, the frozen
history, streaming messages, tool call cards with their permission prompts and terminals), the
composer and its completion list, the sidebar and its sections, the status bar, queue, footer
and crash banner, and the diff views."""
