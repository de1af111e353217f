#!/usr/bin/python3
"""The model zoo's ratchet (tests/models/zoo_expected.tsv): the status each case is
expected to have on each device, raised as ops land.

  ratchet.py check RATCHET REPORT.json   prints the per-case table of a
      `vkml conformance --json` run against the ratchet's column for the report's device;
      exit 1 when a case FAILs or ERRORs, when a case the ratchet says PASS does not pass,
      or when the run and the ratchet do not list the same cases.
  ratchet.py write RATCHET REPORT.json... rewrites the ratchet from runs (one per device).
"""
import json
import sys

HEADER = """\
# The model zoo's expected status per device: tests/models/README.md. Written by
# tests/models/update_ratchet.sh from a run; the zoo tests fail when a case listed PASS
# does not pass, and on any FAIL or ERROR whatever is listed.
"""


def read_ratchet(path):
    """{device: {case: status}} and the devices in column order."""
    columns, table = None, {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if columns is None:
                columns = fields[1:]
                table = {d: {} for d in columns}
                continue
            for d, status in zip(columns, fields[1:]):
                table[d][fields[0]] = status
    return columns or [], table


def read_report(path):
    with open(path) as f:
        r = json.load(f)
    return r["device"], {t["test"]: t for t in r["tests"]}


def check(ratchet_path, report_path):
    device, run = read_report(report_path)
    _, table = read_ratchet(ratchet_path)
    expected = table.get(device)
    if expected is None:
        print("zoo: the ratchet %s has no column for device %s" % (ratchet_path, device))
        return 1
    problems, notes = [], []
    width = max(len(c) for c in list(run) + list(expected) + ["case"])
    print("%-*s  %-11s  %-11s  %9s  %s" % (width, "case", "status", "expected", "ms", "reason"))
    for case in sorted(set(run) | set(expected)):
        t, want = run.get(case), expected.get(case)
        got = t["status"] if t else "MISSING"
        print("%-*s  %-11s  %-11s  %9s  %s" % (width, case, got, want or "-",
                                              "%.0f" % t["ms"] if t else "-",
                                              t["reason"][:160] if t else ""))
        if got in ("FAIL", "ERROR"):
            problems.append("%s %s: %s" % (got, case, t["reason"]))
        elif want is None:
            problems.append("%s is not in the ratchet (run tests/models/update_ratchet.sh)" % case)
        elif t is None:
            problems.append("%s is in the ratchet but the zoo has no such case" % case)
        elif want == "PASS" and got != "PASS":
            problems.append("%s was PASS and is now %s: %s" % (case, got, t["reason"]))
        elif got == "PASS" and want != "PASS":
            notes.append("%s now passes (ratchet: %s): raise the ratchet "
                         "(tests/models/update_ratchet.sh)" % (case, want))
    counts = {s: sum(1 for t in run.values() if t["status"] == s)
              for s in ("PASS", "FAIL", "UNSUPPORTED", "ERROR")}
    print("zoo: device %s: %d pass, %d fail, %d unsupported, %d error, %d cases; ratchet: %d PASS"
          % (device, counts["PASS"], counts["FAIL"], counts["UNSUPPORTED"], counts["ERROR"],
             len(run), sum(1 for s in expected.values() if s == "PASS")))
    for n in notes:
        print("zoo: note: " + n)
    for p in problems:
        print("zoo: FAIL: " + p)
    return 1 if problems else 0


def write(ratchet_path, report_paths):
    runs = [read_report(p) for p in report_paths]
    cases = sorted(set().union(*(set(r) for _, r in runs)))
    with open(ratchet_path, "w") as f:
        f.write(HEADER)
        f.write("\t".join(["case"] + [d for d, _ in runs]) + "\n")
        for c in cases:
            statuses = [r[c]["status"] if c in r else "MISSING" for _, r in runs]
            f.write("\t".join([c] + statuses) + "\n")
    for d, r in runs:
        bad = [c for c in r if r[c]["status"] in ("FAIL", "ERROR")]
        if bad:
            print("update_ratchet: device %s has FAIL/ERROR cases (the tests fail on them "
                  "whatever the ratchet says): %s" % (d, " ".join(bad)))
    print("update_ratchet: wrote %s (%d cases, devices %s)"
          % (ratchet_path, len(cases), " ".join(d for d, _ in runs)))
    return 0


def main(argv):
    if len(argv) >= 4 and argv[1] == "check":
        return check(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "write":
        return write(argv[2], argv[3:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
