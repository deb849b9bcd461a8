"""Overhead-camera card recognition for Table Companion.

The pipeline, stage by stage (each a module; none of them is imported here, so
importing :mod:`vision` does not load OpenCV):

* :mod:`vision.decks` - the card ids of every deck, as in the table log;
* :mod:`vision.sources` - camera sources behind one interface;
* :mod:`vision.calibration` - ArUco table calibration and zones;
* :mod:`vision.detect` - card quads in an image, and the dewarped card; the second
  look at faint outlines in :mod:`vision.second_look`, the top cards of overlapping
  clusters in :mod:`vision.clusters`;
* :mod:`vision.standard` - the standard deck, named from its corner index: the index
  found by its ink (:mod:`vision.index`), its glyphs named by a small classifier
  (:mod:`vision.glyphs`), the pips counted and laid out (:mod:`vision.pips`);
* :mod:`vision.enrolled` - taught decks: a reference gallery with open-set rejection
  (views that cancel the light, :mod:`vision.taught_views`; references,
  :mod:`vision.taught_references`; keypoints, :mod:`vision.taught_keypoints`; glare,
  :mod:`vision.taught_glare`; covered cards, :mod:`vision.taught_cover`,
  :mod:`vision.taught_evidence`; the deck store, :mod:`vision.taught_store`);
* :mod:`vision.enroll` - guided enrollment, one card shown at a time;
* :mod:`vision.refusal` - why a found card stays unknown, from a fixed list;
* :mod:`vision.pipeline` - detection plus identification, one call per frame;
* :mod:`vision.tracker` - stable table state from a stream of frames;
* :mod:`vision.adapters` - table-state changes into table events;
* :mod:`vision.liveview` - the annotated camera view for the dashboard;
* :mod:`vision.render` - synthetic table scenes (seeded): faces in
  :mod:`vision.card_faces`, conditions in :mod:`vision.conditions`, published deck
  designs in :mod:`vision.designs`; :mod:`vision.simtable`, the simulated camera table;
* :mod:`vision.bench` - recall, accuracy, wrong identities and speed on rendered scenes;
  :mod:`vision.photos` and :mod:`vision.photobench` - the same on labelled real photos;
* :mod:`vision.cli` - ``companion vision enroll|detect|bench``.
"""
