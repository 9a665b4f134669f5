"""Public docstring coverage of the `acp_tui` package.

Counted as `help()` would show it: every module is imported, and each public name defined
in it (a class, function or method whose name does not start with `_`, reached through public
names only) counts as documented when `inspect.getdoc` finds a docstring. `getdoc` follows the
class hierarchy, so a method that overrides a documented method of a base class (Textual's
`compose`, `render_line`, ...) counts as documented by it, as `help()` shows it; a class needs a
docstring of its own (a subclass is not described by its base's).
Each package (the directory of a module) gets a row; the last line is the total:

    uv run python bench/docstring_coverage.py            # the table
    uv run python bench/docstring_coverage.py --missing  # also every undocumented name
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType

ROOT_PACKAGE = "acp_tui"


@dataclass
class Coverage:
    """Documented and undocumented public names of one group of modules."""

    documented: int = 0
    missing: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        """How many public names were counted."""
        return self.documented + len(self.missing)

    @property
    def percent(self) -> float:
        """Documented names as a percentage of all counted (100 when there are none)."""
        return 100.0 * self.documented / self.total if self.total else 100.0

    def count(self, name: str, obj: object) -> None:
        """Count one public name: a class by its own docstring, anything else by what
        `inspect.getdoc` finds (a method overriding a documented one inherits its docstring)."""
        doc = obj.__doc__ if inspect.isclass(obj) else inspect.getdoc(obj)
        if doc and doc.strip():
            self.documented += 1
        else:
            self.missing.append(name)

    def add(self, other: Coverage) -> None:
        """Fold another group's counts into this one."""
        self.documented += other.documented
        self.missing.extend(other.missing)


def _members(owner: type, prefix: str) -> Iterator[tuple[str, object]]:
    for name, raw in vars(owner).items():
        if name.startswith("_"):
            continue
        if isinstance(raw, staticmethod | classmethod | property) or inspect.isfunction(raw):
            yield f"{prefix}.{name}", getattr(owner, name, raw)
        elif inspect.isclass(raw) and raw.__qualname__.startswith(owner.__qualname__ + "."):
            yield f"{prefix}.{name}", raw
            yield from _members(raw, f"{prefix}.{name}")


def module_coverage(module: ModuleType) -> Coverage:
    """What of one module's public surface has a docstring (the module itself counts once)."""
    coverage = Coverage()
    coverage.count(module.__name__, module)
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            coverage.count(f"{module.__name__}.{name}", obj)
            for member_name, member in _members(obj, f"{module.__name__}.{name}"):
                coverage.count(member_name, member)
        elif inspect.isfunction(obj):
            coverage.count(f"{module.__name__}.{name}", obj)
    return coverage


def _modules(root: str) -> Iterator[ModuleType]:
    package = importlib.import_module(root)
    yield package
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{root}."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]) or info.name.endswith(
            "__main__"
        ):
            continue
        yield importlib.import_module(info.name)


def package_coverage(root: str = ROOT_PACKAGE) -> dict[str, Coverage]:
    """Coverage per package (a package's `__init__` and its modules), every module included."""
    packages: dict[str, Coverage] = {}
    for module in _modules(root):
        is_package = hasattr(module, "__path__")
        package = module.__name__ if is_package else module.__name__.rpartition(".")[0]
        packages.setdefault(package, Coverage()).add(module_coverage(module))
    return packages


def total_coverage(packages: dict[str, Coverage]) -> Coverage:
    """All packages' counts together."""
    total = Coverage()
    for coverage in packages.values():
        total.add(coverage)
    return total


def main(argv: list[str] | None = None) -> int:
    """Print the table (and, with --missing, every undocumented name)."""
    parser = argparse.ArgumentParser(description="Public docstring coverage of acp_tui.")
    parser.add_argument("--missing", action="store_true", help="list every undocumented name")
    args = parser.parse_args(argv)
    packages = package_coverage()
    print(f"{'package':<34} {'documented':>10} {'public':>7} {'coverage':>9}")
    for package, coverage in sorted(packages.items()):
        print(
            f"{package:<34} {coverage.documented:>10} {coverage.total:>7} {coverage.percent:>8.1f}%"
        )
    total = total_coverage(packages)
    if args.missing:
        for name in total.missing:
            print(f"  missing: {name}")
    print(f"{'total':<34} {total.documented:>10} {total.total:>7} {total.percent:>8.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
