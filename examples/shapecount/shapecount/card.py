"""What ShapeCount's release card says about it (the hooks the card and Croissant read)."""

PRETTY_NAME = "ShapeCount (cogforge example)"
LICENSE = "cc0-1.0"
TASK_CATEGORIES = ["visual-question-answering"]
SUMMARY = (
    "How many shapes of one colour and one kind does a picture hold? Each item is one procedural "
    "picture of circles, squares and triangles in four colours, none touching, and asks for the "
    "number of one colour-and-shape combination ('How many red circles are there in the picture?'); "
    "the answer is a whole number. Every picture also holds a lure of the asked colour with another "
    "shape and one of the asked shape with another colour, so counting by colour or by shape alone "
    "fails. Answers are spread evenly over the configured counts and re-derived in QC from the "
    "pixels (connected regions of each colour, named by their shape), never from the generator's "
    "record. An example of a benchmark that lives in its own package beside cogforge."
)
META_FIELDS = {
    "colour, shape": "what the question asks about",
    "count_range": "the smallest and largest count the build asks for (chance is one over their span)",
    "scene": "every shape drawn: shape, colour, centre x and y and radius r, in pixels",
}
LIMITATIONS = [
    "Flat synthetic pictures on a plain background: counting here says little about counting in "
    "photographs.",
    "Red and green are hard to tell apart for many colour-blind people; a human baseline should "
    "ask about colour vision or use another palette (vocabulary.toml).",
]
