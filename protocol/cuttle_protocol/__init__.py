"""cuttle_protocol: the network layer of cuttle-net, in sub-packages by layer, lowest first.

    errors   the protocol's errors, shared by every layer
    wire     the two-party wire protocol and the LAN record, sans I/O (SPEC part 3)
    table    the N-party table, sans I/O (SPEC 3.15)
    store    files on disk: dirs, identity and known peers, crash journals (SPEC 4.6)
    shells   trio and socket shells: peer, listener, dialling, port mapping, mDNS, table
             connections
    play     the use cases that drive a seat: meeting, a game and a match at a table

A layer imports only itself and the layers listed before it (`tests/test_layers.py` checks it);
each sub-package's ``__init__`` is its public API, and callers import from there.
"""
