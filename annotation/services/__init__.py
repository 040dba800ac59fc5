"""Write operations: plain keyword-only functions that own their transactions."""
