"""Language models in the loop (DESIGN.md, "Models in the loop"): the client of any
OpenAI-compatible server (`client`), the local compatible endpoint for the demo and the tests
(`local`), and the requests built from a project's task (`prompts`)."""
