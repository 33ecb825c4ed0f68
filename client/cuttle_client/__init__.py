"""cuttle_client: the Textual terminal client of cuttle-net."""
