from __future__ import annotations

from govcore.cli import main

raise SystemExit(main())
