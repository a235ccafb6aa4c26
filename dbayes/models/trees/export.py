"""Printing a tree as J48 does (the rules along each path) and exporting it as JSON."""

from __future__ import annotations

import json

import numpy as np

from dbayes.models.trees.tree import NUMERIC

__all__ = ["to_text", "to_dict", "to_json", "format_threshold"]


def format_threshold(t: float) -> str:
    """A threshold with at most 6 decimals, trailing zeros dropped (Weka's ``doubleToString(t, 6)``)."""
    s = f"{t:.6f}".rstrip("0").rstrip(".")
    return "0" if s == "-0" else s


def _weight(x: float) -> str:
    return repr(float(round(x, 2)))


def _condition(nodes, schema, node, b):
    name = schema.names[node.attr]
    if node.kind == NUMERIC:
        return f"{name} {'<=' if b == 0 else '>'} {format_threshold(node.threshold)}"
    return f"{name} = {schema.values[node.attr][b]}"


def _label(schema, node, parent):
    """Most probable class; an empty leaf takes its parent's (J48 prints and predicts so)."""
    dist = node.dist if node.dist.sum() > 1e-6 or parent is None else parent.dist
    return schema.classes[int(np.argmax(dist))]


def _leaf_label(schema, node, parent=None):
    total = float(node.dist.sum())
    errors = total - float(node.dist.max())
    label = _label(schema, node, parent)
    tail = f"/{_weight(errors)}" if errors > 1e-6 else ""
    return f"{label} ({_weight(total)}{tail})"


def to_text(nodes: list, schema, title: str = "J48 pruned tree") -> str:
    """J48's printout: one line per branch, ``|   `` per level, leaves as ``: class (weight/errors)``."""
    lines = [title, "-" * len(title), ""]
    root = nodes[0]
    if not root.is_split:
        lines.append(f": {_leaf_label(schema, root)}")
    else:

        def walk(i, depth):
            node = nodes[i]
            for b, c in enumerate(node.children):
                child = nodes[c]
                head = "|   " * depth + _condition(nodes, schema, node, b)
                if child.is_split:
                    lines.append(head)
                    walk(c, depth + 1)
                else:
                    lines.append(f"{head}: {_leaf_label(schema, child, node)}")

        walk(0, 0)
    n_leaves = sum(1 for nd in nodes if not nd.is_split)
    lines += ["", f"Number of Leaves  : \t{n_leaves}", "", f"Size of the tree : \t{len(nodes)}"]
    return "\n".join(lines) + "\n"


def to_dict(nodes: list, schema, i: int = 0, parent=None) -> dict:
    """Nested dict of the subtree at node ``i`` (class weights exact, thresholds as floats)."""
    node = nodes[i]
    out = {"class_weights": [float(v) for v in node.dist], "label": _label(schema, node, parent)}
    if isinstance(out["label"], np.generic):
        out["label"] = out["label"].item()
    if not node.is_split:
        out["leaf"] = True
        return out
    out["leaf"] = False
    out["attribute"] = schema.names[node.attr]
    out["kind"] = "numeric" if node.kind == NUMERIC else "nominal"
    if node.kind == NUMERIC:
        out["threshold"] = float(node.threshold)
    out["branches"] = [
        {"condition": _condition(nodes, schema, node, b), "node": to_dict(nodes, schema, c, node)}
        for b, c in enumerate(node.children)
    ]
    return out


def to_json(nodes: list, schema, **kwargs) -> str:
    """JSON of :func:`to_dict` for the whole tree."""
    return json.dumps(to_dict(nodes, schema), default=str, **kwargs)
