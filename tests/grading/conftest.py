"""Fixtures of the assignment tests: the module's FOLDER loaded once, and a reference cache per module
(the first grading of a module runs the reference, the others read it)."""
from __future__ import annotations

import pytest

from grading.grader import load_assignment


@pytest.fixture(scope="module")
def assignment(request):
    return load_assignment(request.module.FOLDER)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("grading-cache")
