import sys

from reference_scheduler._cli import main

sys.exit(main())
