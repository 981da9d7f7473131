from fieldapp.cli import main

raise SystemExit(main())
