"""Unit tests run torch on one thread: their matmuls are tiny, and on the shared 2-core machine a
second thread only adds contention (measured 30x slower under load)."""

import pytest
import torch

import lib.book.chapters  # noqa: F401  registers every chapter's evidence sets, as `python -m lib` does


@pytest.fixture(autouse=True, scope="session")
def one_torch_thread():
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)
