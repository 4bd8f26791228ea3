"""ShapeCount: an example of a cogforge benchmark that lives in its own package.

How many shapes of one colour and one kind does a picture hold? The package has what a
benchmark needs (:mod:`shapecount.benchmark` registers it with cogforge) and nothing else:
a generator (:mod:`~shapecount.generator`), a builder with its config schema and default
config (:mod:`~shapecount.builder`, ``shapecount.toml``), QC checks that count the shapes
again from the pixels (:mod:`~shapecount.qc`), a scorer (:mod:`~shapecount.scoring`) and a
release card (:mod:`~shapecount.card`).
"""

__version__ = "0.1.0"
