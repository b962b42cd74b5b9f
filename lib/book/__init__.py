"""The book's machinery, one sub-package per layer, top down (each imports only those below it and
`lib.util`; the evidence store also calls the science's shard functions by name):

- `commands`: the command line (`python -m lib ...`, `python -m lib evidence ...`) and the benchmarks;
- `pages`: the reader pages generated from the declarations and the executed chapters;
- `run`: running a chapter, by `lib run` or by papermill, and the handle a notebook starts with;
- `verdicts`: a claim's verdict against its declaration, the summary, decidability;
- `chapters`: the chapter declarations (parameters, claims, evidence sets), one module per chapter;
- `evidence`: the evidence store (declared sets, shards with provenance, status, re-certification).

Empty on purpose: importing a layer must not import the others.
"""
