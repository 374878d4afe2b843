"""`python -m welcometo_sim`: the `wtsim` command line, for where the console
script is not on the PATH (a virtual environment not activated, a notebook's
shell)."""

from welcometo_sim.cli import main

if __name__ == "__main__":
    main()
