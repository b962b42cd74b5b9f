"""U-Net shapes and the VDM loss and ancestral sampler (lib/diffusion/unet.py, vdm.py) against closed forms."""

import math

import torch

from lib.diffusion.unet import UNet
from lib.diffusion.vdm import VDM


def small_vdm() -> VDM:
    torch.manual_seed(0)
    return VDM(UNet([8, 16], blocks=1, heads=2, dropout=0.0))


def test_unet_shape_and_zero_output_at_init():
    net = UNet([8, 16, 32], blocks=2, heads=4)
    z = torch.randn(5, 3, 16, 16)
    out = net(z, torch.rand(5), torch.rand(5, 4))
    assert out.shape == z.shape and torch.all(out == 0)


def test_schedule_endpoints():
    vdm = small_vdm()
    assert vdm.gamma(torch.tensor(0.0)).item() == -5.0
    assert vdm.gamma(torch.tensor(1.0)).item() == 10.0


def test_loss_at_init_matches_closed_form():
    """eps_hat = 0 at init: diffusion term 1/2 |w| ||eps||^2, so E = 1/2 * 15 * D (Kingma et al. eq. 17)."""
    vdm = small_vdm()
    x = torch.rand(4096, 3, 4, 4)
    dims = 48
    loss_nats = vdm.loss(x, torch.rand(4096, 4)).item() * math.log(2) * dims
    var1 = torch.sigmoid(torch.tensor(10.0)).item()
    prior = 0.5 * (
        torch.sigmoid(torch.tensor(-10.0)).item() * ((2 * x - 1) ** 2).flatten(1).sum(1).mean().item()
        + dims * (var1 - 1 - math.log(var1))
    )
    recon = dims * (0.5 * math.exp(-5) / 1e-6 + math.log(1e-3 * math.sqrt(2 * math.pi)))
    expected = 0.5 * 15 * dims + prior + recon
    assert abs(loss_nats - expected) / (0.5 * 15 * dims) < 0.02


class PointMassDenoiser(torch.nn.Module):
    """The exact eps-predictor for data concentrated at one point x0: eps = (z - alpha x0) / sigma,
    fed (as the VDM feeds its network) the noise level gamma_t rescaled by the initial endpoints."""

    def __init__(self, gamma_range, x0):
        super().__init__()
        self.gamma_range, self.x0 = gamma_range, x0

    def forward(self, z, level, cond):
        lo, hi = self.gamma_range
        g = (lo + level * (hi - lo))[:, None, None, None]
        return (z - torch.sigmoid(-g).sqrt() * self.x0) / torch.sigmoid(g).sqrt()


def test_sampler_recovers_a_point_mass():
    """With the exact denoiser, z_0 / alpha_0 = x0 + exp(gamma_0 - gamma_{1/N} / 2) eps (Kingma et al. eq. 33)."""
    vdm = small_vdm()
    x01 = 0.3 + 0.4 * torch.rand(1, 3, 4, 4)
    vdm.net = PointMassDenoiser(vdm.gamma_range, 2 * x01 - 1)
    steps = 50
    out = vdm.sample(torch.zeros(256, 4), 4, steps, torch.Generator().manual_seed(0))
    err = 2 * (out - x01)
    std = math.exp(-5 - 0.5 * vdm.gamma(torch.tensor(1 / steps)).item())
    assert abs(err.mean().item()) < 5 * std / math.sqrt(err.numel())
    assert abs(err.std().item() / std - 1) < 0.05


def test_network_sees_the_noise_level_not_the_time():
    """Conditioned on gamma_t (Kingma et al.'s reference code): moving the schedule moves the level it sees."""
    vdm = small_vdm()
    seen = []
    vdm.net.forward = lambda z, level, cond: seen.append(level.clone()) or torch.zeros_like(z)
    x, c = torch.rand(4, 3, 4, 4), torch.rand(4, 4)
    vdm.loss(x, c, u0=0.25)
    with torch.no_grad():
        vdm.gamma.b -= 1.0  # schedule drifts down by 1 at every t
    vdm.loss(x, c, u0=0.25)
    torch.testing.assert_close(seen[0] - seen[1], torch.full((4,), 1 / 15))


def test_loss_terms_sum_to_the_loss():
    vdm = small_vdm()
    x, c = torch.rand(8, 3, 4, 4), torch.rand(8, 4)
    torch.manual_seed(3)
    terms = vdm.loss_terms(x, c, u0=0.1)
    torch.manual_seed(3)
    torch.testing.assert_close(sum(terms.values()), vdm.loss(x, c, u0=0.1))


def test_sampler_is_deterministic_given_generator():
    vdm = small_vdm()
    c = torch.full((3, 4), 0.5)
    assert torch.equal(
        vdm.sample(c, 8, 5, torch.Generator().manual_seed(1)), vdm.sample(c, 8, 5, torch.Generator().manual_seed(1))
    )
