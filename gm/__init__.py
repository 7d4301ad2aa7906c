"""gm: an offline, speech-driven game master for physical party card games."""

__version__ = "0.1.0"
