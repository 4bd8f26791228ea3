"""CogEvolve's generators: sense graphs, sentences and SVG image schemas.

* :mod:`generators.cogevolve.graphs`: sense-extension graphs (mined from WordNet with
  the regular-polysemy patterns of ``generators/data/cogevolve_patterns.toml``, or
  imported from ChainNet-format edge files) and their validation;
* :mod:`generators.cogevolve.sentences`: sentences that use a word in a known sense
  (WordNet's examples; sense-tagged corpora in the unified WSD XML format);
* :mod:`generators.cogevolve.schemas`: one core drawing per word and one scene per
  sense, as SVG that reuses the core through ``<defs>``/``<use>``, rendered to PNG.
"""
