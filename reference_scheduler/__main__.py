"""``python -m reference_scheduler``: the reference scheduler's command line (:mod:`reference_scheduler._cli`)."""

import sys

from reference_scheduler._cli import main

sys.exit(main())
