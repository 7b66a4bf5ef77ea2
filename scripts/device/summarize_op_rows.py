"""The table of a caliber run's rows for a GPU summary (scripts/device/user_op.sh,
python_providers.sh): one line per cell with both medians, bandwidth, the check and the integrity
verdict. Exits 1 when a row is not ok, a step's exit code (given) is not 0, or there are no rows.

    python3 summarize_op_rows.py RESULTS.jsonl OUT.md TITLE INTRO [STEP=EXIT ...] [--append FILE:LINES]
"""
import json
import os
import sys


def main(argv):
    results, out_md, title, intro = argv[:4]
    steps, append = [], None
    for a in argv[4:]:
        if a.startswith("--append="):
            append = a[len("--append="):]
        else:
            steps.append(a.split("=", 1))
    rows = [json.loads(l) for l in open(results) if l.strip()] if os.path.exists(results) else []
    out = ["# " + title, "", intro, "",
           "| shape | dtype | provider | status | kernel-only median us | eager median us | GB/s (kernel-only) | check | "
           "integrity | timing method |",
           "|---|---|---|---|---:|---:|---:|---|---|---|"]
    bad = []
    for r in rows:
        a = r["args"]
        k = r.get("median_us")
        e = "-" if r.get("eager_median_us") is None else f"{r['eager_median_us']:.2f}"
        gbs = "" if not k else f"{r['bytes'] / (k * 1e3):.0f}"
        c = r.get("correctness") or {}
        check = f"rel_fro {c.get('rel_fro_error', float('nan')):.1e}" if c else "-"
        integrity = (r.get("integrity") or {}).get("verdict", "-")
        shape = " ".join(f"{key}={value}" for key, value in a.items() if key != "eps")
        out.append(f"| {shape} | {r['dtype']} | {r['provider']} | {r['benchmark_status']} | "
                   f"{'-' if k is None else f'{k:.2f}'} | {e} | {gbs} | {check} | {integrity} | "
                   f"{r.get('timing_method', '-')} |")
        if r["benchmark_status"] != "ok":
            bad.append(f"{r['provider']} {shape} {r['dtype']}: {r.get('status_reason')}")
    out += ["", ", ".join(f"{name} exit {code}" for name, code in steps) +
            f"; rows: {len(rows)}; rows not ok: {bad or 'none'}"]
    if append:
        path, lines = append.rsplit(":", 1)
        if os.path.exists(path):
            out += ["", f"## {os.path.basename(path)} (first {lines} lines)", ""] + \
                open(path).read().splitlines()[:int(lines)]
    with open(out_md, "w") as f:
        f.write("\n".join(out) + "\n")
    print("\n".join(out))
    return 0 if rows and not bad and all(code == "0" for _, code in steps) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
