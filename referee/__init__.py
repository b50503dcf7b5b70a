"""referee: deals and referees four poker-family games for a Japanese online poker community."""

__version__ = "0.1.0"
