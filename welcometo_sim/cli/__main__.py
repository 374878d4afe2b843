"""`python -m welcometo_sim.cli`: the `wtsim` command line."""

from welcometo_sim.cli import main

if __name__ == "__main__":
    main()
