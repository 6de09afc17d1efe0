"""Endpoints: the fake's own HTTP/1.1 edge (requests parsed with httptools, answers written as Go's
``net/http`` writes them), routing and the router's errors, the request model and interceptor
chain, the verbs' handlers, request decoding, content negotiation and encoding (``Status`` rendered
once), watch streams, discovery, the OpenAPI documents and server-side Tables. Answers are
``aiohttp.web.Response`` values, plain values to the edge, so that the fault proxy, which stays an
aiohttp server, answers with the same ones."""
