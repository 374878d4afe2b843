"""Terms for judging a Welcome To… sheet, shared by strategies: the names of
:mod:`welcometo_sim.games.welcome_to.evaluation`, where they live (one module per kind of
fact), importable from here too, as custom strategies written against this
path do."""

from .games.welcome_to.evaluation import *  # noqa: F401,F403
from .games.welcome_to.evaluation import __all__  # noqa: F401
