"""Groups: many distributions pinned on a package index, vendored into one directory under one namespace.

- `model`: the manifest's ``[groups.NAME]`` table, the pins of its requirements file;
- `index`: a distribution pinned on an index, fetched by pip itself;
- `dists`: the unpacked distributions kept in the workspace store (no network after the first fetch);
- `transform`: one distribution's tree as it lands in the group's directory (the hook vendoring_compat fills);
- `vendor`: plan and write a group's members: the 3-way merge of every pin that moved.
"""
