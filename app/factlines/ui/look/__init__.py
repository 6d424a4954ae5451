"""How things look and read: colours and text forms (style), a fact's story and the store's
refusals in a person's words."""
