"""Reading pypa `vendoring`'s `[tool.vendoring]` projects as they are (issue 29, parts 3 and 5).

One concept per module: `config` (the table), `requirements` (vendor.txt),
`stubs` (the `.pyi` files vendoring writes), `sbom` (its CycloneDX file).
Semantics follow vendoring 1.4.0 exactly, because plait's output is compared
with trees that `vendoring sync` produced.
"""
