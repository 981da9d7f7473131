"""fieldapp: the field laptop app for OHWM, bank, woodland and wetland checks."""

__version__ = "0.1.0"
