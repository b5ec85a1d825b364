"""Echo Ridge: an authoritative online game server for the Echo Ridge detective board game."""

__version__ = "0.1.0"
