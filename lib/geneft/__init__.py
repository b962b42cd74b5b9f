"""GenEFT (Baek, Liu, Tegmark 2024): relations, description length, bounds, encoder-decoder networks, repon dynamics."""
