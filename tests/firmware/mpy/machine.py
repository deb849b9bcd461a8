"""A stand-in for MicroPython's machine module on a desk: Pin and mem32.

Outputs remember their level. ``mem32`` is the RP2040's SIO block as the
firmware uses it: a write to ``GPIO_OUT_XOR`` toggles output bits, a read of
``GPIO_IN`` asks ``mem32.wiring`` (set by the test harness) for the word the
circuit puts on the input pins, given the output word.
"""

SIO_GPIO_IN = 0xD0000004
SIO_GPIO_OUT_XOR = 0xD000001C


class Pin:
    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

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
        if mode == Pin.OUT and value:
            mem32.out |= 1 << id


class Registers:
    def __init__(self):
        self.out = 0
        self.wiring = None  # callable(output word) -> input word, installed by the harness
        self.reads = 0
        self.writes = 0

    def __setitem__(self, address, value):
        if address != SIO_GPIO_OUT_XOR:
            raise ValueError("unexpected register write at " + hex(address))
        self.writes += 1
        self.out ^= value

    def __getitem__(self, address):
        if address != SIO_GPIO_IN:
            raise ValueError("unexpected register read at " + hex(address))
        self.reads += 1
        return self.wiring(self.out)


mem32 = Registers()
