# MicroPython-only sources (they import machine, boardcfg) and npm's folder are not test modules.
collect_ignore = ["mpy", "node_modules", "run_micropython.mjs"]
