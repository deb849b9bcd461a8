"""Pi-side drivers for the Catch Mag board's Hall-effect sensors.

Every sensor source (the Pico over USB serial, the Pi's own GPIO, the
simulated board) yields the same :class:`~hardware.sources.SensorChange`
values; :class:`~hardware.interpreter.CatchMagInterpreter` turns them into
table events.
"""
