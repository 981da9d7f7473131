"""Field devices: serial transport, NMEA and instrument parsers, simulators.

No Qt and no ``fieldapp`` imports here: readings leave this package as frozen
dataclasses with units in their field names.
"""
