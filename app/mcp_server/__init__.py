"""The course library as an MCP server: tools, lesson resources, bearer tokens and their rate limits."""
