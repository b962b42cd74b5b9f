"""A stack of M GenEFT encoder-decoder networks evaluated as one batched computation (Section II).

Each model m embeds the n elements as vectors E_m[i] in R^d (the encoder is an embedding table),
combines the embeddings of a pair (i, j) into the decoder input, and an MLP with `depth` hidden
tanh layers of `width` units maps it to one logit; sigmoid + cross-entropy give P[R(i, j) = 1]
(Section II, Table 3). The three combination modes of Section III:

    concat              [E_i, E_j]            (input dim 2d, the default)
    difference          E_i - E_j             (input dim d)
    squared_difference  (E_i - E_j)**2        (input dim d, element-wise)

Parameters of the M models are stacked along a leading axis, so one `torch.bmm` per layer
evaluates every model on every pair. Initialisation (`init_stack`): embeddings N(0, 1) * init_scale;
the decoder (`DECODER_INITS`) either PyTorch's `nn.Linear` default U(-1/sqrt(fan_in), 1/sqrt(fan_in))
* init_scale ("uniform", the book's default), or, as Fig. 6's caption states, "drawn from a standard
normal distribution scaled by the initialization factor", N(0, 1) * init_scale ("normal"; the caption
names no exception, so the biases are drawn so too). Model m is drawn from its own generator seeded with
seeds[m], so it does not depend on which other models share the stack.

Two evaluations of the same network: `logits` (autograd, the reference) and the hand-written
`forward` / `backward` on a flat parameter buffer (M, P) that the trainer uses. The hand-written
pass evaluates pairs in a per-model order (training pairs first), so the backward pass runs over
the training rows only, and writes each hidden layer as tanh(u) = 2 sigmoid(2u) - 1: it stores
s = sigmoid(2u) (one vectorised sigmoid is three times cheaper than torch's tanh on this CPU) and
folds the factors 2 and -1 into the next matmul's alpha and bias, so that no pass over the
activations is spent on them; tanh'(u) = 4 s (1 - s) is one fused `sigmoid_backward`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch

_sigmoid_backward_into = torch.ops.aten.sigmoid_backward.grad_input  # grad * s * (1 - s), one fused pass

MODES = ("concat", "difference", "squared_difference")
DECODER_INITS = ("uniform", "normal")  # PyTorch's nn.Linear default; Fig. 6's standard normal

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

    def select(self, idx: torch.Tensor) -> Stack:
        """The sub-stack of models `idx` (a copy, new leaf tensors)."""
        pick = lambda t: t.detach()[idx].clone().requires_grad_(t.requires_grad)
        return Stack(pick(self.embed), [pick(w) for w in self.weights], [pick(b) for b in self.biases])


def input_dim(mode: str, embed_dim: int) -> int:
    """Width of the decoder input for a combination mode (Section III, modes 1-3)."""
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    return 2 * embed_dim if mode == "concat" else embed_dim


def init_stack(
    seeds,
    n: int,
    *,
    mode: str,
    depth: int,
    width: int,
    embed_dim: int,
    init_scale: float,
    decoder_init: str = "uniform",
    dtype: torch.dtype = torch.float32,
) -> Stack:
    """Initialise len(seeds) models, model m from `torch.Generator().manual_seed(seeds[m])`.

    Embeddings N(0, 1) * init_scale. Decoder weights and biases: `decoder_init` "uniform",
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) * init_scale (PyTorch's `nn.Linear` default), or "normal",
    N(0, 1) * init_scale (Fig. 6: "drawn from a standard normal distribution scaled by the
    initialization factor"; the caption exempts no parameter, so the biases too). Both draw the
    same numbers of variates in the same order from the model's generator.
    """
    if depth < 0 or width < 1 or embed_dim < 1 or n < 2:
        raise ValueError(f"need depth >= 0, width >= 1, embed_dim >= 1, n >= 2; got {depth}, {width}, {embed_dim}, {n}")
    if decoder_init not in DECODER_INITS:
        raise ValueError(f"unknown decoder_init {decoder_init!r}; known: {', '.join(DECODER_INITS)}")
    dims = [input_dim(mode, embed_dim), *[width] * depth, 1]
    embeds, weights, biases = [], [[] for _ in dims[1:]], [[] for _ in dims[1:]]
    for seed in seeds:
        g = torch.Generator().manual_seed(int(seed))
        embeds.append(torch.randn(n, embed_dim, generator=g, dtype=dtype) * init_scale)
        for layer, (fan_in, fan_out) in enumerate(itertools.pairwise(dims)):
            if decoder_init == "uniform":
                bound = init_scale / fan_in**0.5
                weights[layer].append((torch.rand(fan_in, fan_out, generator=g, dtype=dtype) * 2 - 1) * bound)
                biases[layer].append((torch.rand(1, fan_out, generator=g, dtype=dtype) * 2 - 1) * bound)
            else:
                weights[layer].append(torch.randn(fan_in, fan_out, generator=g, dtype=dtype) * init_scale)
                biases[layer].append(torch.randn(1, fan_out, generator=g, dtype=dtype) * init_scale)
    leaf = lambda ts: torch.stack(ts).requires_grad_(True)
    return Stack(leaf(embeds), [leaf(w) for w in weights], [leaf(b) for b in biases])


# ----------------------------------------------------------------------------------------------
# Forward pass
# ----------------------------------------------------------------------------------------------


def pair_inputs(embed: torch.Tensor, mode: str) -> torch.Tensor:
    """Decoder inputs for all n^2 ordered pairs (i, j), row-major: (M, n*n, input_dim)."""
    m, n, d = embed.shape
    return combine_slots(embed[:, :, None, :].expand(m, n, n, d), embed[:, None, :, :].expand(m, n, n, d), mode)


def combine_slots(first: torch.Tensor, second: torch.Tensor, mode: str) -> torch.Tensor:
    """Decoder inputs from the embeddings in the first and second slot of each pair, (M, n, n, d) each
    (`pair_inputs` expands one table into both): (M, n*n, input_dim)."""
    if mode == "concat":
        x = torch.cat([first, second], dim=-1)
    elif mode == "difference":
        x = first - second
    elif mode == "squared_difference":
        x = (first - second) ** 2
    else:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    return x.reshape(first.shape[0], first.shape[1] * first.shape[2], -1)


def logits(stack: Stack, mode: str) -> torch.Tensor:
    """Logits of P[R(i, j) = 1] for every model and pair: (M, n*n). Hidden layers tanh (Table 3)."""
    return decode(pair_inputs(stack.embed, mode), stack)


def decode(x: torch.Tensor, stack: Stack) -> torch.Tensor:
    """The stack's decoders on inputs x (M, R, input_dim): logits (M, R), hidden layers tanh (Table 3)."""
    h = x
    last = len(stack.weights) - 1
    for layer, (w, b) in enumerate(zip(stack.weights, stack.biases)):
        h = torch.baddbmm(b, h, w)
        if layer < last:
            h = torch.tanh(h)
    return h.squeeze(-1)


# ----------------------------------------------------------------------------------------------
# Flat parameters and the hand-written forward / backward pass (what the trainer runs)
# ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Layout:
    """Where each parameter of one model lies in a row of the flat buffer (M, P): the embedding
    table (n, d) first (the encoder), then W_0, b_0, W_1, b_1, ... (the decoder)."""

    n: int
    embed_dim: int
    dims: tuple[int, ...]  # decoder layer widths, input to output

    @property
    def sizes(self) -> list[int]:
        sizes = [self.n * self.embed_dim]
        for fan_in, fan_out in itertools.pairwise(self.dims):
            sizes += [fan_in * fan_out, fan_out]
        return sizes

    @property
    def n_encoder(self) -> int:
        return self.n * self.embed_dim

    @property
    def size(self) -> int:
        return sum(self.sizes)

    def views(self, flat: torch.Tensor) -> tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]:
        """(embed (M, n, d), weights[l] (M, in, out), biases[l] (M, 1, out)), views into `flat`."""
        parts = torch.split(flat, self.sizes, dim=1)
        m = flat.shape[0]
        pairs = list(itertools.pairwise(self.dims))
        weights = [w.view(m, fi, fo) for w, (fi, fo) in zip(parts[1::2], pairs)]
        biases = [b.view(m, 1, fo) for b, (_, fo) in zip(parts[2::2], pairs)]
        return parts[0].view(m, self.n, self.embed_dim), weights, biases


def layout_of(stack: Stack) -> Layout:
    n, d = stack.embed.shape[1:]
    return Layout(n, d, (stack.weights[0].shape[1], *[w.shape[2] for w in stack.weights]))


def flatten(stack: Stack) -> torch.Tensor:
    """The stack's parameters as one flat (M, P) float tensor in `layout_of(stack)` order."""
    parts = [stack.embed]
    for w, b in zip(stack.weights, stack.biases):
        parts += [w, b]
    return torch.cat([p.detach().reshape(p.shape[0], -1) for p in parts], dim=1)


@dataclass
class Pairs:
    """Pair (i, j) evaluated at row r of model m: first[m, r] = i, second[m, r] = j (M, R)."""

    first: torch.Tensor
    second: torch.Tensor

    def select(self, idx) -> Pairs:
        return Pairs(self.first[idx], self.second[idx])


def _combine(ei: torch.Tensor, ej: torch.Tensor, mode: str) -> torch.Tensor:
    if mode == "concat":
        return torch.cat([ei, ej], dim=-1)
    if mode == "difference":
        return ei - ej
    if mode == "squared_difference":
        return (ei - ej).square_()
    raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")


class Workspace(dict):
    """Output buffers reused from step to step, keyed by (name, shape). A fresh megabyte-sized
    tensor page-faults on its first write (measured: that doubled the cost of a layer); buffers
    written with `out=` do not."""

    def take(self, name: str, shape: tuple[int, ...], dtype: torch.dtype = torch.float32) -> torch.Tensor:
        key = (name, tuple(shape), dtype)
        if key not in self:
            self[key] = torch.empty(shape, dtype=dtype)
        return self[key]


def _gather(embed: torch.Tensor, pairs: Pairs, ws: Workspace) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Embeddings of the first and second element of every row, (M, R, d); and the flat row index."""
    m, n, d = embed.shape
    rows = pairs.first.shape[1]
    offset = (torch.arange(m) * n)[:, None]
    flat = embed.reshape(m * n, d)
    gi, gj = (pairs.first + offset).reshape(-1), (pairs.second + offset).reshape(-1)
    ei = torch.index_select(flat, 0, gi, out=ws.take("ei", (m * rows, d), flat.dtype))
    ej = torch.index_select(flat, 0, gj, out=ws.take("ej", (m * rows, d), flat.dtype))
    return ei.view(m, rows, d), ej.view(m, rows, d), torch.stack([gi, gj])


def forward(
    flat: torch.Tensor, layout: Layout, pairs: Pairs, mode: str, ws: Workspace | None = None
) -> tuple[torch.Tensor, dict]:
    """Logits (M, R) of the rows `pairs` (the same function as `logits`), and what `backward` needs."""
    ws = Workspace() if ws is None else ws
    embed, weights, biases = layout.views(flat)
    ei, ej, index = _gather(embed, pairs, ws)
    x = _combine(ei, ej, mode)
    m, rows = x.shape[:2]
    acts = []  # s_l = sigmoid(2 u_l): hidden layer l is h_l = 2 s_l - 1 = tanh(u_l)
    last = len(weights) - 1
    for layer, (w, b) in enumerate(zip(weights, biases)):
        if layer == 0:  # input x as is
            bias, a, scale = b, x, 1.0
        else:  # h W + b = 2 s W + (b - 1 W)
            bias, a, scale = b - w.sum(1, keepdim=True), acts[-1], 2.0
        # the factors go on the small operands: baddbmm is slow with beta != 1
        if layer < last:
            out = ws.take(f"s{layer}", (m, rows, w.shape[2]), flat.dtype)
            acts.append(torch.baddbmm(2.0 * bias, a, (2.0 * scale) * w, out=out).sigmoid_())
        else:  # one output unit: a row-wise dot product (a batched N = 1 matmul is 3x slower)
            prod = torch.mul(a, (scale * w).transpose(1, 2), out=ws.take("out", a.shape, flat.dtype))
            z = torch.sum(prod, -1, out=ws.take("z", (m, rows), flat.dtype)).add_(bias.view(m, 1))
    return z, {"x": x, "ei": ei, "ej": ej, "index": index, "acts": acts, "ws": ws}


def backward(
    flat: torch.Tensor, layout: Layout, mode: str, cache: dict, dz: torch.Tensor, out: torch.Tensor | None = None
) -> torch.Tensor:
    """Gradient (M, P) of sum_{m, r} dz[m, r] * z[m, r] for the first R' = dz.shape[1] rows of
    the `forward` that made `cache` (rows beyond R' get no gradient: put the training rows first);
    written into `out` if given."""
    _, weights, _ = layout.views(flat)
    ws = cache["ws"]
    m, rows = dz.shape
    acts = [a[:, :rows] for a in cache["acts"]]
    grads: list[torch.Tensor] = []
    du = dz.unsqueeze(-1)  # (M, R', out) of the current layer, from the output backwards
    for layer in range(len(weights) - 1, -1, -1):
        w = weights[layer]
        a = cache["x"][:, :rows] if layer == 0 else acts[layer - 1]
        db = du.sum(1, keepdim=True)
        if w.shape[2] == 1:  # dW^T = du^T a: a batched N = 1 matmul is slow, M = 1 is not
            dw = torch.bmm(du.transpose(1, 2), a).transpose(1, 2)
        else:
            dw = torch.bmm(a.transpose(1, 2), du)
        if layer > 0:  # h = 2 s - 1: h^T du = 2 s^T du - 1 (1^T du)
            dw.mul_(2.0).sub_(db)
        grads += [db, dw]
        if layer > 0:  # du_{l-1} = (du W^T) * tanh' with tanh' = 4 s (1 - s), in place
            buf = ws.take(f"du{layer % 2}", (m, rows, w.shape[1]), flat.dtype)
            w4t = (4.0 * w).transpose(1, 2)
            du = torch.mul(du, w4t, out=buf) if w.shape[2] == 1 else torch.bmm(du, w4t, out=buf)
            _sigmoid_backward_into(du, acts[layer - 1], grad_input=du)
    dx = torch.bmm(du, weights[0].transpose(1, 2))
    d = layout.embed_dim
    ei, ej = cache["ei"][:, :rows], cache["ej"][:, :rows]
    if mode == "concat":
        dei, dej = dx[..., :d], dx[..., d:]
    elif mode == "difference":
        dei, dej = dx, -dx
    else:  # squared_difference: x = (ei - ej)^2
        dei = 2.0 * (ei - ej) * dx
        dej = -dei
    n = layout.n
    index = cache["index"].view(2, m, -1)[:, :, :rows].reshape(2, -1)
    de = torch.zeros(m * n, d, dtype=flat.dtype)
    de.index_add_(0, index[0], dei.reshape(-1, d)).index_add_(0, index[1], dej.reshape(-1, d))
    grads.append(de.view(m, -1))
    return torch.cat([g.reshape(m, -1) for g in reversed(grads)], dim=1, out=out)
