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

    def append(self, value: T) -> T:
        """Add the next frame's value; returns the one stored (an equal value stored before is
        returned instead, so repeated names are one object)."""
        code = self._code_of.get(value)
        if code is None:
            if len(self._values) < self._limit:
                code = self._code_of[value] = len(self._values)
                self._values.append(value)
            else:
                code = self._limit
                self._aside[len(self._codes)] = value
        self._codes.append(code)
        return value if code == self._limit else self._values[code]

    def values(self) -> list[T]:
        """Every frame's value, in order (for tests and checks, not for hot paths)."""
        return [self[index] for index in range(len(self))]


class SparseColumn(Generic[T]):
    """Values by frame index, `default` for the frames that have none."""

    __slots__ = ("_default", "_length", "_values")

    def __init__(self, default: T) -> None:
        self._default = default
        self._values: dict[int, T] = {}
        self._length = 0

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> T:
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("frame index out of range")
        return self._values.get(index, self._default)

    def __setitem__(self, index: int, value: T) -> None:
        if not 0 <= index < self._length:
            raise IndexError("frame index out of range")
        if value is self._default or value == self._default:
            self._values.pop(index, None)
        else:
            self._values[index] = value

    def append(self, value: T) -> None:
        """Add the next frame's value."""
        self._length += 1
        self[self._length - 1] = value

    def values(self) -> list[T]:
        """Every frame's value, in order (for tests and checks, not for hot paths)."""
        return [self[index] for index in range(self._length)]
