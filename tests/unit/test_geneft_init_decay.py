"""lib.geneft: the decoder initialisation (PyTorch's uniform default or Fig. 6's standard normal) and the
weight-decay form (AdamW's decoupled decay or L2 in the loss) as options whose defaults are the book's
earlier behaviour, bit for bit, threaded from a set's config to the trainer."""

import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from geneft_tiny import TINY_NETWORK

from lib.geneft import evidence as ev
from lib.geneft.network import init_stack, logits
from lib.geneft.relations import relation_matrix, split_masks
from lib.geneft.train import train_models

N = 9
R = relation_matrix("mod3", N)
KW = {"mode": "concat", "depth": 2, "width": 8, "embed_dim": 2}


def _pytorch_default_stack(seed: int, init_scale: float) -> list[torch.Tensor]:
    """The initialisation as written before the option existed (embeddings, then W, b per layer)."""
    g = torch.Generator().manual_seed(seed)
    dims = [2 * KW["embed_dim"], *[KW["width"]] * KW["depth"], 1]
    out = [torch.randn(N, KW["embed_dim"], generator=g) * init_scale]
    for fan_in, fan_out in itertools.pairwise(dims):
        bound = init_scale / fan_in**0.5
        out.append((torch.rand(fan_in, fan_out, generator=g) * 2 - 1) * bound)
        out.append((torch.rand(1, fan_out, generator=g) * 2 - 1) * bound)
    return out


def _params(stack, m: int = 0) -> list[torch.Tensor]:
    return [stack.embed.detach()[m]] + [t.detach()[m] for pair in zip(stack.weights, stack.biases) for t in pair]


def test_default_decoder_init_is_the_earlier_one_bit_for_bit():
    for seed, scale in ((0, 1.0), (7, 0.5)):
        default = init_stack([seed], N, **KW, init_scale=scale)
        uniform = init_stack([seed], N, **KW, init_scale=scale, decoder_init="uniform")
        for a, b, c in zip(_params(default), _params(uniform), _pytorch_default_stack(seed, scale)):
            assert torch.equal(a, c) and torch.equal(b, c)


def test_normal_decoder_init_is_standard_normal_times_the_scale():
    seeds = np.arange(200)
    for scale in (0.5, 2.0):
        stack = init_stack(seeds, N, **KW, init_scale=scale, decoder_init="normal")
        uniform = init_stack(seeds, N, **KW, init_scale=scale)
        assert torch.equal(stack.embed, uniform.embed)  # the encoder is drawn first, as before
        for t in stack.decoder:  # weights and biases alike
            x = t.detach().numpy().ravel() / scale
            tol = 5 / x.size**0.5  # five standard errors of the mean (and more than five of the std)
            assert abs(x.mean()) < tol and abs(x.std() - 1.0) < tol
        first = stack.weights[0].detach().numpy().ravel() / scale
        assert np.abs(first).max() > 2.0  # not the bounded uniform draw


def test_unknown_options_fail():
    with pytest.raises(ValueError, match="decoder_init"):
        init_stack([0], N, **KW, init_scale=1.0, decoder_init="xavier")
    with pytest.raises(ValueError, match="decay_form"):
        train_models(R, split_masks(N, [0.75], [0]), **KW, steps=1, decay_form="l1")


def _torch_run(optimizer, mask, seed, lr_enc, lr_dec, wd, steps, decoder_init="uniform"):
    """One model trained by a torch optimiser (encoder and decoder groups, decay on the decoder only)."""
    stack = init_stack([seed], N, **KW, init_scale=1.0, decoder_init=decoder_init)
    opt = optimizer(
        [
            {"params": stack.encoder, "lr": lr_enc, "weight_decay": 0.0},
            {"params": stack.decoder, "lr": lr_dec, "weight_decay": wd},
        ]
    )
    y = torch.tensor(R.reshape(1, -1), dtype=torch.float32)
    tr = torch.tensor(mask.reshape(1, -1))
    for _ in range(steps):
        opt.zero_grad()
        z = logits(stack, KW["mode"])
        (F.binary_cross_entropy_with_logits(z, y, reduction="none") * tr).sum().div(tr.sum()).backward()
        opt.step()
    return stack.embed.detach()[0].numpy()


@pytest.mark.parametrize("decay_form, optimizer", [("decoupled", torch.optim.AdamW), ("coupled", torch.optim.Adam)])
def test_decay_forms_match_torch_adamw_and_adam_with_weight_decay(decay_form, optimizer):
    masks = split_masks(N, [0.75], [0, 1])
    lr_enc, lr_dec, wd = np.array([1e-2, 3e-3]), np.array([2e-2, 5e-2]), np.array([0.3, 1.0])
    kw = {"init_scale": 1.0, "steps": 30, "seeds": [4, 5], "early_stop": False, "decoder_init": "normal"}
    res = train_models(R, masks, **KW, **kw, lr_enc=lr_enc, lr_dec=lr_dec, weight_decay_dec=wd, decay_form=decay_form)
    for m in range(2):
        ref = _torch_run(optimizer, masks[m], [4, 5][m], lr_enc[m], lr_dec[m], wd[m], 30, "normal")
        np.testing.assert_allclose(res.embed[m], ref, rtol=1e-4, atol=1e-5)


def test_the_two_forms_differ_and_agree_without_decay():
    masks = split_masks(N, [0.75], [0])
    kw = {"init_scale": 1.0, "steps": 40, "seeds": [3], "early_stop": False, "lr_enc": 1e-2, "lr_dec": 3e-2}
    run = lambda form, wd: train_models(R, masks, **KW, **kw, weight_decay_dec=wd, decay_form=form).embed
    assert np.array_equal(run("coupled", 0.0), run("decoupled", 0.0))
    assert not np.allclose(run("coupled", 1.0), run("decoupled", 1.0))


DYN = {
    **TINY_NETWORK,
    "init_scale": 1.0,
    "steps": 40,
    "eval_every": 10,
    "seeds": 2,
    "relation": "mod3",
    "lr_enc": 1e-2,
    "log10_lr_dec": [-2.0, -1.0],
    "weight_decays": [0.0, 1.0],
    "log10_ratios": [0.0, 1.0],
}


def test_absent_keys_are_the_defaults_and_present_keys_reach_the_trainer():
    shard = {"row": 1}
    base = ev.weight_decay_row(DYN, shard)
    explicit = ev.weight_decay_row({**DYN, "decoder_init": "uniform", "decay_form": "decoupled"}, shard)
    for k in base:
        np.testing.assert_array_equal(base[k], explicit[k])
    coupled = ev.weight_decay_row({**DYN, "decay_form": "coupled"}, shard)
    normal = ev.ratio_point({**DYN, "decoder_init": "normal"}, {"init_scale": 1.0, "point": 0})
    uniform = ev.ratio_point(DYN, {"init_scale": 1.0, "point": 0})
    assert not np.array_equal(coupled["embed"], base["embed"])
    assert not np.array_equal(normal["embed"], uniform["embed"])
