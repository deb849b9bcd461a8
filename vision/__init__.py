"""Overhead-camera card recognition for Table Companion.

The pipeline, stage by stage (each a module; none of them is imported here, so
importing :mod:`vision` does not load OpenCV):

* :mod:`vision.decks` - the card ids of every deck, as in the table log;
* :mod:`vision.render` - synthetic card faces and table scenes (seeded);
* :mod:`vision.detect` - card quads in an image, and the dewarped card;
* :mod:`vision.standard` - standard 52-card identification from the corner index;
* :mod:`vision.enrolled` - learned decks: a reference gallery with open-set rejection;
* :mod:`vision.enroll` - guided enrollment, one card shown at a time;
* :mod:`vision.pipeline` - detection plus identification, one call per frame;
* :mod:`vision.tracker` - stable table state from a stream of frames;
* :mod:`vision.sources` - camera sources behind one interface;
* :mod:`vision.calibration` - ArUco table calibration and zones;
* :mod:`vision.adapters` - table-state changes into table events;
* :mod:`vision.liveview` - the annotated camera view for the dashboard;
* :mod:`vision.bench` - recall, accuracy, wrong identities and speed on rendered scenes;
* :mod:`vision.cli` - ``companion vision enroll|detect|bench``.
"""
