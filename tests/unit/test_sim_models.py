"""lib.sim.models: stacked MLPs against torch.nn reference modules."""

import pytest
import torch

from lib.sim.models import MLPShape, forward, init_mlp

# ----------------------------------------------------------------------------------------------
# Initialisation
# ----------------------------------------------------------------------------------------------


def test_shapes_and_pytorch_default_bounds():
    shape = MLPShape(d=5, width=7, depth=3)
    params = init_mlp(shape, [0, 1])
    assert [tuple(w.shape) for w, _ in params] == [(2, 7, 5), (2, 7, 7), (2, 5, 7)]
    for (w, b), fan_in in zip(params, shape.dims[:-1]):
        assert w.abs().max() <= fan_in**-0.5 and b.abs().max() <= fan_in**-0.5
        assert w.abs().max() > 0.8 * fan_in**-0.5  # uniform over the whole range, not a narrower one


def test_no_bias():
    assert all(b is None for _, b in init_mlp(MLPShape(3, 4, 2, bias=False), [0]))


def test_model_depends_only_on_its_seed():
    shape = MLPShape(4, 4, 2)
    alone = init_mlp(shape, [7])
    in_sweep = init_mlp(shape, [3, 7, 9])
    for (w1, b1), (w2, b2) in zip(alone, in_sweep):
        assert torch.equal(w1[0], w2[1]) and torch.equal(b1[0], b2[1])


def test_invalid_shape():
    with pytest.raises(ValueError):
        MLPShape(3, 3, 2, activation="tanh")
    with pytest.raises(ValueError):
        MLPShape(3, 3, 0)


# ----------------------------------------------------------------------------------------------
# Forward pass
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("activation", ["linear", "relu"])
@pytest.mark.parametrize("bias", [True, False])
def test_forward_matches_nn_sequential(activation, bias):
    shape = MLPShape(6, 5, 3, activation, bias)
    params = init_mlp(shape, [0, 1, 2])
    x = torch.randn(3, 10, 6)
    out = forward(params, x, activation)
    for m in range(3):
        layers = []
        for i, (w, b) in enumerate(params):
            lin = torch.nn.Linear(w.shape[2], w.shape[1], bias=bias)
            with torch.no_grad():
                lin.weight.copy_(w[m])
                if bias:
                    lin.bias.copy_(b[m])
            layers.append(lin)
            if activation == "relu" and i < shape.depth - 1:
                layers.append(torch.nn.ReLU())
        ref = torch.nn.Sequential(*layers)(x[m])
        assert torch.allclose(out[m], ref, atol=1e-6)


def test_no_activation_after_last_layer():
    params = init_mlp(MLPShape(4, 4, 1, "relu"), [0])
    x = torch.randn(1, 50, 4)
    assert torch.equal(forward(params, x, "relu"), forward(params, x, "linear"))
    assert (forward(params, x, "relu") < 0).any()
