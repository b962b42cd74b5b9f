"""A computation in its own process: another process, the caller's runtime, its value or its error back."""

import math
import os

import pytest

from lib.util.background import in_background
from lib.util.runtime import current


def test_it_computes_in_another_process():
    assert in_background(os.getpid).result() != os.getpid()


def test_it_returns_the_value_and_takes_keyword_arguments():
    assert in_background(math.fsum, [0.1] * 10).result() == 1.0
    assert in_background(int, "ff", base=16).result() == 255


def test_it_computes_under_the_callers_runtime(monkeypatch):
    monkeypatch.setenv("LIB_THREADS", "3")
    assert in_background(current).result() == current()
    assert current().threads == 3


def test_its_error_is_raised_by_result():
    with pytest.raises(ValueError, match="math domain error"):
        in_background(math.sqrt, -1.0).result()


def test_a_named_function_is_imported_in_that_process_only():
    assert in_background("os:getpid").result() != os.getpid()
    assert in_background("math:fsum", [0.5, 0.5]).result() == 1.0
    assert in_background("lib.util.runtime:Runtime.environment", current()).result() == current().environment()


def test_a_process_that_dies_without_a_result_says_so():
    with pytest.raises(RuntimeError, match="without a result .exit code 3."):
        in_background("os:_exit", 3).result()


def test_an_unpicklable_value_comes_back_as_an_error_that_says_so():
    with pytest.raises(RuntimeError, match="could not be sent"):
        in_background("threading:Lock").result()
