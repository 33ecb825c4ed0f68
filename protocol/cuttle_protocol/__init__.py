"""cuttle_protocol: the sans-I/O wire protocol of cuttle-net (see SPEC.md)."""
