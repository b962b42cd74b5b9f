"""MLPs for the SIM task (Swing-by paper, Section 3 and App. F.1), stored as stacked weights.

A sweep of M models that share a shape (same depth, widths, activation, bias) is one list of
tensors with a leading model axis: weight (M, out, in), bias (M, out). One forward pass is
then a batched matmul over all M models, so a whole sweep over mu, sigma and seeds trains as
one computation. Initialisation follows PyTorch's `nn.Linear` default (the authors' code):
weight and bias ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), optionally multiplied by an init scale
(the theory of Section 4 assumes a small initialisation; scale 1 is the authors' code).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

ACTIVATIONS = ("linear", "relu")


# ----------------------------------------------------------------------------------------------
# Shape
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MLPShape:
    """depth layers d -> width -> ... -> width -> d; `activation` between layers, none at the output."""

    d: int
    width: int
    depth: int
    activation: str = "linear"
    bias: bool = True

    def __post_init__(self) -> None:
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {self.activation!r}")
        if self.depth < 1 or self.d < 1 or self.width < 1:
            raise ValueError(f"need depth, d, width >= 1, got {self.depth}, {self.d}, {self.width}")

    @property
    def dims(self) -> list[int]:
        """Layer sizes [d, width, ..., width, d] (depth + 1 entries)."""
        return [self.d] + [self.width] * (self.depth - 1) + [self.d]


Params = list[tuple[torch.Tensor, torch.Tensor | None]]


# ----------------------------------------------------------------------------------------------
# Initialisation and forward pass
# ----------------------------------------------------------------------------------------------


def init_mlp(shape: MLPShape, seeds: list[int], init_scale: float = 1.0) -> Params:
    """One model per seed, PyTorch `nn.Linear` default init times `init_scale`, stacked along a leading axis.

    Model m depends on `seeds[m]` only, so a model is the same in any sweep it is part of; the
    init scale multiplies every weight and bias (same draws at every scale).
    """
    per_model = []
    for seed in seeds:
        gen = torch.Generator().manual_seed(int(seed))
        layers = []
        for fan_in, fan_out in zip(shape.dims[:-1], shape.dims[1:]):
            bound = init_scale * fan_in**-0.5
            w = (torch.rand(fan_out, fan_in, generator=gen) * 2 - 1) * bound
            b = (torch.rand(fan_out, generator=gen) * 2 - 1) * bound
            layers.append((w, b if shape.bias else None))
        per_model.append(layers)
    return [
        (torch.stack([m[i][0] for m in per_model]), torch.stack([m[i][1] for m in per_model]) if shape.bias else None)
        for i in range(shape.depth)
    ]


def end_to_end_rms(shape: MLPShape, seeds: list[int], init_scale: float = 1.0) -> float:
    """RMS entry of the initial end-to-end matrix W_L ... W_1 of linear models (bias left out), over seeds.

    The quantity that the two-layer theory's init scale tau sets: its Jacobian U U^T (U of d x d' entries
    N(0, tau^2), `lib.theory.two_layer.init_u`) has off-diagonal entries of RMS tau^2 sqrt(d') and a diagonal of mean
    d' tau^2 (App. E.2, eq. (E.1)), so that over all its entries the RMS is tau^2 sqrt(d' (d' + d + 1) / d).
    """
    if shape.activation != "linear":
        raise ValueError("the end-to-end matrix is defined for linear models only")
    params = init_mlp(shape, seeds, init_scale)
    prod = params[0][0]
    for w, _ in params[1:]:
        prod = torch.bmm(w, prod)
    return float(prod.pow(2).mean().sqrt())


def forward(params: Params, x: torch.Tensor, activation: str = "linear") -> torch.Tensor:
    """Outputs (M, B, d) of the M stacked models on inputs x of shape (M, B, d)."""
    h = x
    for i, (w, b) in enumerate(params):
        h = torch.bmm(h, w.transpose(1, 2)) if b is None else torch.baddbmm(b.unsqueeze(1), h, w.transpose(1, 2))
        if activation == "relu" and i < len(params) - 1:
            h = torch.relu(h)
    return h
