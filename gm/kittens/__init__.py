"""Exploding Kittens (base game, Party Pack, Zombie Kittens): deck files, rules, voice calls, referee."""
