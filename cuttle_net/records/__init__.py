"""Game records: the header every record starts with (``header``), how a game ended
(``ending``), the record file format (``record``) and its independent check (``verify``).
"""
