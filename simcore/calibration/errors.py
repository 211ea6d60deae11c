"""The calibration statistics' bad-input error, in a module that imports nothing.

Every command's error handling catches it (exit status 2), so importing it must not pull in
scipy, which the statistics behind ``simcore calibrate`` import.
"""


class CalibrationInputError(ValueError):
    """Bad calibration input (exit status 2); the message names the file, key and value."""
