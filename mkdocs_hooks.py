"""MkDocs hooks of cassette's docs site (mkdocs.yml: hooks).

The pages are also read on GitHub, where a relative link to a file of the
repository outside docs/ (../examples/demo/cassette.yaml) works. On the
site it would not, so such links are rewritten to the repository's own
address (repo_url), after checking that the file exists: a link to a file
that does not exist fails the build, as a broken link between pages does
in `mkdocs build --strict`.
"""
import os
import re

from mkdocs.exceptions import PluginError

LINK = re.compile(r'(!?\[[^\]]*\]\()([^)\s]+)((?:\s+"[^"]*")?\))')
FENCE = re.compile(r'^\s*(```+|~~~+)')


def on_page_markdown(markdown, page, config, files):
    docs = os.path.abspath(config["docs_dir"])
    root = os.path.dirname(docs)
    repo = config["repo_url"].rstrip("/")
    here = os.path.dirname(os.path.join(docs, page.file.src_path))
    out, fence = [], None
    for n, line in enumerate(markdown.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif line.strip().startswith(fence):
                fence = None
        if fence is not None or m:
            out.append(line)
            continue

        def rewrite(m):
            target = m.group(2)
            if "://" in target or target.startswith(("mailto:", "#", "/")):
                return m.group(0)
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(here, path))
            if full == docs or full.startswith(docs + os.sep):
                return m.group(0)  # a page or file of the site: MkDocs checks it
            if not os.path.exists(full):
                raise PluginError(f"{page.file.src_path}:{n}: link {target}: no such file {os.path.relpath(full, root)}")
            kind = "tree" if os.path.isdir(full) else "blob"
            url = f"{repo}/{kind}/main/{os.path.relpath(full, root)}" + (f"#{anchor}" if anchor else "")
            return m.group(1) + url + m.group(3)

        out.append(LINK.sub(rewrite, line))
    return "\n".join(out)
