"""Closed forms, flows and bounds of the Swing-by theory (Section 4, Appendices C-E)."""
