"""Read a native JSON capture for the capture tests: its properties and,
per sample, (thread name, chain root;...;leaf, labels)."""
import json


def load(path):
    d = json.load(open(path))
    sets = [dict(s) for s in d["label_sets"]]
    frames = [f["name"] for f in d["frames"]]

    def chain(i):
        out = []
        while i:
            out.append(frames[d["stacks"][i - 1][1]])
            i = d["stacks"][i - 1][0]
        return ";".join(reversed(out))

    rows = [(d["threads"][s[1]]["name"], chain(s[0]),
             sets[s[3] - 1] if s[3] else {}) for s in d["samples"]]
    return dict(d["meta"].get("properties", [])), rows


def frames(path):
    """Per sample (thread id, [frame dicts, root first]): for checks on
    frame fields (kind, inline) besides names."""
    d = json.load(open(path))
    fr = d["frames"]

    def chain(i):
        out = []
        while i:
            out.append(fr[d["stacks"][i - 1][1]])
            i = d["stacks"][i - 1][0]
        return list(reversed(out))

    return [(d["threads"][s[1]]["tid"], chain(s[0])) for s in d["samples"]]
