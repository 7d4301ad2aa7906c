"""A `Grammar` written as JSGF, the grammar format PocketSphinx decodes with.

Phrase weights become JSGF alternative weights (the decoder's prior for each phrase); the word loop
is one more alternative, so every stretch of speech has a path through the grammar.
"""

from __future__ import annotations

from gm.speech import Grammar


def to_jsgf(grammar: Grammar, known: set[str], edges: str = "") -> str | None:
    """The JSGF text for `grammar`, using only the `known` words; None when nothing can be said.

    `edges`: a token that may stand, once or more, before and after whatever is said (a recognizer's
    stand-in for room sound it would otherwise hear as a word)."""
    alternatives = []
    for phrase in grammar.phrases:
        slots = []
        for slot in phrase.slots:
            words = [w for w in slot if w in known]
            optional = "" in slot
            if not words:
                if optional:
                    continue
                break
            group = "( " + " | ".join(dict.fromkeys(words)) + " )"
            slots.append(f"[ {group} ]" if optional else group)
        else:
            if slots:
                alternatives.append((phrase.weight, " ".join(slots)))
    loop = [w for w in grammar.loop if w in known]
    if loop:
        alternatives.append((grammar.loop_weight, "( " + " | ".join(loop) + " )+"))
    if not alternatives:
        return None
    body = " | ".join(f"/{weight:g}/ ( {text} )" for weight, text in alternatives)
    if edges:
        body = f"[ {edges}+ ] ( {body} ) [ {edges}+ ]"
    return f"#JSGF V1.0;\ngrammar gm;\npublic <utterance> = {body} ;\n"
