"""lib.geneft.network: the stacked forward pass against a plain per-model torch.nn reference."""

import pytest
import torch

from lib.geneft.network import (
    MODES,
    Pairs,
    Stack,
    backward,
    flatten,
    forward,
    init_stack,
    input_dim,
    layout_of,
    logits,
    pair_inputs,
)

N, D = 7, 2


def _reference(stack, m: int, mode: str) -> torch.Tensor:
    """Model m, pair by pair, with nn.Linear layers holding the same weights."""
    layers = []
    for w, b in zip(stack.weights, stack.biases):
        lin = torch.nn.Linear(*w.shape[1:])
        with torch.no_grad():
            lin.weight.copy_(w[m].T)
            lin.bias.copy_(b[m, 0])
        layers += [lin, torch.nn.Tanh()]
    net = torch.nn.Sequential(*layers[:-1])
    e = stack.embed[m].detach()
    out = torch.empty(N, N)
    for i in range(N):
        for j in range(N):
            x = {
                "concat": torch.cat([e[i], e[j]]),
                "difference": e[i] - e[j],
                "squared_difference": (e[i] - e[j]) ** 2,
            }[mode]
            out[i, j] = net(x)[0]
    return out.reshape(-1)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("depth", [0, 2])
def test_stacked_forward_matches_per_model_reference(mode, depth):
    stack = init_stack([3, 4], N, mode=mode, depth=depth, width=5, embed_dim=D, init_scale=1.0)
    z = logits(stack, mode).detach()
    assert z.shape == (2, N * N)
    for m in range(2):
        torch.testing.assert_close(z[m], _reference(stack, m, mode), rtol=1e-5, atol=1e-5)


def test_input_dims_and_pair_order():
    assert input_dim("concat", 3) == 6 and input_dim("difference", 3) == 3
    e = torch.arange(N * D, dtype=torch.float32).reshape(1, N, D)
    x = pair_inputs(e, "difference")
    torch.testing.assert_close(x[0, 2 * N + 5], e[0, 2] - e[0, 5])  # pair (i, j) at row i * n + j


def test_model_init_does_not_depend_on_its_neighbours():
    a = init_stack([11, 12, 13], N, mode="concat", depth=3, width=8, embed_dim=D, init_scale=0.5)
    b = init_stack([12], N, mode="concat", depth=3, width=8, embed_dim=D, init_scale=0.5)
    for ta, tb in zip(a.tensors(), b.tensors()):
        torch.testing.assert_close(ta[1], tb[0])


def test_init_scale_scales_every_parameter():
    a = init_stack([5], N, mode="concat", depth=2, width=8, embed_dim=D, init_scale=1.0)
    b = init_stack([5], N, mode="concat", depth=2, width=8, embed_dim=D, init_scale=0.1)
    for ta, tb in zip(a.tensors(), b.tensors()):
        torch.testing.assert_close(0.1 * ta, tb)


def test_invalid_mode_and_sizes_fail():
    with pytest.raises(ValueError, match="mode"):
        input_dim("sum", 2)
    with pytest.raises(ValueError):
        init_stack([0], N, mode="concat", depth=-1, width=5, embed_dim=D, init_scale=1.0)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("depth", [0, 1, 3])
def test_hand_written_forward_and_backward_match_autograd(mode, depth):
    """forward / backward on the flat buffer, pairs in a per-model order, gradient through the
    first rows only, against autograd through `logits` (float64, so the comparison is tight)."""
    stack = init_stack([1, 2, 3], N, mode=mode, depth=depth, width=5, embed_dim=3, init_scale=1.0, dtype=torch.float64)
    layout, flat = layout_of(stack), flatten(stack)
    g = torch.Generator().manual_seed(0)
    order = torch.stack([torch.randperm(N * N, generator=g) for _ in range(3)])
    z, cache = forward(flat, layout, Pairs(order // N, order % N), mode)
    reference = torch.gather(logits(stack, mode), 1, order)
    torch.testing.assert_close(z, reference.detach())
    dz = torch.randn(3, 20, generator=g, dtype=torch.float64)
    grad = backward(flat, layout, mode, cache, dz)
    (reference[:, :20] * dz).sum().backward()
    expected = flatten(Stack(stack.embed.grad, [w.grad for w in stack.weights], [b.grad for b in stack.biases]))
    torch.testing.assert_close(grad, expected)


def test_layout_views_share_the_flat_buffer():
    stack = init_stack([4, 5], N, mode="concat", depth=2, width=6, embed_dim=D, init_scale=1.0)
    layout, flat = layout_of(stack), flatten(stack)
    assert flat.shape == (2, layout.size) and layout.n_encoder == N * D
    embed, weights, biases = layout.views(flat)
    torch.testing.assert_close(embed, stack.embed.detach())
    for w, ws in zip(weights + biases, stack.weights + stack.biases):
        torch.testing.assert_close(w, ws.detach())
    embed += 1.0  # a view: writes go to the buffer
    torch.testing.assert_close(layout.views(flat)[0], stack.embed.detach() + 1.0)
