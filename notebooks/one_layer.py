# ---
# jupyter:
#   jupytext:
#     text_representation: {extension: .py, format_name: percent}
#   kernelspec: {display_name: Python 3, language: python, name: python3}
# ---

# %% [markdown]
# # Stub
# d is {glue:text}`dd`.

# %% tags=["parameters"]
d = 64

# %%
from lib.book import start_chapter
run = start_chapter("one_layer", globals())
P = run.params
run.metric("dd", P.d * 2)
# %%
run.claims_table()
