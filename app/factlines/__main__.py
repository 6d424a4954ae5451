from factlines.cli import main

raise SystemExit(main())
