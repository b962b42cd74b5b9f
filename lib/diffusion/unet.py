"""Conditional U-Net of App. G.2 (after the public code of Park et al. 2024, github.com/cfpark00/concept-learning).

Levels of `channels` with `blocks` residual blocks each (GroupNorm, GELU, dropout), self-attention
at the bottleneck, a sinusoidal time embedding and a 2-layer MLP of the conditioning vector,
both added inside every residual block; zero-initialised output convolution. The "time" input is
the noise level gamma_t rescaled to [0, 1] (Kingma et al.'s reference implementation).
"""

from __future__ import annotations

import math

import torch
from torch import nn

# ----------------------------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------------------------


def norm(ch: int) -> nn.GroupNorm:
    return nn.GroupNorm(min(8, ch), ch)


def timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    """Sinusoidal embedding of a noise level in [0, 1] (scaled by 1000, as in DDPM and VDM code).

    The sinusoidal position encoding of Vaswani et al. (2017), "Attention Is All You Need" (Sec. 3.5), with
    frequencies 10000^(-k / half), used as a time embedding by Ho et al. (2020, DDPM); cos then sin halves."""
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32, device=t.device) / half)
    args = 1000 * t[:, None].float() * freqs[None]
    return torch.cat([torch.cos(args), torch.sin(args)], dim=1)


class ResBlock(nn.Module):
    """GN-GELU-conv, plus the embedding, GN-GELU-dropout-conv, residual (1x1 conv when widths differ)."""

    def __init__(self, c_in: int, c_out: int, emb: int, dropout: float):
        super().__init__()
        self.conv1 = nn.Sequential(norm(c_in), nn.GELU(), nn.Conv2d(c_in, c_out, 3, padding=1))
        self.emb = nn.Linear(emb, c_out)
        self.conv2 = nn.Sequential(norm(c_out), nn.GELU(), nn.Dropout(dropout), nn.Conv2d(c_out, c_out, 3, padding=1))
        self.skip = nn.Conv2d(c_in, c_out, 1) if c_in != c_out else nn.Identity()

    def forward(self, x: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        h = self.conv1(x) + self.emb(e)[:, :, None, None]
        return self.skip(x) + self.conv2(h)


class Attention(nn.Module):
    """Multi-head self-attention over pixels with a residual connection."""

    def __init__(self, ch: int, heads: int):
        super().__init__()
        self.norm, self.attn = norm(ch), nn.MultiheadAttention(ch, heads, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        seq = self.norm(x).flatten(2).transpose(1, 2)
        out, _ = self.attn(seq, seq, seq, need_weights=False)
        return x + out.transpose(1, 2).reshape(b, c, h, w)


# ----------------------------------------------------------------------------------------------
# The U-Net
# ----------------------------------------------------------------------------------------------


class UNet(nn.Module):
    """eps_hat(z_t, level, cond): images (B, 3, R, R), noise levels (B,) in [0, 1], conditions (B, cond_dim).

    The VDM passes gamma_t rescaled by the schedule's initial endpoints as the level (vdm.VDM.eps_hat).
    """

    def __init__(
        self,
        channels: list[int],
        blocks: int = 2,
        heads: int = 4,
        dropout: float = 0.1,
        cond_dim: int = 4,
        time_dim: int = 64,
    ):
        super().__init__()
        emb = 4 * channels[0]
        self.time_dim = time_dim
        self.time_mlp = nn.Sequential(nn.Linear(time_dim, emb), nn.GELU(), nn.Linear(emb, emb))
        self.cond_mlp = nn.Sequential(nn.Linear(cond_dim, emb), nn.GELU(), nn.Linear(emb, emb))
        self.stem = nn.Conv2d(3, channels[0], 3, padding=1)
        self.down, self.downsample = nn.ModuleList(), nn.ModuleList()
        c = channels[0]
        for i, ch in enumerate(channels):
            self.down.append(nn.ModuleList([ResBlock(c if j == 0 else ch, ch, emb, dropout) for j in range(blocks)]))
            c = ch
            last = i == len(channels) - 1
            self.downsample.append(nn.Identity() if last else nn.Conv2d(ch, ch, 3, stride=2, padding=1))
        self.mid1, self.attn, self.mid2 = (
            ResBlock(c, c, emb, dropout),
            Attention(c, heads),
            ResBlock(c, c, emb, dropout),
        )
        self.up, self.upsample = nn.ModuleList(), nn.ModuleList()
        for i, ch in reversed(list(enumerate(channels))):
            self.up.append(
                nn.ModuleList([ResBlock((c + ch) if j == 0 else ch, ch, emb, dropout) for j in range(blocks)])
            )
            c = ch
            first = i == 0
            self.upsample.append(
                nn.Identity()
                if first
                else nn.Sequential(
                    nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(ch, channels[i - 1], 3, padding=1)
                )
            )
            c = ch if first else channels[i - 1]
        self.out = nn.Sequential(norm(c), nn.GELU(), nn.Conv2d(c, 3, 3, padding=1))
        nn.init.zeros_(self.out[-1].weight)
        nn.init.zeros_(self.out[-1].bias)

    def forward(self, z: torch.Tensor, t: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        e = self.time_mlp(timestep_embedding(t, self.time_dim)) + self.cond_mlp(cond)
        h, skips = self.stem(z), []
        for blocks, down in zip(self.down, self.downsample):
            for block in blocks:
                h = block(h, e)
            skips.append(h)
            h = down(h)
        h = self.mid2(self.attn(self.mid1(h, e)), e)
        for blocks, up in zip(self.up, self.upsample):
            h = torch.cat([h, skips.pop()], dim=1)
            for block in blocks:
                h = block(h, e)
            h = up(h)
        return self.out(h)
