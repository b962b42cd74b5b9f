"""lib.geneft.train.train_models_gd: plain gradient descent on the batched GenEFT networks."""

import numpy as np
import torch

from lib.geneft.network import flatten, init_stack, logits
from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models_gd


def test_one_step_is_minus_lr_times_the_autograd_gradient():
    n, seeds = 6, [3, 4]
    labels = relation_matrix("mod3", n)
    masks = np.repeat(split_masks(n, [0.75], [0]), 2, 0)
    lr_e, lr_d = np.array([0.3, 0.1]), np.array([0.05, 0.2])
    res = train_models_gd(
        labels, masks, width=5, depth=1, lr_enc=lr_e, lr_dec=lr_d, steps=1, seeds=seeds, eval_every=1, early_stop=False
    )
    stack = init_stack(seeds, n, mode="concat", depth=1, width=5, embed_dim=2, init_scale=1.0)
    z = logits(stack, "concat").reshape(2, -1)
    y = torch.tensor(labels.reshape(-1), dtype=z.dtype).expand_as(z)
    w = torch.tensor(masks.reshape(2, -1), dtype=z.dtype)
    loss = (torch.nn.functional.binary_cross_entropy_with_logits(z, y, reduction="none") * w).sum(1) / w.sum(1)
    loss.sum().backward()
    expected = stack.embed.detach() - torch.tensor(lr_e, dtype=z.dtype)[:, None, None] * stack.embed.grad
    assert np.allclose(res.embed, expected.numpy(), atol=1e-5)
    assert res.stopped_at.tolist() == [1, 1] and np.allclose(
        res.history["train_loss"][:, 0], loss.detach().numpy(), atol=1e-5
    )
    assert flatten(stack).shape[0] == 2


def test_gradient_descent_fits_and_stops_early():
    """Model 0 fits (at step 43) and stops; model 1, at a rate too small to move, runs the whole budget (600 steps:
    14 times the step where model 0 stops)."""
    n, steps = 9, 600
    labels = relation_matrix("mod3", n)
    masks = np.repeat(split_masks(n, [0.9], [0]), 2, 0)
    res = train_models_gd(
        labels,
        masks,
        width=16,
        depth=1,
        lr_enc=[2.0, 1e-6],
        lr_dec=[2.0, 1e-6],
        steps=steps,
        seeds=[0, 1],
        eval_every=100,
    )
    assert res.step_train_90[0] >= 0 and res.train_acc[0] > 0.9
    assert res.stopped_at[0] < steps or res.step_test_90[0] < 0
    assert res.stopped_at[1] == steps and res.train_acc[1] < 0.9  # too small a rate: still at its start
