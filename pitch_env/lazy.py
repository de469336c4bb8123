"""A read-only mapping whose dict is built on first access (records and infosets nobody reads cost nothing)."""

from __future__ import annotations

from collections.abc import Mapping


class LazyMapping(Mapping):
    """Subclasses implement ``_build() -> dict``; it runs at most once."""

    __slots__ = ("_dict",)

    def __init__(self):
        self._dict = None

    def _build(self) -> dict:
        raise NotImplementedError

    def _get(self) -> dict:
        if self._dict is None:
            self._dict = self._build()
        return self._dict

    def __getitem__(self, key):
        return self._get()[key]

    def __iter__(self):
        return iter(self._get())

    def __len__(self):
        return len(self._get())

    def __repr__(self):
        return f"{type(self).__name__}({self._get()!r})"
