#!/usr/bin/env python3
"""The docs hold together: every relative link in README.md, docs/*.md, ARCHITECTURE.md and
scheduler/README.md resolves (the file exists; a `#fragment` names a heading of the target page,
slugged as GitHub does), and every page of docs/ is linked from README.md, so each topic is one
link away from the front door. Exits 1 listing every broken link, 0 otherwise.

  check_docs.py [--root DIR]
"""
import argparse
import os
import re
import sys
import unicodedata

LINK = re.compile(r'(?<!\!)\[(?:[^\]\\]|\\.)*\]\(([^)\s]+)(?:\s+"[^"]*")?\)|!\[[^\]]*\]\(([^)\s]+)\)')
FENCE = re.compile(r'^\s*(```|~~~)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')


def slug(title):
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    title = re.sub(r'`', '', title)
    title = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', title)  # a link in a heading keeps its text
    out = []
    for ch in title.lower():
        cat = unicodedata.category(ch)
        if ch in ' -':
            out.append('-' if ch == ' ' else ch)
        elif ch == '_' or cat[0] in 'LN':
            out.append(ch)
    return ''.join(out)


def prose_lines(path):
    """The lines of a Markdown file outside fenced code blocks, with their numbers."""
    fenced = False
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if not fenced:
                yield number, line


def anchors(path, cache={}):
    if path not in cache:
        seen = {}
        found = set()
        for _, line in prose_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f'{base}-{n}')
        cache[path] = found
    return cache[path]


def links(path):
    for number, line in prose_lines(path):
        line = re.sub(r'`[^`]*`', '', line)  # code spans hold no links
        for m in LINK.finditer(line):
            yield number, m.group(1) or m.group(2)


def check(root):
    pages = [os.path.join(root, 'README.md'), os.path.join(root, 'ARCHITECTURE.md'),
             os.path.join(root, 'scheduler', 'README.md')]
    docs_dir = os.path.join(root, 'docs')
    docs = sorted(os.path.join(docs_dir, n) for n in os.listdir(docs_dir) if n.endswith('.md'))
    pages += docs
    problems = []
    linked_from_readme = set()
    for page in pages:
        if not os.path.exists(page):
            problems.append(f'{os.path.relpath(page, root)}: missing')
            continue
        for number, target in links(page):
            if re.match(r'^[a-z][a-z0-9+.-]*:', target):  # http:, https:, mailto:
                continue
            where = f'{os.path.relpath(page, root)}:{number}: {target}'
            file_part, _, fragment = target.partition('#')
            dest = page if not file_part else os.path.normpath(
                os.path.join(os.path.dirname(page), file_part))
            if not os.path.exists(dest):
                problems.append(f'{where}: no such file')
                continue
            if page.endswith('README.md') and os.path.dirname(page) == root:
                linked_from_readme.add(dest)
            if fragment:
                if not dest.endswith('.md'):
                    problems.append(f'{where}: a fragment on a file that is not Markdown')
                elif fragment not in anchors(dest):
                    problems.append(f'{where}: no heading with anchor #{fragment}')
    for page in docs:
        if page not in linked_from_readme:
            problems.append(f'{os.path.relpath(page, root)}: not linked from README.md')
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--root', default=os.path.join(os.path.dirname(__file__), '..'))
    root = os.path.abspath(parser.parse_args().root)
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f'check_docs: {len(problems)} problem(s)')
        return 1
    print('check_docs: every link resolves, every docs/ page is linked from README.md')
    return 0


if __name__ == '__main__':
    sys.exit(main())
