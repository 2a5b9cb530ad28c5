"""The paper's own bibliography: where its entries are and what each entry's text reads as.

The chunk stage asks where the entries are, to keep each whole in one chunk; the link stage reads
them into `Reference` records."""
