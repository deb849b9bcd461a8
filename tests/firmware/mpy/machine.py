"""A stand-in for MicroPython's machine module on a desk: Pin only.

Outputs remember their level; an input asks ``Pin.wiring`` (set by the test
harness) what level the circuit puts on it.
"""


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    wiring = None  # callable(pin_id) -> 0 or 1, installed by the harness
    claimed = None  # pin id -> Pin, a dict made on first use

    def __init__(self, id, mode=-1, pull=-1, value=None):
        if Pin.claimed is None:
            Pin.claimed = {}
        if id in Pin.claimed:
            raise ValueError(f"pin {id} claimed twice")
        Pin.claimed[id] = self
        self.id = id
        self.mode = mode
        self.pull = pull
        self.level = 0 if value is None else (1 if value else 0)

    def value(self, v=None):
        if v is None:
            if self.mode == Pin.OUT:
                return self.level
            return Pin.wiring(self.id)
        if self.mode != Pin.OUT:
            raise ValueError(f"pin {self.id} is an input")
        self.level = 1 if v else 0
        return None
