"""Independent check of the SMD detection scores in docs/ANOMALY.md.

Usage (after CLUSTERLENS_EVAL=1 CLUSTERLENS_SMD_DUMP=DIR go test -run TestSMDWindowsEvaluation ./internal/anomaly):
    python3 smd_score.py DIR SMD_DATA_DIR [k]

Scores the per-minute flags the Go code wrote (DIR/<machine>.pred) and, independently of the Go code,
the per-metric z-score baseline at threshold k (default 30) recomputed from the raw train and test files:
point-wise, event-wise as Telemanom's Detector.evaluate_sequences counts labeled sequences (Hundman et al.,
KDD'18), and by runs. Standard library only.
"""
import gzip
import math
import sys

MACHINES = ["machine-1-6", "machine-2-1", "machine-3-3"]


def runs(flags):
    out, i = [], 0
    while i < len(flags):
        if not flags[i]:
            i += 1
            continue
        j = i
        while j < len(flags) and flags[j]:
            j += 1
        out.append((i, j - 1))
        i = j
    return out


def score(pred, lab):
    tp = sum(p and l for p, l in zip(pred, lab))
    fp = sum(p and not l for p, l in zip(pred, lab))
    fn = sum(l and not p for p, l in zip(pred, lab))
    true_seqs = runs(lab)
    groups = [set(range(a, b + 1)) for a, b in true_seqs]
    flat = set().union(*groups)
    seq_tp = seq_fp = run_ok = 0
    matched = []
    pred_runs = runs(pred)
    for a, b in pred_runs:  # evaluate_sequences
        hit = set(range(a, b + 1)) & flat
        if hit:
            run_ok += 1
            first = [i for i, g in enumerate(groups) if hit & g][0]
            if first not in matched:
                matched.append(first)
                seq_tp += 1
        else:
            seq_fp += 1
    found = sum(any(pred[a:b + 1]) for a, b in true_seqs)
    return [tp, fp, fn, seq_tp, seq_fp, len(true_seqs), run_ok, len(pred_runs), found]


def f1(p, r):
    return 0 if p + r == 0 else 2 * p * r / (p + r)


def line(name, s):
    tp, fp, fn, stp, sfp, ev, ok, nr, found = s
    pf = f1(tp / max(tp + fp, 1), tp / max(tp + fn, 1))
    ef = f1(stp / max(stp + sfp, 1), stp / ev)
    rf = f1(ok / max(nr, 1), found / ev)
    return f"{name}: point F1 {pf:.3f}; event-wise {stp} found, {sfp} false runs, {ev - stp} missed, F1 {ef:.3f}; by runs F1 {rf:.3f}"


def load(path):
    rows = []
    with gzip.open(path, "rt") as f:
        next(f)  # header
        for l in f:
            if l.strip():
                rows.append([float(v) for v in l.split(",")])
    return rows


def main():
    dump, data = sys.argv[1], sys.argv[2]
    k = float(sys.argv[3]) if len(sys.argv) > 3 else 30
    tot_w, tot_z = [0] * 9, [0] * 9
    for m in MACHINES:
        lab = [l.strip() == "1" for l in open(f"{data}/{m}_test_label.csv").readlines()[1:]]
        pred = [l.strip() == "1" for l in open(f"{dump}/{m}.pred")]
        train, test = load(f"{data}/{m}_train.csv.gz"), load(f"{data}/{m}_test.csv.gz")
        n, d = len(train), len(train[0])
        mean = [sum(r[j] for r in train) / n for j in range(d)]
        sd = [max(math.sqrt(sum((r[j] - mean[j]) ** 2 for r in train) / n), 1e-9) for j in range(d)]
        base = [max(abs(r[j] - mean[j]) / sd[j] for j in range(d)) > k for r in test]
        w, z = score(pred, lab), score(base, lab)
        print(line(m + " windows", w))
        print(line(m + f" z-score k {k:g}", z))
        tot_w = [a + b for a, b in zip(tot_w, w)]
        tot_z = [a + b for a, b in zip(tot_z, z)]
    print(line("pooled windows", tot_w))
    print(line(f"pooled z-score k {k:g}", tot_z))


if __name__ == "__main__":
    main()
