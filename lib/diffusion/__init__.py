"""Swing-by paper, Section 5 and Appendix G: a conditional variational diffusion model on Park et al.'s circles.

data: the circles data-generating process; unet: the conditional U-Net; vdm: the variational
diffusion model and its ancestral sampler; classifier: the concept-space read-out; train:
checkpointed, resumable, cached training; experiment: trajectories, MSE and speed analysis;
stored: the committed long run under data/diffusion/.
"""
