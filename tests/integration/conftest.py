"""Fixtures shared by the integration tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.demo.sample_project import create_sample_project


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A sample project for the demo agent to work in (its files as the tour expects them)."""
    create_sample_project(tmp_path)
    return tmp_path
