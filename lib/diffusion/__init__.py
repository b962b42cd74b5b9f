"""Swing-by paper, Section 5 and Appendix G: a conditional variational diffusion model on Park et al.'s circles.

data: the circles data-generating process; unet: the conditional U-Net; vdm: the variational
diffusion model (conditioned on gamma_t) and its ancestral sampler; train: one (contrast, seed)
run with its own random streams, EMA and resumable checkpoints; classifier: the read-out trained
and calibrated on images in transit; segment: the calibration-free read-out of physical concept
values; configs: the evidence configurations (CPU, paper, smoke); evidence: the shard function;
analysis: the statistics of S-6; figures.
"""
