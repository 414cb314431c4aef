from benchmarks.suite import main

raise SystemExit(main())
