"""The models built on first use (`acp_tui.protocol.models.LATER`): the package names each one
its submodule exports, and gives the same class as the submodule, loaded only when asked for."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from acp_tui.protocol import models


def test_later_names_every_export_of_its_submodules() -> None:
    for module, names in models.LATER.items():
        exported = importlib.import_module(f"acp_tui.protocol.models.{module}").__all__
        assert sorted(names) == sorted(exported), module


def test_a_later_name_is_its_submodules_object_and_in_all() -> None:
    from acp_tui.protocol.models.providers import ProviderInfo

    assert models.ProviderInfo is ProviderInfo
    assert {name for names in models.LATER.values() for name in names} <= set(models.__all__)


def test_an_unknown_name_is_an_attribute_error() -> None:
    unknown = "NoSuchModel"
    with pytest.raises(AttributeError, match=unknown):
        getattr(models, unknown)


PROBE = """
import sys
import acp_tui.protocol.models as models
before = "acp_tui.protocol.models.history" in sys.modules
from acp_tui.protocol.models import ForkSessionResponse
print(before, "acp_tui.protocol.models.history" in sys.modules, ForkSessionResponse.__module__)
"""


def test_a_later_submodule_is_imported_when_a_name_of_it_is_first_asked_for() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.split() == ["False", "True", "acp_tui.protocol.models.history"]
