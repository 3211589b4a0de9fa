"""Spark's SparkPlanGraph.buildSparkPlanGraphNode, transcribed case by case
from Spark 4.0 (sql/core/.../execution/ui/SparkPlanGraph.scala, SPARK-51008:
ResultQueryStage skipped like TableCacheQueryStage), as an oracle for the
decoder's plan graphs (TestPlanGraphOracle).

Reads one sparkPlanInfo JSON document a line on stdin; writes one line per
plan: {"nodes": [[id, name, cluster id or -1], ...] in id order,
"edges": [[from, to], ...] in the order Spark adds them}, or
{"error": "..."} where Spark's builder throws.
"""
import json
import sys

sys.setrecursionlimit(100000)


def key(p):
    # SparkPlanInfo.equals: nodeName, simpleString and children (not
    # metadata or metrics). A HashMap keyed by it keeps the last put.
    k = p.get("_key")
    if k is None:
        k = (p.get("nodeName", ""), p.get("simpleString", ""),
             tuple(key(c) for c in p.get("children") or []))
        p["_key"] = k
    return k


def graph(root):
    nodes, edges, exchanges = [], [], {}
    ids = [0]

    def new_id():
        i = ids[0]
        ids[0] += 1
        return i

    def head(p):
        return (p.get("children") or [])[0]  # children.head throws on []

    def edge(frm, parent):
        if parent is None:
            raise ValueError("edge to a null parent")  # parent.id: NPE
        edges.append([frm, parent])

    def build(p, parent, subgraph):
        name = p.get("nodeName", "")
        if name.startswith("WholeStageCodegen"):
            cid = new_id()
            nodes.append([cid, name, -1])
            build(head(p), parent, cid)
        elif name == "InputAdapter":
            build(head(p), parent, None)
        elif name in ("BroadcastQueryStage", "ShuffleQueryStage"):
            h = head(p)
            if key(h) in exchanges:
                edge(exchanges[key(h)], parent)
            else:
                build(h, parent, None)
        elif name in ("TableCacheQueryStage", "ResultQueryStage"):
            build(head(p), parent, None)
        elif name == "Subquery" and subgraph is not None:
            build(p, parent, None)
        elif name == "Subquery" and key(p) in exchanges:
            edge(exchanges[key(p)], parent)
        elif name == "ReusedSubquery":
            build(head(p), parent, subgraph)
        elif name == "ReusedExchange" and key(head(p)) in exchanges:
            edge(exchanges[key(head(p))], parent)
        else:
            nid = new_id()
            nodes.append([nid, name, -1 if subgraph is None else subgraph])
            if "Exchange" in name or name == "Subquery":
                exchanges[key(p)] = nid
            if parent is not None:
                edges.append([nid, parent])
            for c in p.get("children") or []:
                build(c, nid, subgraph)

    build(root, None, None)
    nodes.sort()
    return {"nodes": nodes, "edges": edges}


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        out = graph(json.loads(line))
    except (IndexError, ValueError) as e:
        out = {"error": type(e).__name__}
    print(json.dumps(out))
