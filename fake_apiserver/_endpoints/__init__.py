"""Endpoints: the aiohttp edge (routing, content negotiation, request decoding, rendering
``Status``), discovery, the OpenAPI documents and server-side Tables."""
