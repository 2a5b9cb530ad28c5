"""Stage 5, index: the database schema, a paper's rows, the writer that loads them, the BM25
terms and search (`search`, and `search_request`, which runs `pipeline search` from request to results).

`schema` and `rows` import no DuckDB, so that pool workers, which build a paper's rows, start
without it; `database`, `writer` and `search` are the writer's and the readers'.
"""
