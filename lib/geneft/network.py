"""A stack of M GenEFT encoder-decoder networks evaluated as one batched computation (Section II).

Each model m embeds the n elements as vectors E_m[i] in R^d (the encoder is an embedding table),
combines the embeddings of a pair (i, j) into the decoder input, and an MLP with `depth` hidden
tanh layers of `width` units maps it to one logit; sigmoid + cross-entropy give P[R(i, j) = 1]
(Section II, Table 3). The three combination modes of Section III:

    concat              [E_i, E_j]            (input dim 2d, the default)
    difference          E_i - E_j             (input dim d)
    squared_difference  (E_i - E_j)**2        (input dim d, element-wise)

Parameters of the M models are stacked along a leading axis, so one `torch.bmm` per layer
evaluates every model on every pair. Initialisation (the paper does not state it; Fig. 6 says
"a standard normal scaled by the initialization factor"): embeddings N(0, 1) * init_scale,
decoder layers PyTorch's `nn.Linear` default U(-1/sqrt(fan_in), 1/sqrt(fan_in)) * init_scale.
Model m is drawn from its own generator seeded with seeds[m], so it does not depend on which
other models share the stack.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch

MODES = ("concat", "difference", "squared_difference")

# ----------------------------------------------------------------------------------------------
# Parameters
# ----------------------------------------------------------------------------------------------


@dataclass
class Stack:
    """Stacked parameters: `embed` (M, n, d); decoder `weights[l]` (M, in, out), `biases[l]` (M, 1, out)."""

    embed: torch.Tensor
    weights: list[torch.Tensor]
    biases: list[torch.Tensor]

    @property
    def encoder(self) -> list[torch.Tensor]:
        return [self.embed]

    @property
    def decoder(self) -> list[torch.Tensor]:
        return [*self.weights, *self.biases]

    def tensors(self) -> list[torch.Tensor]:
        return [*self.encoder, *self.decoder]

    def select(self, idx: torch.Tensor) -> "Stack":
        """The sub-stack of models `idx` (a copy, new leaf tensors)."""
        pick = lambda t: t.detach()[idx].clone().requires_grad_(t.requires_grad)  # noqa: E731
        return Stack(pick(self.embed), [pick(w) for w in self.weights], [pick(b) for b in self.biases])


def input_dim(mode: str, embed_dim: int) -> int:
    """Width of the decoder input for a combination mode (Section III, modes 1-3)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    return 2 * embed_dim if mode == "concat" else embed_dim


def init_stack(seeds, n: int, *, mode: str, depth: int, width: int, embed_dim: int,
               init_scale: float, dtype: torch.dtype = torch.float32) -> Stack:
    """Initialise len(seeds) models, model m from `torch.Generator().manual_seed(seeds[m])`."""
    if depth < 0 or width < 1 or embed_dim < 1 or n < 2:
        raise ValueError(f"need depth >= 0, width >= 1, embed_dim >= 1, n >= 2; got {depth}, {width}, {embed_dim}, {n}")
    dims = [input_dim(mode, embed_dim), *[width] * depth, 1]
    embeds, weights, biases = [], [[] for _ in dims[1:]], [[] for _ in dims[1:]]
    for seed in seeds:
        g = torch.Generator().manual_seed(int(seed))
        embeds.append(torch.randn(n, embed_dim, generator=g, dtype=dtype) * init_scale)
        for layer, (fan_in, fan_out) in enumerate(zip(dims[:-1], dims[1:])):
            bound = init_scale / fan_in ** 0.5
            weights[layer].append((torch.rand(fan_in, fan_out, generator=g, dtype=dtype) * 2 - 1) * bound)
            biases[layer].append((torch.rand(1, fan_out, generator=g, dtype=dtype) * 2 - 1) * bound)
    leaf = lambda ts: torch.stack(ts).requires_grad_(True)  # noqa: E731
    return Stack(leaf(embeds), [leaf(w) for w in weights], [leaf(b) for b in biases])


# ----------------------------------------------------------------------------------------------
# Forward pass
# ----------------------------------------------------------------------------------------------


def pair_inputs(embed: torch.Tensor, mode: str) -> torch.Tensor:
    """Decoder inputs for all n^2 ordered pairs (i, j), row-major: (M, n*n, input_dim)."""
    m, n, d = embed.shape
    ei = embed[:, :, None, :].expand(m, n, n, d)
    ej = embed[:, None, :, :].expand(m, n, n, d)
    if mode == "concat":
        x = torch.cat([ei, ej], dim=-1)
    elif mode == "difference":
        x = ei - ej
    elif mode == "squared_difference":
        x = (ei - ej) ** 2
    else:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    return x.reshape(m, n * n, -1)


def logits(stack: Stack, mode: str) -> torch.Tensor:
    """Logits of P[R(i, j) = 1] for every model and pair: (M, n*n). Hidden layers tanh (Table 3)."""
    h = pair_inputs(stack.embed, mode)
    last = len(stack.weights) - 1
    for layer, (w, b) in enumerate(zip(stack.weights, stack.biases)):
        h = torch.baddbmm(b, h, w)
        if layer < last:
            h = torch.tanh(h)
    return h.squeeze(-1)
