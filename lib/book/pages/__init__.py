"""The reader pages that are generated, not written: the scorecard, notes, errata and parameter pages
(`generated`), the changelog, the code appendix (`code_links`) and the rerun page."""
