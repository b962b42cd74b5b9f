"""lib.sim.train: the batched SGD protocol against closed forms and single runs."""

import numpy as np
import pytest
import torch

from lib.sim.data import sim_dataset
from lib.sim.models import MLPShape, forward, init_mlp
from lib.sim.train import (
    _SHUFFLE_STREAM,
    LOSSES,
    Trajectory,
    _first_within,
    _loss_gradient_scale,
    _probe,
    batch_loss,
    concept_outputs,
    stack_data,
    train_datasets,
    train_sgd,
)


def _data(seeds, d=4, n=64, **kw):
    return [sim_dataset([1.0, 2.0], [0.3, 0.3], d, n, seed=s, **kw) for s in seeds]


# ----------------------------------------------------------------------------------------------
# Loss and update
# ----------------------------------------------------------------------------------------------


def test_loss_scalings():
    y, x = torch.randn(2, 5, 8), torch.randn(2, 5, 8)
    half = batch_loss(y, x, "half_sum")
    assert torch.allclose(half, 0.5 * ((y - x) ** 2).sum(-1).mean(-1))
    assert torch.allclose(
        batch_loss(y, x, "mse"), torch.stack([torch.nn.functional.mse_loss(y[i], x[i]) for i in range(2)])
    )
    assert torch.allclose(batch_loss(y, x, "mse"), half * 2 / 8)


@pytest.mark.parametrize("loss, scale", [("half_sum", 1.0), ("mse", 2 / 4)])
def test_full_batch_one_layer_is_closed_form_gradient_descent(loss, scale):
    """Full batch, no bias: W_t - I = (W_0 - I)(I - lr c S)^t with S = X^T X / N (eq. 2.1)."""
    (ds,) = _data([0])
    x, probes = stack_data([ds])
    lr, steps = 0.05, 30
    traj = train_sgd(MLPShape(4, 4, 1, bias=False), x, probes, [0], lr=lr, batch=len(ds.x), epochs=steps, loss=loss)
    w0 = init_mlp(MLPShape(4, 4, 1, bias=False), [0])[0][0][0].double().numpy()
    s = ds.x.T @ ds.x / len(ds.x)
    w = np.eye(4) + (w0 - np.eye(4)) @ np.linalg.matrix_power(np.eye(4) - lr * scale * s, steps)
    assert np.allclose(traj.outputs[-1, 0, 0], w @ ds.test_point, atol=1e-4)


# ----------------------------------------------------------------------------------------------
# Batching, determinism, bookkeeping
# ----------------------------------------------------------------------------------------------


def test_batched_sweep_equals_single_runs():
    data = _data([0, 1, 2])
    shape = MLPShape(4, 6, 2, "relu")
    _, together = train_datasets(shape, data, [0, 1, 2], lr=0.1, batch=16, epochs=2)
    for i in range(3):
        _, alone = train_datasets(shape, data[i : i + 1], [i], lr=0.1, batch=16, epochs=2)
        assert np.allclose(together[:, i], alone[:, 0], atol=1e-5)


def test_deterministic_and_logged_every_step():
    data = _data([0, 1])
    a, _ = train_datasets(MLPShape(4, 4, 2), data, [0, 1], lr=0.1, batch=10, epochs=1.5)
    b, _ = train_datasets(MLPShape(4, 4, 2), data, [0, 1], lr=0.1, batch=10, epochs=1.5)
    assert np.array_equal(a.outputs, b.outputs)
    assert a.steps_per_epoch == 13  # ceil(128 / 10): the last minibatch is kept
    assert a.outputs.shape == (1 + 20, 2, 1, 4) and a.train_loss.shape == (20, 2)


def test_stop_tol_ends_a_decided_run():
    data = _data([0])
    full, _ = train_datasets(MLPShape(4, 4, 1), data, [0], lr=0.5, batch=128, epochs=300, loss="half_sum")
    stopped, _ = train_datasets(
        MLPShape(4, 4, 1), data, [0], lr=0.5, batch=128, epochs=300, loss="half_sum", stop_tol=0.01
    )
    assert len(stopped.outputs) < len(full.outputs)
    last = stopped.outputs[-1, 0, 0]
    assert np.linalg.norm(last - data[0].test_point) < 0.01 * np.linalg.norm(data[0].test_point)


def test_concept_outputs_undo_rotation_and_probes():
    data = _data([0, 1], rotate=True)
    traj, y = train_datasets(MLPShape(4, 4, 1), data, [0, 1], combos=True, lr=0.1, batch=32, epochs=1)
    assert traj.outputs.shape[2] == 4  # 2^s combination points
    assert np.allclose(concept_outputs(traj, data)[0, 1], data[1].to_concept(traj.outputs[0, 1]))
    assert np.allclose(y[0, 1], traj.outputs[0, 1] @ data[1].rotation)


def test_invalid_inputs():
    with pytest.raises(ValueError):
        stack_data(_data([0]) + [sim_dataset([1.0, 2.0], [0.3, 0.3], 4, 10)])
    x, p = stack_data(_data([0]))
    with pytest.raises(ValueError):
        train_sgd(MLPShape(4, 4, 1), x, p, [0, 1], lr=0.1, batch=8, epochs=1)
    with pytest.raises(ValueError):
        train_sgd(MLPShape(4, 4, 1), x, p, [0], lr=0.1, batch=8, epochs=1, loss="l1")


# ----------------------------------------------------------------------------------------------
# The written-out gradients: the same numbers, bit for bit
# ----------------------------------------------------------------------------------------------


