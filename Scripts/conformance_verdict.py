#!/usr/bin/env python3
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

"""Strict verdict over an Autobahn report (index.json): every case must be OK (or INFORMATIONAL where
the case is informational by design) in both `behavior` and `behaviorClose`. NON-STRICT, FAILED,
UNIMPLEMENTED, UNCLEAN, WRONG CODE and missing cases all fail.

usage: conformance_verdict.py REPORT_DIR ROLE [--expected N]
Prints a table per case group and ends with 'N passed, M failed'.
"""
import json
import os
import sys
from collections import OrderedDict

GOOD = ("OK", "INFORMATIONAL")


def key(case_id):
    return tuple(int(x) if x.isdigit() else x for x in case_id.split("."))


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        print(__doc__)
        return 2
    report, role = args[0], args[1]
    expected = None
    if "--expected" in args:
        expected = int(args[args.index("--expected") + 1])
    path = report if report.endswith(".json") else os.path.join(report, "index.json")
    with open(path, encoding="utf-8") as f:
        index = json.load(f)
    passed, failed = 0, []
    groups = OrderedDict()
    for agent, cases in index.items():
        for case_id in sorted(cases, key=key):
            result = cases[case_id]
            behavior = result.get("behavior")
            close = result.get("behaviorClose")
            ok = behavior in GOOD and close in GOOD
            group = case_id.split(".")[0] + ".*"
            g = groups.setdefault(group, {"cases": 0, "ok": 0, "informational": 0, "bad": []})
            g["cases"] += 1
            if ok:
                passed += 1
                if behavior == "INFORMATIONAL":
                    g["informational"] += 1
                else:
                    g["ok"] += 1
            else:
                failed.append("%s (behavior %s, close %s)" % (case_id, behavior, close))
                g["bad"].append(case_id)
    missing = 0
    total = passed + len(failed)
    if expected is not None and total < expected:
        missing = expected - total
    print("Autobahn|Testsuite, %s role" % role)
    print("| group | cases | OK | INFORMATIONAL | not OK |")
    print("| --- | --- | --- | --- | --- |")
    for group in sorted(groups, key=lambda g: int(g.split(".")[0])):
        g = groups[group]
        print("| %s | %d | %d | %d | %s |" % (group, g["cases"], g["ok"], g["informational"],
                                             ", ".join(g["bad"]) or "none"))
    for line in failed:
        print("NOT OK: " + line)
    if missing:
        print("MISSING: %d cases" % missing)
    print("%s: %d passed, %d failed" % (role, passed, len(failed) + missing))
    return 0 if not failed and not missing else 1


if __name__ == "__main__":
    sys.exit(main())
