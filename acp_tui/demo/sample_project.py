"""The small project `acp-tui --demo` opens, so the demo agent has real files to read and edit.

`SAMPLE_FILES` are README.md, src/app.py and pyproject.toml; the UI has the host make them in a
new private directory (`host.new_files.private_tree`) for `acp-tui --demo` without `--cwd`;
`create_sample_project(root)` writes them where a test says.
The demo agent's `/edit` step changes three separate places of `APP_PY` (see
`acp_tui.demo.content.APP_EDITS`), so the diff it proposes has three hunks.
"""

from __future__ import annotations

from pathlib import Path

README_MD = """\
# todo-demo

A tiny to-do list used by the acp-tui demo.

The demo agent reads this file, lists the directory in a terminal,
and proposes an edit to `src/app.py` that you can accept or reject.

## Usage

    python src/app.py "buy milk" "water the plants"

## Layout

- `src/app.py`: the whole application
- `pyproject.toml`: project metadata
"""

APP_PY = '''\
"""A tiny to-do list, the sample project of the acp-tui demo."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field


@dataclass
class Task:
    title: str
    done: bool = False


@dataclass
class TodoList:
    tasks: list[Task] = field(default_factory=list)

    def add(self, title: str) -> Task:
        task = Task(title)
        self.tasks.append(task)
        return task

    def complete(self, index: int) -> None:
        self.tasks[index].done = True

    def pending(self) -> list[Task]:
        return [task for task in self.tasks if not task.done]


def render(todo: TodoList) -> str:
    lines = []
    for number, task in enumerate(todo.tasks, start=1):
        mark = "x" if task.done else " "
        lines.append(f"[{mark}] {number}. {task.title}")
    return "\\n".join(lines)


def main(argv: list[str]) -> int:
    todo = TodoList()
    for title in argv:
        todo.add(title)
    print(render(todo))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
'''

PYPROJECT_TOML = """\
[project]
name = "todo-demo"
version = "0.1.0"
description = "A tiny to-do list used by the acp-tui demo"
requires-python = ">=3.11"
"""

SAMPLE_FILES: dict[str, str] = {
    "README.md": README_MD,
    "src/app.py": APP_PY,
    "pyproject.toml": PYPROJECT_TOML,
}


def create_sample_project(root: Path) -> None:
    """Write the demo project's files into `root` (created if missing; existing files replaced)."""
    for relative, text in SAMPLE_FILES.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
