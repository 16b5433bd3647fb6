"""Push: what matters reaches the person's phone (or chat, or mail) through Apprise while away."""
