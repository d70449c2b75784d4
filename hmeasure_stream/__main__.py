"""``python -m hmeasure_stream``: the command-line monitor (see ``hmeasure_stream.cli``)."""

import sys

from hmeasure_stream.cli import main

if __name__ == "__main__":
    sys.exit(main())
