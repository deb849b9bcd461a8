"""Board map for the firmware. Generated from hardware/boardmap.toml: do not edit.

Regenerate with: python -m hardware.boardmap --firmware firmware/boardcfg.py
"""

MAP_HASH = b'\xa9\xa2a\xa8'
SENSOR_COUNT = 156
SCAN_HZ = 1000
DEBOUNCE_MS = 5
SETTLE_US = 10
MUX_COUNT = 11
MUX_CHANNELS = 16
ACTIVE_LOW = True
SELECT_PINS = (2, 3, 4, 5)
MUX_PINS = (6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)

# Sensor index read on (channel, mux): SLOTS[channel * MUX_COUNT + mux]; -1 = unused.
SLOTS = (
      0,  16,  32,  36,  52,  66,  82,  96, 112, 126, 142,  # channel 0
      1,  17,  33,  37,  53,  67,  83,  97, 113, 127, 143,  # channel 1
      2,  18,  34,  38,  54,  68,  84,  98, 114, 128, 144,  # channel 2
      3,  19,  35,  39,  55,  69,  85,  99, 115, 129, 145,  # channel 3
      4,  20,  -1,  40,  56,  70,  86, 100, 116, 130, 146,  # channel 4
      5,  21,  -1,  41,  57,  71,  87, 101, 117, 131, 147,  # channel 5
      6,  22,  -1,  42,  58,  72,  88, 102, 118, 132, 148,  # channel 6
      7,  23,  -1,  43,  59,  73,  89, 103, 119, 133, 149,  # channel 7
      8,  24,  -1,  44,  60,  74,  90, 104, 120, 134, 150,  # channel 8
      9,  25,  -1,  45,  61,  75,  91, 105, 121, 135, 151,  # channel 9
     10,  26,  -1,  46,  62,  76,  92, 106, 122, 136, 152,  # channel 10
     11,  27,  -1,  47,  63,  77,  93, 107, 123, 137, 153,  # channel 11
     12,  28,  -1,  48,  64,  78,  94, 108, 124, 138, 154,  # channel 12
     13,  29,  -1,  49,  65,  79,  95, 109, 125, 139, 155,  # channel 13
     14,  30,  -1,  50,  -1,  80,  -1, 110,  -1, 140,  -1,  # channel 14
     15,  31,  -1,  51,  -1,  81,  -1, 111,  -1, 141,  -1,  # channel 15
)
