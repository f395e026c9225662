"""The lineage workflow: separately maintained copies that sync from a source.

- `sync`: carry a source's changes into each lineage, keeping what it adds;
- `status`: where each lineage stands (a sync that writes nothing);
- `adopt`: record the first base of a copy plait never synced;
- `diff`: compare two copies member by member, through the transforms.
"""
