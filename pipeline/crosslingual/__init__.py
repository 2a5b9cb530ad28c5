"""Queries in one language over evidence in another: a glossary that maps a query's words to the
papers' terms, an optional translator command of the user's, and the script a query is written in."""
