"""The host services: the agent's requests answered, and the machine around the session.

The agent's requests: files (`filesystem`, through `file_access` and `beneath` walks, writes
atomic, logged in `change_log`, reverted by `reverts`), terminals on real PTYs (`terminals`),
permission requests and the remembered rules (`permissions`, `permission_rules`). Around them,
everything acp-tui does to the machine for a session: the cwd boundary (`boundary`), its own
files and directories (`own_files`, `own_writes`, `app_dirs`, `local_files`, `screenshots`,
`settings_file`, `error_log`, `append_log` for the `--log` file, `new_files` for what it
creates new: temporary files, registry downloads and their archives unpacked), the shared
directory watchers and the change monitor (`dir_watch`, `inotify`, `change_monitor`), the
process guard that leaves no orphans (`process_guard`), and hooks for benchmarks (`gc_pauses`,
`memory_snapshots`). It knows no UI: it asks the user through `asker`, the permission broker's
signals and the write gate it is given. No Textual."""
