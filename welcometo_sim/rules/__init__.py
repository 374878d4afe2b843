"""The rules of Welcome To…: pure Python, no I/O, nothing from the rest of the package.

`evaluation` is the game's strategy toolkit beside them: the terms strategies
judge a sheet by, and the move evaluator.
"""
