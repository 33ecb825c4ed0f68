"""Test-wide settings."""

import os

# Tests never send to the real network: the client's lobby must not browse the LAN.
os.environ["CUTTLE_NO_LAN"] = "1"
