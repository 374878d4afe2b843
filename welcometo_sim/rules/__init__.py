"""The rules of Welcome To…: pure Python, no I/O, nothing from the rest of the package."""
