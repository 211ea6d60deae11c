"""The package version, one place for every layer to read it."""

__version__ = "0.1.0"
