"""Built-in opponents on Digital Curling's ice (the fcv1 ice, DC's rules): the parallel room of
:mod:`rllib_curling.bots`. ``make_dc_bot(level)`` (:mod:`.levels` has the table of levels),
``DCBot.choose(state, rng) -> (vx, vy, rotation)``, and ``play_dc_game`` / ``play_dc_match``
(:mod:`.matches`). They aim with :mod:`rllib_curling.dc_aiming`.
"""
