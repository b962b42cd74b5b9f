"""lib.geneft.network: the stacked forward pass against a plain per-model torch.nn reference."""
import pytest
import torch

from lib.geneft.network import MODES, init_stack, input_dim, logits, pair_inputs

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
            x = {"concat": torch.cat([e[i], e[j]]), "difference": e[i] - e[j],
                 "squared_difference": (e[i] - e[j]) ** 2}[mode]
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
