"""The Structured Identity Mapping (SIM) task of the Swing-by paper (Section 2.1): data, models, training."""
