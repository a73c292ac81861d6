"""Fixtures of the assignment tests: the module's FOLDER loaded once, and a reference cache per module
(the first grading of a module runs the reference, the others read it)."""
from __future__ import annotations

import os

import pytest

# Grading runs mix each spec seed with the installation's secret (grader/runner.py run_seed). The
# assignment tests grade with the spec's own seeds, the ones their variants were written against,
# on every machine; test_submissions.py turns the secret on for the cheats that need it.
os.environ["SPLAYLAB_GRADING_KEY"] = "off"

from grading.grader import load_assignment  # noqa: E402  (after the key)


@pytest.fixture(scope="module")
def assignment(request):
    return load_assignment(request.module.FOLDER)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("grading-cache")
