#!/usr/bin/env python3
# This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
# Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
# SPDX-License-Identifier: Apache-2.0

"""Lists the public and open declarations under Sources/ that have no `///` doc comment.

A declaration counts as public when it is spelled `public` or `open`, or when it is a `case` of a
public enum or a requirement of a public protocol (those are public without the keyword). A doc
comment is a run of `///` lines (or a `/** */` block) right above the declaration, attribute lines
such as `@inlinable` or `@available(...)` (with a trailing `//` comment or not) allowed in between. Imports and extensions are not
declarations that DocC documents, so they are skipped.

usage: Scripts/undocumented.py [--exclude GLOB]... [--count] [PATH]...
       (PATH defaults to Sources; exits 1 when any declaration is listed)
"""

import argparse
import fnmatch
import os
import re
import sys

KEYWORDS = r"(?:func|var|let|init[?!]?|subscript|struct|enum|class|protocol|typealias|associatedtype|case|actor|macro|operator|precedencegroup|deinit)"
MODIFIERS = r"(?:(?:public|open|package|internal|private|fileprivate)(?:\(set\))?|static|class|final|override|mutating|nonmutating|nonisolated(?:\(unsafe\)|\(nonsending\))?|convenience|required|indirect|lazy|weak|unowned|dynamic|prefix|postfix|infix|consuming|borrowing|isolated|distributed|optional)"
ATTRIBUTE = r"@\w+(?:\((?:[^()]|\([^()]*\))*\))?"
DECL = re.compile(rf"^\s*(?:{ATTRIBUTE}\s+)*((?:{MODIFIERS}\s+)*){KEYWORDS}\b")
ATTRIBUTE_LINE = re.compile(rf"^\s*(?:{ATTRIBUTE}\s*)+(?://.*)?$")
CASE_DECL = re.compile(r"^\s*(?:indirect\s+)?case\s+[A-Za-z_`][^:]*$")
TYPE_DECL = re.compile(rf"^\s*(?:{ATTRIBUTE}\s+)*((?:{MODIFIERS}\s+)*)(struct|enum|class|protocol|actor|extension)\b")


def strip_code(line, state):
    """The line with string literals and comments blanked out (for brace counting), and the
    updated multi-line state ('' or 'comment' or 'string')."""
    out = []
    i = 0
    while i < len(line):
        if state == "comment":
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), state
            i, state = end + 2, ""
            continue
        if state == "string":
            end = line.find('"""', i)
            if end < 0:
                return "".join(out), state
            i, state = end + 3, ""
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state = "comment"
            i += 2
            continue
        if line.startswith('"""', i):
            state = "string"
            i += 3
            continue
        if line[i] == '"':
            j = i + 1
            while j < len(line) and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            out.append('""')
            continue
        out.append(line[i])
        i += 1
    return "".join(out), state


def documented(lines, index):
    j = index - 1
    while j >= 0 and ATTRIBUTE_LINE.match(lines[j]):
        j -= 1
    if j < 0:
        return False
    previous = lines[j].strip()
    return previous.startswith("///") or (previous.endswith("*/") and "/**" in "".join(lines[max(0, j - 40):j + 1]))


def scan(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    found = []
    # One entry per open brace: (kind, is public) of the declaration that opened it, or None.
    stack = []
    pending = None  # the type declaration whose `{` has not been seen yet
    state = ""
    for index, line in enumerate(lines):
        code, next_state = strip_code(line, state)
        if state == "":
            match = DECL.match(code)
            inside = next((entry for entry in reversed(stack) if entry is not None), None)
            if match and not re.match(r"^\s*(?:public\s+|@\w+\s+)*import\b", code):
                modifiers = match.group(1).split()
                explicit = any(m in ("public", "open") for m in modifiers)
                keyword = re.search(KEYWORDS, code[match.end(1):]).group(0)
                implied = inside is not None and inside[1] and (
                    (inside[0] == "enum" and keyword == "case" and CASE_DECL.match(code)) or inside[0] == "protocol")
                local = any(entry is not None and entry[0] == "body" for entry in stack)
                if (explicit or implied) and not local and not documented(lines, index):
                    found.append((index + 1, line.strip()))
            type_match = TYPE_DECL.match(code)
            if type_match:
                modifiers = type_match.group(1).split()
                is_public = any(m in ("public", "open") for m in modifiers)
                pending = (type_match.group(2), is_public)
            elif re.match(rf"^\s*(?:{ATTRIBUTE}\s+)*(?:{MODIFIERS}\s+)*(?:func|init|subscript|deinit|var)\b", code) and "{" in code:
                pending = ("body", False)
        for character in code:
            if character == "{":
                stack.append(pending)
                pending = None
            elif character == "}":
                if stack:
                    stack.pop()
        state = next_state
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="*", default=["Sources"])
    parser.add_argument("--exclude", action="append", default=[], help="a glob of paths to skip")
    parser.add_argument("--count", action="store_true", help="print only the number")
    args = parser.parse_args()
    files = []
    for root in args.paths:
        if os.path.isfile(root):
            files.append(root)
            continue
        for directory, _, names in os.walk(root):
            files += [os.path.join(directory, n) for n in names if n.endswith(".swift")]
    total = 0
    for path in sorted(files):
        if any(fnmatch.fnmatch(path, pattern) for pattern in args.exclude):
            continue
        for number, text in scan(path):
            total += 1
            if not args.count:
                print(f"{path}:{number}: {text}")
    if args.count:
        print(total)
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