def _autograd_reference(
    shape: MLPShape,
    x: np.ndarray,
    probes: np.ndarray,
    seeds: list[int],
    *,
    lr: float,
    batch: int,
    epochs: float,
    loss: str = "mse",
    stop_tol: float | None = None,
    init_scale: float = 1.0,
) -> Trajectory:
    """The SGD protocol by autograd (the formulation `train_sgd` replaced): its numbers are the reference.

    `epochs` may be fractional (e.g. 0.5 trains half an epoch). The last minibatch of an
    epoch may be smaller than `batch` (PyTorch `DataLoader` default). With `stop_tol`, training
    stops once every model maps every probe to itself within `stop_tol` times the largest probe
    norm: the rest of the run is decided (the identity is learned). `init_scale` multiplies the
    default initialisation (`init_mlp`).
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    m, n, _ = x.shape
    if len(seeds) != m or probes.shape[0] != m:
        raise ValueError(f"need one seed and one probe set per model, got {len(seeds)}, {probes.shape[0]}, {m}")
    xt = torch.as_tensor(x, dtype=torch.float32)
    pt = torch.as_tensor(probes, dtype=torch.float32)
    params = init_mlp(shape, seeds, init_scale)
    leaves = [t.requires_grad_() for layer in params for t in layer if t is not None]
    rngs = [np.random.default_rng([int(s), _SHUFFLE_STREAM]) for s in seeds]
    per_epoch = -(-n // batch)
    total = int(round(epochs * per_epoch))
    outputs, losses = [_probe(params, pt, shape)], []
    rows = torch.arange(m)[:, None]
    tol = None if stop_tol is None else stop_tol * float(pt.norm(dim=-1).max())
    for step in range(total):
        if step % per_epoch == 0:
            order = torch.as_tensor(np.stack([r.permutation(n) for r in rngs]))
        idx = order[:, (step % per_epoch) * batch : (step % per_epoch + 1) * batch]
        xb = xt[rows, idx]
        per_model = batch_loss(forward(params, xb, shape.activation), xb, loss)
        grads = torch.autograd.grad(per_model.sum(), leaves)
        with torch.no_grad():
            for p, g in zip(leaves, grads):
                p -= lr * g
        losses.append(per_model.detach())
        outputs.append(_probe(params, pt, shape))
        if tol is not None and float((outputs[-1] - pt).norm(dim=-1).max()) < tol:
            break
    return Trajectory(
        outputs=torch.stack(outputs).numpy(),
        train_loss=torch.stack(losses).numpy() if losses else np.zeros((0, m)),
        steps_per_epoch=per_epoch,
    )


def _reference_datasets(shape, datasets, seeds, combos=False, **sgd):
    x, probes = stack_data(datasets, combos)
    traj = _autograd_reference(shape, x, probes, seeds, **sgd)
    return traj, concept_outputs(traj, datasets)


@pytest.mark.parametrize(
    "shape, loss, batch, epochs, init_scale",
    [
        (MLPShape(4, 6, 1), "mse", 16, 2.0, 1.0),
        (MLPShape(4, 6, 2, "relu"), "mse", 10, 1.5, 1.0),  # a short last minibatch, a fractional epoch
        (MLPShape(4, 3, 3, "linear", bias=False), "half_sum", 7, 1.0, 0.1),
        (MLPShape(4, 5, 4, "relu", bias=False), "half_sum", 128, 3.0, 1.0),  # one minibatch per epoch
    ],
)
def test_train_sgd_equals_autograd_bit_for_bit(shape, loss, batch, epochs, init_scale):
    data = _data([0, 1, 2], rotate=True)
    kw = dict(lr=0.1, batch=batch, epochs=epochs, loss=loss, init_scale=init_scale, combos=True)
    slow, y_slow = _reference_datasets(shape, data, [0, 1, 2], **kw)
    fast, y_fast = train_datasets(shape, data, [0, 1, 2], **kw)
    assert np.array_equal(slow.outputs, fast.outputs) and np.array_equal(y_slow, y_fast)
    assert np.array_equal(slow.train_loss, fast.train_loss)
    assert slow.steps_per_epoch == fast.steps_per_epoch


@pytest.mark.parametrize("check_every", [1, 5, 64, 1000])
def test_train_sgd_stops_where_a_step_by_step_check_stops(check_every):
    data = _data([0, 1])
    kw = dict(lr=0.5, batch=128, epochs=300, loss="half_sum", stop_tol=0.01)
    slow, _ = _reference_datasets(MLPShape(4, 4, 1), data, [0, 1], **kw)
    fast, _ = train_datasets(MLPShape(4, 4, 1), data, [0, 1], check_every=check_every, **kw)
    assert len(slow.outputs) < 301  # the test stops the run
    assert np.array_equal(slow.outputs, fast.outputs) and np.array_equal(slow.train_loss, fast.train_loss)


def test_first_within_and_loss_gradient_scale():
    probes = torch.ones(2, 1, 3)
    outputs = torch.stack([probes + 1, probes + 0.1, probes + 0.001, probes])
    outputs[2, 1] += 1  # step 2: one model is still far
    assert _first_within(outputs, probes, 0.01) == 3
    assert _first_within(outputs[:3], probes, 0.01) is None
    assert torch.isclose(_loss_gradient_scale(24, 3, "mse"), torch.tensor(2 / (3 * 24)))
    assert torch.isclose(_loss_gradient_scale(24, 3, "half_sum"), torch.tensor(1 / 24))


def test_train_sgd_refuses_a_bad_loss_or_seed_count():
    x, p = stack_data(_data([0]))
    with pytest.raises(ValueError):
        train_sgd(MLPShape(4, 4, 1), x, p, [0, 1], lr=0.1, batch=8, epochs=1)
    with pytest.raises(ValueError):
        train_sgd(MLPShape(4, 4, 1), x, p, [0], lr=0.1, batch=8, epochs=1, loss="l1")
