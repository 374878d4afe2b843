"""An error a worker process raises outside any game reaches the command as
something it can rebuild and report, whatever the exception's constructor."""

from __future__ import annotations

import multiprocessing
import pickle

from welcometo_sim.games.shake_that_city.data import DataError
from welcometo_sim.sim.supervised import _send_raised


class TwoArgumentError(ValueError):
    """Pickles, but cannot be rebuilt from its message alone."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")


def sent_and_received(exc: BaseException) -> BaseException:
    receiver, sender = multiprocessing.Pipe(duplex=False)
    _send_raised(sender, exc)
    kind, received = receiver.recv()
    assert kind == "raise"
    return received


def test_an_exception_the_command_could_not_rebuild_arrives_as_a_runtime_error_with_its_text():
    received = sent_and_received(TwoArgumentError("players", "solo mode is for 1 player"))
    assert isinstance(received, RuntimeError)
    assert "players: solo mode is for 1 player" in str(received)


def test_an_exception_that_rebuilds_arrives_as_itself():
    received = sent_and_received(ValueError("bad value"))
    assert type(received) is ValueError and str(received) == "bad value"


def test_shake_that_city_data_errors_pickle_whole():
    error = pickle.loads(pickle.dumps(DataError("variant.solo", "is for 1 player")))
    assert (error.path, error.problem, str(error)) == ("variant.solo", "is for 1 player",
                                                      "variant.solo: is for 1 player")
