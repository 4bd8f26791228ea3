"""CogEvolve: a word's senses as a graph of prototype, metaphor and metonymy, from text and
from image schemas (``builders/cogevolve.py``)."""

from cogforge.annotation.stages import Stage, cogevolve_schema_audit_tasks, sense_graph_audit_tasks
from cogforge.builders import cogevolve as builder
from cogforge.core.registry import Benchmark
from cogforge.evaluate import cogevolve as scorer
from cogforge.exports import cogevolve as card
from cogforge.qc import cogevolve as qc

BENCHMARK = Benchmark.of_modules(
    builder,
    qc=qc,
    scorer=scorer,
    card=card,
    stream=builder,
    stages=(
        Stage("sense-graph-audit", builder.NAME, "edge", True, sense_graph_audit_tasks),
        Stage("cogevolve-schema-audit", builder.NAME, "image", True, cogevolve_schema_audit_tasks),
    ),
    inputs={"chainnet": "ChainNet sense-graph edges, TSV",
            "wsd_xml": "a sense-tagged corpus, unified WSD XML with its gold keys beside it"},
)
