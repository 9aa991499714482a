"""``python -m rllib_curling ...`` is the ``curling`` command."""

import sys

from rllib_curling.cli.curling import main

sys.exit(main())
