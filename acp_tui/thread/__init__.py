"""What happened in a session, as data: a pure reducer over session updates."""
