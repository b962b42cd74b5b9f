"""Variational diffusion model (Kingma et al. 2021) as used in App. G.2 of the Swing-by paper.

Continuous time t in [0, 1]; z_t = alpha_t x + sigma_t eps with alpha_t^2 = sigmoid(-gamma_t),
sigma_t^2 = sigmoid(gamma_t); learned linear schedule gamma_t = b + |w| t initialised at
gamma_min = -5, gamma_max = 10 (App. G.2). Data x in [-1, 1] (images in [0, 1] rescaled).
Loss (Kingma et al. eqs. 9, 17): prior KL(q(z_1|x) || N(0, I)) + reconstruction -log p(x|z_0)
+ continuous-time diffusion loss 1/2 gamma'(t) ||eps - eps_hat(z_t, gamma_t)||^2, in bits per dimension.

The network sees the noise level, not the time: its input is gamma_t rescaled by the schedule's
initial endpoints, (gamma_t - gamma_min) / (gamma_max - gamma_min), as in Kingma et al.'s reference
implementation. With a learned schedule the map t -> gamma_t moves during training; conditioned
on gamma_t, the network's input keeps its meaning (the diffusion loss is invariant to the
schedule between its endpoints, Kingma et al. Sec. 5.1), so the drift of the schedule does not
change what the network has learned about a noise level.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from lib.diffusion.unet import UNet

# ----------------------------------------------------------------------------------------------
# Noise schedule
# ----------------------------------------------------------------------------------------------


class LinearSchedule(nn.Module):
    """gamma(t) = b + |w| t, learned, initialised so that gamma(0) = gamma_min, gamma(1) = gamma_max."""

    def __init__(self, gamma_min: float = -5.0, gamma_max: float = 10.0):
        super().__init__()
        self.b = nn.Parameter(torch.tensor(float(gamma_min)))
        self.w = nn.Parameter(torch.tensor(float(gamma_max - gamma_min)))

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        return self.b + self.w.abs() * t


# ----------------------------------------------------------------------------------------------
# Model and loss
# ----------------------------------------------------------------------------------------------


class VDM(nn.Module):
    """A conditional U-Net eps-predictor with a learned linear schedule."""

    def __init__(self, net: UNet, gamma_min: float = -5.0, gamma_max: float = 10.0, data_noise: float = 1e-3):
        super().__init__()
        self.net, self.gamma, self.data_noise = net, LinearSchedule(gamma_min, gamma_max), data_noise
        self.gamma_range = (float(gamma_min), float(gamma_max))

    def eps_hat(self, z: torch.Tensor, g_t: torch.Tensor, cond: torch.Tensor) -> torch.Tensor:
        """The network's noise prediction at log-SNR -gamma_t, fed as gamma_t rescaled to [0, 1] at init."""
        lo, hi = self.gamma_range
        return self.net(z, (g_t - lo) / (hi - lo), cond)

    def loss(self, x01: torch.Tensor, cond: torch.Tensor, u0: float | None = None) -> torch.Tensor:
        """Mean over the batch of the VDM bound in bits per dimension (the sum of `loss_terms`)."""
        return sum(self.loss_terms(x01, cond, u0).values())

    def loss_terms(self, x01: torch.Tensor, cond: torch.Tensor, u0: float | None = None) -> dict[str, torch.Tensor]:
        """The three terms of the VDM bound, each a batch mean in bits per dimension.

        Kingma, Salimans, Poole & Ho (2021), "Variational Diffusion Models": the variational lower bound is the
        prior loss KL(q(z_1|x) || N(0, I)), the reconstruction loss E[-log p(x|z_0)] and the diffusion loss, here
        in continuous time, 1/2 gamma'(t) ||eps - eps_hat(z_t; gamma_t)||^2 with t ~ U(0, 1) (module docstring;
        the Swing-by paper's App. G.2 trains this model).

        Times are drawn with the low-discrepancy sampler of Kingma et al. (App. I.1):
        t_i = (u0 + i / B) mod 1. The reconstruction term uses a Gaussian decoder of std
        `data_noise` around z_0 / alpha_0, whose expectation over z_0 is closed form:
        1/2 sigma_0^2 / (alpha_0^2 data_noise^2) + log(data_noise sqrt(2 pi)) per dimension.
        """
        x = 2 * x01 - 1
        b, dims = x.shape[0], x[0].numel()
        u0 = torch.rand(()).item() if u0 is None else u0
        t = torch.remainder(u0 + torch.arange(b, device=x.device) / b, 1.0)
        g_t, g_0, g_1 = self.gamma(t), self.gamma(torch.zeros(())), self.gamma(torch.ones(()))
        eps = torch.randn_like(x)
        z = torch.sigmoid(-g_t).sqrt()[:, None, None, None] * x + torch.sigmoid(g_t).sqrt()[:, None, None, None] * eps
        diffusion = 0.5 * self.gamma.w.abs() * (eps - self.eps_hat(z, g_t, cond)).pow(2).flatten(1).sum(1)
        var_1, mean2_1 = torch.sigmoid(g_1), torch.sigmoid(-g_1) * x.pow(2).flatten(1).sum(1)
        prior = 0.5 * (mean2_1 + dims * (var_1 - 1 - torch.log(var_1)))
        recon = dims * (0.5 * torch.exp(g_0) / self.data_noise**2 + math.log(self.data_noise * math.sqrt(2 * math.pi)))
        bpd = dims * math.log(2)
        return {"diffusion": (diffusion / bpd).mean(), "prior": (prior / bpd).mean(), "recon": recon / bpd}

    # ------------------------------------------------------------------------------------------
    # Ancestral sampler
    # ------------------------------------------------------------------------------------------

    @torch.no_grad()
    def sample(self, cond: torch.Tensor, resolution: int, steps: int, generator: torch.Generator) -> torch.Tensor:
        """Images in [0, 1] by ancestral sampling of p(z_s | z_t) over `steps` equal time steps.

        Kingma et al. eq. 33: z_s = alpha_s / alpha_t (z_t - c sigma_t eps_hat) + sqrt(c) sigma_s noise,
        c = -expm1(gamma_s - gamma_t); the image is z_0 / alpha_0, clipped to [-1, 1].
        """
        device = cond.device
        n = cond.shape[0]
        z = torch.randn((n, 3, resolution, resolution), generator=generator, device=device)
        for i in range(steps, 0, -1):
            t, s = torch.tensor(i / steps, device=device), torch.tensor((i - 1) / steps, device=device)
            g_t, g_s = self.gamma(t), self.gamma(s)
            c = -torch.expm1(g_s - g_t)
            eps_hat = self.eps_hat(z, g_t.expand(n), cond)
            mean = torch.sqrt(torch.sigmoid(-g_s) / torch.sigmoid(-g_t)) * (z - c * torch.sigmoid(g_t).sqrt() * eps_hat)
            noise = torch.randn(z.shape, generator=generator, device=device) if i > 1 else torch.zeros_like(z)
            z = mean + torch.sqrt(c * torch.sigmoid(g_s)) * noise
        x = (z / torch.sigmoid(-self.gamma(torch.zeros((), device=device))).sqrt()).clamp(-1, 1)
        return (x + 1) / 2
