"""Each library's own loop runs on every variant (the loops are in interop/loops.py)."""

from __future__ import annotations

import warnings

import pytest

import pitch_env
from interop import loops


@pytest.mark.parametrize("variant", pitch_env.variants())
@pytest.mark.parametrize("label", list(loops.LOOPS))
def test_library_loop_runs_on_every_variant(label, variant):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        steps, seconds = loops.LOOPS[label](variant)
    assert steps > 0 and seconds > 0
