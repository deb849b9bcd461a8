"""The examples in the hardware package's docstrings, run with the rest of the suite.

(``pytest``'s testpaths do not include ``hardware/`` itself.)
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import hardware

MODULES = sorted(m.name for m in pkgutil.iter_modules(hardware.__path__, "hardware."))


def test_every_module_is_checked() -> None:
    assert {"hardware.boardmap", "hardware.protocol", "hardware.tracker",
            "hardware.interpreter", "hardware.script"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
