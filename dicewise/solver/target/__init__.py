"""Play for a target: the largest probability of finishing with at least T points.

One module per part, each imported from where it is:

* ``values``: ``TargetValues``, the solved W(state, need), read at any (state, need);
* ``kernel``: the turn for (state, need) columns, writes grouped by roll class;
* ``driver``: ``solve_target``, the backward pass over the layers of states;
* ``evaluation``: the expected-score policy's chances (``policy_target_values``,
  ``expected_policy_chances``) through the same layers;
* ``decisions``: a solved turn at given positions (``target_plan``, ``write_chances``);
* ``advice``: the chance from a sheet (``chance``) and every choice ranked (``advise_target``);
* ``chooser``: ``TargetChooser`` and ``simulate_target``, the lockstep simulator's player;
* ``table``: ``TargetTable``, the table as the store builds, caches and checks it.

Method, checks and measured times: docs/target.md.
"""
