"""Several players at one table: the N-player duel and the play to win where rivals matter.

* ``seats``         — a table's results seat by seat: shares of the win (ties split),
                      settlements (score − the table's mean), margins.
* ``duel``          — policy A in one seat, B in the others, seats rotating over one set of
                      deals; A's share with its Wilson interval, its margin, every seat.
* ``category_race`` — General for N players in lockstep (RULES.md §1): seat order, the
                      instant win, the expected-score and win choosers in their seats.
* ``win``           — General's approximate win policy from the single-player tables.
* ``table_advice``  — advice and chances at a table of 3 to 6 from every sheet.

A game reaches this package through the protocol (``Game.play_seated``,
``table_players``, ``table_policies``); games whose players never meet keep the
protocol's default, a solitaire per seat.
"""
