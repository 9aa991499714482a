"""One module per subcommand of ``curling`` and ``rllib`` (see ``rllib_curling.cli``)."""
