"""A container's arrangement whose tall children cost one entry each in its spatial map, not one
per 20 rows of their height.

Textual finds the children a container shows through a spatial map (`SpatialMap`): each child
is put in every square of a 100x20 grid its region covers, every time the container is
arranged. The conversation's frozen history grows with the session (about 45 rows a turn at 160
columns: 13,000 rows, 660 squares after 300 turns), and the conversation is arranged several
times a turn (each mount, each height change of the streaming message), so that work grew with
every turn: 650 squares filled a turn at turn 20, 5,000 at turn 300 (replies written at once).

`TallRegionMap` keeps a region taller than `TALL_ROWS` rows out of the grid, in a list checked
against each query (a few tall children: the histories). What a query returns is the same set;
the tall ones come after the others (Textual's own order is that of the grid squares; a
container whose children overlap is not one to use this for: the conversation stacks its
children)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from textual._spatial_map import SpatialMap
from textual.geometry import Offset, Region
from textual.layout import DockArrangeResult, WidgetPlacement

ValueType = TypeVar("ValueType")

TALL_ROWS = 200
"""Rows past which a region is kept out of the grid (ten grid squares)."""


class TallRegionMap(SpatialMap[ValueType]):
    """A `SpatialMap` that keeps regions taller than `TALL_ROWS` aside."""

    def __init__(self) -> None:
        super().__init__()
        self.tall: list[tuple[Region, ValueType]] = []
        """The tall regions (offset applied) and their values, in the order inserted."""

    def insert(
        self, regions_and_values: Iterable[tuple[Region, Offset, bool, bool, ValueType]]
    ) -> None:
        others: list[tuple[Region, Offset, bool, bool, ValueType]] = []
        total_region = self.total_region
        for entry in regions_and_values:
            region, offset, fixed, overlay, value = entry
            if fixed or region.height <= TALL_ROWS:
                others.append(entry)
                continue
            if not overlay:
                total_region = total_region.union(region)  # (as Textual: without the offset)
            self.tall.append((region + offset, value))
        self.total_region = total_region
        super().insert(others)

    def get_values_in_region(self, region: Region) -> list[ValueType]:
        values = super().get_values_in_region(region)
        overlaps = region.overlaps
        values.extend(value for tall, value in self.tall if overlaps(tall))
        return values


def tall_regions_apart(result: DockArrangeResult) -> DockArrangeResult:
    """`result` (an arrangement, cached by its container) with its spatial map a
    `TallRegionMap` (built as Textual builds its own, once)."""
    if result._spatial_map is None:
        spatial_map: TallRegionMap[WidgetPlacement] = TallRegionMap()
        spatial_map.insert(
            (
                placement.region.grow(placement.margin),
                placement.offset,
                placement.fixed,
                placement.overlay,
                placement,
            )
            for placement in result.placements
        )
        result._spatial_map = spatial_map
    return result
