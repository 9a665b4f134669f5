"""Compact columns for the `TrafficStore`: a few bytes a frame, nothing the collector walks.

A column of the store holds one value per frame. As a `list` each value costs a pointer (8
bytes) however small the set it comes from, and a long session holds hundreds of thousands
of frames. `CodedColumn` keeps values of a small set (directions, frame kinds, method names,
update kinds) as one code per frame in an `array` and each distinct value once; past its
`limit` of distinct values (names come from the agent) a value is kept aside by index.
`SparseColumn` keeps only the frames whose value is not the default (request ids, error codes,
pairs and latencies: a few frames a turn, against a hundred streamed chunks).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class CodedColumn(Generic[T]):
    """One code a frame (`typecode`: "B" for up to 255 values, "H" for up to 65535)."""

    __slots__ = ("_aside", "_code_of", "_codes", "_limit", "_values")

    def __init__(self, typecode: str, values: tuple[T, ...], limit: int) -> None:
        self._codes = array(typecode)
        self._values: list[T] = list(values)
        self._code_of: dict[T, int] = {value: code for code, value in enumerate(values)}
        self._limit = limit
        self._aside: dict[int, T] = {}
        """Values past the limit, by frame index (their code is `limit`)."""

    def __len__(self) -> int:
        return len(self._codes)

    def __getitem__(self, index: int) -> T:
        code = self._codes[index]
        if code == self._limit:
            return self._aside[index if index >= 0 else index + len(self._codes)]
        return self._values[code]

    def append(self, value: T) -> None:
        """Add the next frame's value."""
        code = self._code_of.get(value)
        if code is None:
            if len(self._values) < self._limit:
                code = self._code_of[value] = len(self._values)
                self._values.append(value)
            else:
                code = self._limit
                self._aside[len(self._codes)] = value
        self._codes.append(code)

    def values(self) -> list[T]:
        """Every frame's value, in order (for tests and checks, not for hot paths)."""
        return [self[index] for index in range(len(self))]


class SparseColumn(Generic[T]):
    """Values by frame index, `default` for the frames that have none; as long as its store
    (`length`), so a frame with the default costs nothing, not even an append."""

    __slots__ = ("_default", "_length", "_values")

    def __init__(self, default: T, length: Callable[[], int]) -> None:
        self._default = default
        self._values: dict[int, T] = {}
        self._length = length

    def __len__(self) -> int:
        return self._length()

    def __getitem__(self, index: int) -> T:
        length = self._length()
        if index < 0:
            index += length
        if not 0 <= index < length:
            raise IndexError("frame index out of range")
        return self._values.get(index, self._default)

    def __setitem__(self, index: int, value: T) -> None:
        if not 0 <= index < self._length():
            raise IndexError("frame index out of range")
        if value is self._default or value == self._default:
            self._values.pop(index, None)
        else:
            self._values[index] = value

    def values(self) -> list[T]:
        """Every frame's value, in order (for tests and checks, not for hot paths)."""
        return [self[index] for index in range(self._length())]
