"""Welcome To… for learning agents: `encoding` (every decision as an
observation vector, an action mask and one Discrete action space),
`session` (the engine's `GameState` paused at every decision), `policy`
(`DecidingStrategy`, `PolicyStrategy`: a trained policy seated in ordinary
games), `aec` (`WelcomeToEnv`, PettingZoo) and `solo` (`SoloEnv`, Gymnasium).

`welcometo_sim.envs` hands these names out (the game's `ENV_EXPORTS`). This
``__init__`` imports none of them: `aec` and `solo` need the ``rl`` extra,
while `encoding` and `policy` need only numpy, so that a trained policy
plays in `wtsim run` without PettingZoo or Gymnasium.
"""
