"""Verdicts: a claim's metric against its declared condition (`claims`), the chapter's summary
(`summary`), and whether a claim can be decided at its declared sample size (`decidability`)."""
