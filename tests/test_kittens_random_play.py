"""Seeded random games through every legal move: counts conserved, undo exact, a winner at the end."""

import random

import pytest

from gm.kittens.deck import load_deck
from gm.kittens.rules import (
    ALIVE, EDITIONS, EXPLODING, Boom, Defuse, Draw, IllegalMove, Nope, Play, Resolve, ZombieSave,
)

TABLES = [("exploding-kittens", 2, {}), ("exploding-kittens", 5, {"printing": "current"}),
          ("party-pack", 3, {"pile": 25}), ("party-pack", 8, {}), ("zombie-kittens", 2, {}),
          ("zombie-kittens", 4, {})]
NAMES = ["Ana", "Bo", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]


def pick(rng, game, moves):
    """Lean towards draws and booms so that games end, but keep every kind of move possible."""
    if game.phase == EXPLODING and rng.random() < 0.6:
        return next(m for m in moves if isinstance(m, Boom))
    draws = [m for m in moves if isinstance(m, Draw)]
    if draws and rng.random() < 0.5:
        return rng.choice(draws)
    return rng.choice(moves)


def check_counts(game, draws, returns):
    state, setup = game.state, game.setup
    assert state.pile == setup.pile - draws + returns
    gone = sum(s != ALIVE for s in state.status) + state.exploding
    assert state.kittens + gone == setup.kittens
    assert 0 <= state.kittens <= state.pile
    living = [p for p, s in zip(state.players, state.status) if s == ALIVE]
    assert (len(living) == 1) == game.is_game_over()
    if game.is_game_over():
        assert game.outcome().winner == living[0]
    else:
        assert state.status[state.turn] == ALIVE and state.owed >= 1


@pytest.mark.parametrize("edition, players, options", TABLES)
@pytest.mark.parametrize("seed", range(6))
def test_random_games(edition, players, options, seed):
    rng = random.Random(seed)
    game = EDITIONS[edition](load_deck(edition), NAMES[:players], **options)
    start, draws, returns, steps = game.state, 0, 0, 0
    while not game.is_game_over():
        moves = list(game.legal_moves())
        assert moves, game
        move = pick(rng, game, moves)
        before = game.state
        game.push(move)
        assert game.pop() == move and game.state == before
        game.push(move)
        draws += isinstance(move, Draw)
        returns += isinstance(move, (Defuse, ZombieSave)) + bool(getattr(move, "revive", None))
        check_counts(game, draws, returns)
        steps += 1
        assert steps < 3000, game
    assert list(game.legal_moves()) == []
    while game.moves:
        game.pop()
    assert game.state == start


@pytest.mark.parametrize("edition, players, options", TABLES)
def test_illegal_moves_change_nothing(edition, players, options):
    rng = random.Random(7)
    game = EDITIONS[edition](load_deck(edition), NAMES[:players], **options)
    names = NAMES[:players] + ["Zed"]
    cards = sorted(game.cards) + ["nope", "defuse"]
    for _ in range(300):
        if game.is_game_over():
            break
        candidate = rng.choice([
            Play(rng.choice(names), rng.choice(cards), rng.choice([None, *names])),
            Nope(rng.choice(names)), Resolve(), Draw(rng.choice(names), rng.random() < 0.3),
            Defuse(rng.choice(names)), Boom(rng.choice(names)),
            ZombieSave(rng.choice(names), rng.choice([None, *names])),
        ])
        before = game.state
        if game.is_legal(candidate):
            game.push(candidate)
        else:
            with pytest.raises(IllegalMove):
                game.push(candidate)
            assert game.state == before
