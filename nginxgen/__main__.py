import sys

from nginxgen.cli import main

sys.exit(main())
