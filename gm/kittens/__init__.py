"""Exploding Kittens (base game, Party Pack, Zombie Kittens): deck files, rules, voice calls, referee.

Decisions where the rule texts leave the game master guessing:
- The game master cannot see draws. Players say "draw" (or "safe") for a safe card and "exploding
  kitten" for a kitten; the pile and the kittens in it are counted from that. A drawer who said
  "draw" by mistake corrects it with "<name> exploding kitten" while nothing else has happened.
- Draw from the Bottom and Dig Deeper only say how the next draw is made: the player then says
  "draw" or "exploding kitten" as for any draw (exactly one card leaves the pile).
- Base game setup follows the seed (4 cards + 1 Defuse, all spare Defuses back in); the current
  printing (7 + 1, 2 spare Defuses back, 1 with 5 players) is an option.
- Party Pack: which cards carry the paw print is not known, so for 2-7 players (and whenever the
  deck file lists too few cards) the table counts the pile after setup and states it.
- Zombie Kittens: spare Zombie Kittens (4 players use all 5) go back into the pile; Attack of the
  Dead gives the next player exactly 2 turns (the seed's wording); a Clone copies only a card
  played on one's own turn; Clairvoyance is allowed right after another player put a kitten back.
- A Nope chain can be no longer than the Nopes in the cards used: a longer one is asked again.
"""
